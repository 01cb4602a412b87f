package synthetic

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	_ "image/jpeg" // image.DecodeConfig of the generated JPEGs
	_ "image/png"
	"math"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func f64(v float64) *float64 { return &v }

// mediaOpts is a small dataset for media tests.
func mediaOpts() sdk.DatasetOptions {
	opts := baseOpts()
	opts.NumEntries = 3
	opts.InputTokensMean, opts.InputTokensStddev = 8, 0
	opts.OutputTokensMean = 0
	return opts
}

// A batch of N prompts takes the next N draws, as AIPerf's consecutive
// generate calls do: the 3 prompts of a batch-3 turn are the prompts of
// three single-prompt turns, each of the exact length.
func TestComposeTextBatch(t *testing.T) {
	tok := tiktoken.New()
	opts := mediaOpts()
	opts.NumEntries = 2
	batched := composeWith(t, Config{PromptBatchSize: 3}, opts)
	opts.NumEntries = 6
	single := compose(t, opts)
	for i, c := range batched {
		texts := c.Turns[0].Texts
		if len(texts) != 3 {
			t.Fatalf("entry %d: %d prompts, want 3", i, len(texts))
		}
		for j, text := range texts {
			if want := single[3*i+j].Turns[0].Texts[0]; text != want {
				t.Errorf("entry %d prompt %d = %q, want the %d-th single prompt %q", i, j, text, 3*i+j, want)
			}
			if n := tok.Count(text); n != 8 {
				t.Errorf("entry %d prompt %d has %d tokens, want 8", i, j, n)
			}
		}
	}
}

// AIPerf sends no text when the input length mean is 0, and refuses a
// dataset with nothing at all in it.
func TestComposeWithoutText(t *testing.T) {
	opts := mediaOpts()
	opts.InputTokensMean = 0
	convs := composeWith(t, Config{ImageBatchSize: 1, ImageWidthMean: f64(4), ImageHeightMean: f64(4)}, opts)
	for i, c := range convs {
		if c.Turns[0].Texts != nil || len(c.Turns[0].Images) != 1 {
			t.Errorf("entry %d: texts %q, %d images; want no text and one image", i, c.Turns[0].Texts, len(c.Turns[0].Images))
		}
	}
	_, err := New().Compose(t.Context(), opts)
	if err == nil || !strings.Contains(err.Error(), "all synthetic data are disabled") {
		t.Errorf("no text and no media: err = %v", err)
	}
}

// decodeImage returns the format and size of a data:image URI.
func decodeImage(t *testing.T, uri string) (string, int, int) {
	t.Helper()
	head, data, ok := strings.Cut(uri, ";base64,")
	if !ok || !strings.HasPrefix(head, "data:image/") {
		t.Fatalf("not an image data URI: %.40q", uri)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimPrefix(head, "data:image/"); want != format {
		t.Errorf("URI says %s, bytes are %s", want, format)
	}
	return format, cfg.Width, cfg.Height
}

func TestComposeImages(t *testing.T) {
	cfg := Config{ImageBatchSize: 2, ImageWidthMean: f64(8), ImageHeightMean: f64(6), ImageFormat: "png"}
	convs := composeWith(t, cfg, mediaOpts())
	for i, c := range convs {
		turn := c.Turns[0]
		if len(turn.Images) != 2 || len(turn.Texts) != 1 || turn.Audios != nil || turn.Videos != nil {
			t.Fatalf("entry %d: %d images, %d texts, audios %v, videos %v", i, len(turn.Images), len(turn.Texts), turn.Audios, turn.Videos)
		}
		for _, img := range turn.Images {
			if f, w, h := decodeImage(t, img); f != "png" || w != 8 || h != 6 {
				t.Errorf("entry %d: %s %dx%d, want png 8x6", i, f, w, h)
			}
		}
	}
	if convs[0].Turns[0].Images[0] == convs[0].Turns[0].Images[1] {
		t.Error("two noise images are identical")
	}
	// Deterministic from the seed; another seed gives other pixels.
	if marshal(t, composeWith(t, cfg, mediaOpts())) != marshal(t, convs) {
		t.Error("same seed, different images")
	}
	other := mediaOpts()
	other.RandomSeed++
	if composeWith(t, cfg, other)[0].Turns[0].Images[0] == convs[0].Turns[0].Images[0] {
		t.Error("another seed gave the same image")
	}
}

// Only a batch size: AIPerf 0.13's 512x512 JPEG (captured
// chat_image_batch_only).
func TestComposeImageBatchOnlyDefaults(t *testing.T) {
	opts := mediaOpts()
	opts.NumEntries = 1
	turn := composeWith(t, Config{ImageBatchSize: 1}, opts)[0].Turns[0]
	if len(turn.Images) != 1 {
		t.Fatalf("%d images, want 1", len(turn.Images))
	}
	if f, w, h := decodeImage(t, turn.Images[0]); f != "jpeg" || w != 512 || h != 512 {
		t.Errorf("%s %dx%d, want jpeg 512x512", f, w, h)
	}
}

// Inclusion rules: a zero width or height, or a zero batch, sends no
// images; a video needs both sides. Media settings never change the texts.
func TestComposeMediaInclusion(t *testing.T) {
	text := compose(t, mediaOpts())
	for name, cfg := range map[string]Config{
		"zero width":           {ImageBatchSize: 2, ImageWidthMean: f64(0)},
		"zero height":          {ImageBatchSize: 2, ImageHeightMean: f64(0)},
		"image shape, batch 0": {ImageWidthMean: f64(8), ImageHeightMean: f64(8)},
		"zero audio length":    {AudioBatchSize: 1, AudioLengthMean: f64(0)},
		"video width only":     {VideoBatchSize: 1, VideoWidth: 16},
		"video batch 0":        {VideoWidth: 16, VideoHeight: 16},
	} {
		if got := marshal(t, composeWith(t, cfg, mediaOpts())); got != marshal(t, text) {
			t.Errorf("%s: dataset has media or other texts", name)
		}
	}
	with := composeWith(t, Config{ImageBatchSize: 1, ImageWidthMean: f64(4), ImageHeightMean: f64(4)}, mediaOpts())
	for i := range with {
		if !reflect.DeepEqual(with[i].Turns[0].Texts, text[i].Turns[0].Texts) {
			t.Errorf("entry %d: images changed the prompts", i)
		}
	}
}

// wavSeconds reads a "wav,<base64>" clip's length from its header.
func wavSeconds(t *testing.T, clip string) float64 {
	t.Helper()
	format, data, _ := strings.Cut(clip, ",")
	b, err := base64.StdEncoding.DecodeString(data)
	if format != "wav" || err != nil || len(b) < 44 || string(b[:4]) != "RIFF" {
		t.Fatalf("not a wav clip: %.40q (%v)", clip, err)
	}
	rate := binary.LittleEndian.Uint32(b[24:28])
	blockAlign := binary.LittleEndian.Uint16(b[32:34])
	size := binary.LittleEndian.Uint32(b[40:44])
	return float64(size) / float64(blockAlign) / float64(rate)
}

// Audio clips per turn; AudioDurationS is the first clip's length.
func TestComposeAudio(t *testing.T) {
	cfg := Config{AudioBatchSize: 2, AudioLengthMean: f64(0.05), AudioLengthStddev: 0.02, AudioSampleRates: []float64{8}}
	for i, c := range composeWith(t, cfg, mediaOpts()) {
		turn := c.Turns[0]
		if len(turn.Audios) != 2 || turn.AudioDurationS == nil {
			t.Fatalf("entry %d: %d clips, duration %v", i, len(turn.Audios), turn.AudioDurationS)
		}
		first := wavSeconds(t, turn.Audios[0])
		if math.Abs(first-*turn.AudioDurationS) > 1.0/8000 {
			t.Errorf("entry %d: duration %v, first clip %v s", i, *turn.AudioDurationS, first)
		}
	}
	// Only the batch: AIPerf's 10 s default (captured audio_duration 10.0).
	opts := mediaOpts()
	opts.NumEntries = 1
	turn := composeWith(t, Config{AudioBatchSize: 1}, opts)[0].Turns[0]
	if turn.AudioDurationS == nil || *turn.AudioDurationS != 10 || wavSeconds(t, turn.Audios[0]) != 10 {
		t.Errorf("batch only: duration %v", turn.AudioDurationS)
	}
}

func TestComposeVideo(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not on PATH")
	}
	opts := mediaOpts()
	opts.NumEntries = 2
	cfg := Config{VideoBatchSize: 1, VideoWidth: 16, VideoHeight: 16, VideoDuration: f64(1), VideoFPS: 2, VideoSynthType: "noise"}
	convs := composeWith(t, cfg, opts)
	for i, c := range convs {
		v := c.Turns[0].Videos
		if len(v) != 1 || !strings.HasPrefix(v[0], "data:video/webm;base64,") {
			t.Fatalf("entry %d: videos %.60q", i, v)
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v[0], "data:video/webm;base64,"))
		if err != nil || !bytes.HasPrefix(b, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
			t.Errorf("entry %d: not a WebM (EBML) file (%v)", i, err)
		}
	}
	if convs[0].Turns[0].Videos[0] == convs[1].Turns[0].Videos[0] {
		t.Error("two noise videos are identical")
	}
	if marshal(t, composeWith(t, cfg, opts)) != marshal(t, convs) {
		t.Error("same seed, different videos")
	}
}

// The media settings decode from the keys the core sets from AIPerf's
// flags (config.SyntheticMediaSettings).
func TestMediaSettingsDecode(t *testing.T) {
	c := New()
	settings := `{"prompt_batch_size": 2, "image_batch_size": 1, "image_width_mean": 8, "image_height_mean": 6,
		"image_format": "png", "image_source": "assets", "image_source_sampling": "shuffle-cycle",
		"audio_batch_size": 1, "audio_length_mean": 0.5, "audio_format": "wav", "audio_depths": [16, 24],
		"audio_sample_rates": [8, 16], "audio_num_channels": 2, "video_batch_size": 1, "video_width": 16,
		"video_height": 12, "video_duration": 1.5, "video_fps": 2, "video_synth_type": "grid_clock",
		"video_format": "mp4", "video_codec": "libvpx"}`
	if err := sdk.ApplyConfig(c, "dataset_composer.synthetic", []byte(settings)); err != nil {
		t.Fatal(err)
	}
	want := Config{PromptBatchSize: 2, ImageBatchSize: 1, ImageWidthMean: f64(8), ImageHeightMean: f64(6),
		ImageFormat: "png", ImageSource: "assets", ImageSourceSampling: "shuffle-cycle",
		AudioBatchSize: 1, AudioLengthMean: f64(0.5), AudioFormat: "wav", AudioDepths: []int{16, 24},
		AudioSampleRates: []float64{8, 16}, AudioNumChannels: 2, VideoBatchSize: 1, VideoWidth: 16,
		VideoHeight: 12, VideoDuration: f64(1.5), VideoFPS: 2, VideoSynthType: "grid_clock",
		VideoFormat: "mp4", VideoCodec: "libvpx"}
	if !reflect.DeepEqual(c.Config, want) {
		t.Errorf("decoded %+v\nwant %+v", c.Config, want)
	}
}

func TestMediaSettingsInvalid(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{PromptBatchSize: -1}, "prompt_batch_size -1 (--prompt-batch-size)"},
		{Config{ImageBatchSize: -2}, "image_batch_size -2 (--image-batch-size)"},
		{Config{VideoFPS: -1}, "video_fps -1 (--video-fps)"},
		{Config{AudioLengthMean: f64(math.Inf(1))}, "audio_length_mean +Inf (--audio-length-mean)"},
		{Config{ImageWidthStddev: -3}, "image_width_stddev -3 (--image-width-stddev)"},
	} {
		comp := New()
		comp.Config = c.cfg
		if err := comp.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want it to mention %q", c.cfg, err, c.want)
		}
	}
	// A generator's own check surfaces from Compose, naming the flag.
	comp := New()
	comp.Config = Config{ImageBatchSize: 1, ImageFormat: "gif"}
	if _, err := comp.Compose(t.Context(), mediaOpts()); err == nil || !strings.Contains(err.Error(), "--image-format") {
		t.Errorf("bad image format: err = %v", err)
	}
}
