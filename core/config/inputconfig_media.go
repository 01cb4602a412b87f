package config

// addMediaSections adds the synthetic dataset's rankings, audio, images and
// video sections, built like AIPerf 0.13's converter (_build_rankings,
// _build_audio, _build_images, _build_video and
// _apply_implicit_media_batch): only the flags given, a section only when
// one of its flags is, and batch_size 1 when a shaping flag is given
// without the batch size. Means and stddevs are floats, as AIPerf's
// distributions dump them; counts are ints.
func (c *RunConfig) addMediaSections(d map[string]any) {
	if r := c.rankingsSection(); len(r) > 0 {
		d["rankings"] = r
	}
	if a := c.audioSection(); len(a) > 0 {
		d["audio"] = a
	}
	if i := c.imagesSection(); len(i) > 0 {
		d["images"] = i
	}
	if v := c.videoSection(); len(v) > 0 {
		d["video"] = v
	}
}

func (c *RunConfig) rankingsSection() map[string]any {
	r := map[string]any{}
	putDist(r, "passages", intFloat(c.RankingsPassagesMean), intFloat(c.RankingsPassagesStddev))
	putDist(r, "passage_tokens", intFloat(c.RankingsPassageTokensMean), intFloat(c.RankingsPassageTokensStddev))
	putDist(r, "query_tokens", intFloat(c.RankingsQueryTokensMean), intFloat(c.RankingsQueryTokensStddev))
	return r
}

func (c *RunConfig) audioSection() map[string]any {
	a := map[string]any{}
	putDist(a, "length", c.AudioLengthMean, c.AudioLengthStddev)
	setInt(a, "batch_size", c.AudioBatchSize)
	putString(a, "format", c.audioFormat())
	// []any, as every list of input_config (the JSON exporter writes
	// []any elements by kind: 8.0 stays a float).
	if d, err := c.AudioDepthValues(); err == nil && d != nil {
		a["depths"] = anySlice(d)
	}
	if r, err := c.AudioSampleRatesKHz(); err == nil && r != nil {
		a["sample_rates"] = anySlice(r)
	}
	setInt(a, "channels", c.AudioNumChannels)
	if n, ok := c.audioBatch(); ok && len(a) > 0 {
		a["batch_size"] = n
	}
	return a
}

func (c *RunConfig) imagesSection() map[string]any {
	i := map[string]any{}
	putDist(i, "height", c.ImageHeightMean, c.ImageHeightStddev)
	putDist(i, "width", c.ImageWidthMean, c.ImageWidthStddev)
	setInt(i, "batch_size", c.ImageBatchSize)
	putString(i, "format", c.imageFormat())
	putString(i, "source", c.imageSource())
	putString(i, "source_sampling", c.imageSourceSampling())
	if n, ok := c.imageBatch(); ok && len(i) > 0 {
		i["batch_size"] = n
	}
	return i
}

func (c *RunConfig) videoSection() map[string]any {
	v := map[string]any{}
	setInt(v, "batch_size", c.VideoBatchSize)
	putFloat(v, "duration", c.VideoDuration)
	setInt(v, "fps", c.VideoFPS)
	setInt(v, "width", c.VideoWidth)
	setInt(v, "height", c.VideoHeight)
	putString(v, "synth_type", c.videoSynthType())
	putString(v, "format", c.videoFormat())
	putString(v, "codec", c.videoCodec())
	audio := map[string]any{}
	if r := c.VideoAudioSampleRate; r != nil {
		audio["sample_rate"] = khz(*r)
	}
	setInt(audio, "channels", c.VideoAudioChannels)
	putString(audio, "codec", c.videoAudioCodec())
	setInt(audio, "depth", c.VideoAudioDepth)
	if len(audio) > 0 {
		v["audio"] = audio
	}
	if n, ok := c.videoBatch(); ok && len(v) > 0 {
		v["batch_size"] = n
	}
	return v
}

// putDist writes {"mean", "stddev"} with whichever of the two is set.
func putDist(m map[string]any, key string, mean, stddev *float64) {
	d := map[string]any{}
	putFloat(d, "mean", mean)
	putFloat(d, "stddev", stddev)
	if len(d) > 0 {
		m[key] = d
	}
}

func intFloat(v *int) *float64 {
	if v == nil {
		return nil
	}
	f := float64(*v)
	return &f
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
