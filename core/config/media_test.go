package config

import (
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Every spelling of the batch and media flags lands on its setting.
func TestMediaFlagAliases(t *testing.T) {
	tests := []struct {
		args []string
		get  func(*RunConfig) any
		want any
	}{
		{[]string{"-b", "3"}, func(c *RunConfig) any { return c.EffectivePromptBatchSize() }, 3},
		{[]string{"--batch-size-text", "4"}, func(c *RunConfig) any { return c.EffectivePromptBatchSize() }, 4},
		{[]string{"--batch-size", "5"}, func(c *RunConfig) any { return c.EffectivePromptBatchSize() }, 5},
		{[]string{"--prompt-batch-size", "6"}, func(c *RunConfig) any { return c.EffectivePromptBatchSize() }, 6},
		{nil, func(c *RunConfig) any { return c.EffectivePromptBatchSize() }, 1},
		{[]string{"--batch-size-image", "2"}, func(c *RunConfig) any { return derefInt(c.ImageBatchSize) }, 2},
		{[]string{"--image-batch-size", "3"}, func(c *RunConfig) any { return derefInt(c.ImageBatchSize) }, 3},
		{[]string{"--batch-size-audio", "2"}, func(c *RunConfig) any { return derefInt(c.AudioBatchSize) }, 2},
		{[]string{"--batch-size-video", "2"}, func(c *RunConfig) any { return derefInt(c.VideoBatchSize) }, 2},
		{[]string{"--video-audio-num-channels", "2"}, func(c *RunConfig) any { return derefInt(c.VideoAudioChannels) }, 2},
		{[]string{"--audio-depths", "16,24", "--audio-depths", "8"}, func(c *RunConfig) any { d, _ := c.AudioDepthValues(); return d }, []int{16, 24, 8}},
		// Hz values above 96 are kHz / 1000, as AIPerf normalizes them.
		{[]string{"--audio-sample-rates", "16000,44.1", "--audio-sample-rates", "8"}, func(c *RunConfig) any { r, _ := c.AudioSampleRatesKHz(); return r }, []float64{16, 44.1, 8}},
		{[]string{"--video-synth-type", "Moving-Shapes"}, func(c *RunConfig) any { return c.videoSynthType() }, "moving_shapes"},
		{[]string{"--image-source-sampling", "shuffle_cycle"}, func(c *RunConfig) any { return c.imageSourceSampling() }, "shuffle-cycle"},
		{[]string{"--request-content-type", "Multipart/Form-Data"}, func(c *RunConfig) any { return c.EffectiveRequestContentType() }, ContentTypeFormData},
		{[]string{"--download-video-content"}, func(c *RunConfig) any { return c.DownloadVideoContent }, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			if got := tt.get(cfg); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// The multi-value form AIPerf documents (--audio-depths 16 24) works once
// the arguments are expanded.
func TestMediaListFlagsTakeSeveralWords(t *testing.T) {
	args := ExpandMultiValueArgs([]string{"-m", "m", "--audio-depths", "16", "24", "--audio-sample-rates", "8", "16"})
	cfg, _ := load(t, nil, args...)
	d, _ := cfg.AudioDepthValues()
	r, _ := cfg.AudioSampleRatesKHz()
	if !reflect.DeepEqual(d, []int{16, 24}) || !reflect.DeepEqual(r, []float64{8, 16}) {
		t.Errorf("depths %v rates %v", d, r)
	}
}

// The same settings come from the config file and the environment under
// AIPerf's field names.
func TestMediaSettingsFromFileAndEnv(t *testing.T) {
	file := writeFile(t, "cfg.yaml", "model_names: [m]\nprompt_batch_size: 2\nimage_width_mean: 64\naudio_depths: [16, 24]\nrankings_passages_mean: 5\n")
	cfg, _ := load(t, []string{"AIPERF_VIDEO_WIDTH=32", "AIPERF_REQUEST_CONTENT_TYPE=application/json"}, "--config", file)
	d, _ := cfg.AudioDepthValues()
	got := []any{cfg.EffectivePromptBatchSize(), *cfg.ImageWidthMean, d, derefInt(cfg.RankingsPassagesMean), derefInt(cfg.VideoWidth), cfg.EffectiveRequestContentType()}
	want := []any{2, 64.0, []int{16, 24}, 5, 32, ContentTypeJSON}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestValidateMediaErrors(t *testing.T) {
	dataset := writeFile(t, "d.jsonl", `{"text": "hi"}`+"\n")
	tests := []struct {
		name string
		args []string
		want string // exact line expected in the joined error
	}{
		{"content type dash spelling", []string{"--request-content-type", "multipart-form-data"},
			`--request-content-type "multipart-form-data" is not valid; choose one of: application/json, multipart/form-data`},
		{"batch zero", []string{"-b", "0"}, "--prompt-batch-size must be >= 1 (got 0)"},
		{"image batch negative", []string{"--batch-size-image", "-1"}, "--image-batch-size must be >= 0 (got -1)"},
		{"video fps", []string{"--video-fps", "0"}, "--video-fps must be >= 1 (got 0)"},
		{"video width", []string{"--video-width", "0"}, "--video-width must be >= 1 (got 0)"},
		{"video duration", []string{"--video-duration", "0"}, "--video-duration must be > 0 and finite (got 0)"},
		{"rankings mean", []string{"--rankings-passages-mean", "0"}, "--rankings-passages-mean must be >= 1 (got 0)"},
		{"rankings stddev", []string{"--rankings-query-prompt-token-mean", "4", "--rankings-query-prompt-token-stddev", "-1"},
			"--rankings-query-prompt-token-stddev must be >= 0 (got -1)"},
		{"image width", []string{"--image-width-mean", "-2"}, "--image-width-mean must be >= 0 and finite (got -2)"},
		{"stddev without mean", []string{"--image-height-stddev", "3"},
			"--image-height-stddev requires --image-height-mean (a distribution needs its mean)"},
		{"rankings stddev without mean", []string{"--rankings-passages-stddev", "2"},
			"--rankings-passages-stddev requires --rankings-passages-mean (a distribution needs its mean)"},
		{"audio length floor", []string{"--audio-length-mean", "0.001"},
			"--audio-length-mean must be at least 0.01 seconds (got 0.001); 0 disables audio"},
		{"audio format", []string{"--audio-format", "flac"}, `--audio-format "flac" is not valid; choose one of: wav, mp3`},
		{"audio depth", []string{"--audio-depths", "16,12"}, "--audio-depths 12 is not supported; choose from: 8, 16, 24, 32"},
		{"audio depth text", []string{"--audio-depths", "x"}, `--audio-depths "x" is not an integer`},
		{"audio rate text", []string{"--audio-sample-rates", "fast"}, `--audio-sample-rates "fast" is not a number`},
		{"mp3 rate", []string{"--audio-format", "mp3", "--audio-sample-rates", "44.1,96"},
			"--audio-sample-rates 96 kHz is not supported by --audio-format mp3; MP3 allows (Hz): 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000"},
		{"channels", []string{"--audio-num-channels", "3"}, "--audio-num-channels must be 1 or 2 (got 3)"},
		{"image format", []string{"--image-format", "gif"}, `--image-format "gif" is not valid; choose one of: png, jpeg, random`},
		{"image source", []string{"--image-source", "/nonexistent/dir"},
			`--image-source "/nonexistent/dir" is not valid; choose noise, assets, or an existing directory of images`},
		{"sampling with noise", []string{"--image-source-sampling", "sequential-cycle"},
			"--image-source-sampling sequential-cycle requires --image-source assets or a directory path; noise has no finite source pool (only random-with-replacement)"},
		{"sampling choice", []string{"--image-source", "assets", "--image-source-sampling", "round"},
			`--image-source-sampling "round" is not valid; choose one of: random-with-replacement, shuffle-cycle, sequential-cycle`},
		{"synth type", []string{"--video-synth-type", "fractal"}, `--video-synth-type "fractal" is not valid; choose one of: moving_shapes, grid_clock, noise`},
		{"video format", []string{"--video-format", "avi"}, `--video-format "avi" is not valid; choose one of: mp4, webm`},
		{"video audio codec without channels", []string{"--video-audio-codec", "libopus"},
			"--video-audio-codec 'libopus' is set but --video-audio-num-channels is 0 (audio disabled). Set --video-audio-num-channels to 1 or 2 to enable audio"},
		{"video audio rate", []string{"--video-audio-sample-rate", "4"}, "--video-audio-sample-rate must be between 8 and 96000 (Hz, or kHz up to 96; got 4)"},
		{"video audio depth", []string{"--video-audio-depth", "12"}, "--video-audio-depth must be one of 8, 16, 24, 32 (got 12)"},
		{"video audio channels range", []string{"--video-audio-num-channels", "3"}, "--video-audio-num-channels must be 0, 1 or 2 (got 3)"},
		{"video audio track", []string{"--video-width", "8", "--video-height", "8", "--video-audio-num-channels", "1", "--video-audio-codec", "libvorbis"},
			"--video-audio-num-channels 1: an audio track in synthetic videos is not supported; use 0 (no audio track)"},
		// AIPerf's message, captured (chat_file_with_batch_flag).
		{"batch with input file", []string{"--input-file", dataset, "--custom-dataset-type", "single_turn", "--batch-size-text", "2"},
			"--prompt-batch-size/--batch-size-text requires --custom-dataset-type random_pool when used with --input-file. Either change --custom-dataset-type from single_turn to random_pool to keep --input-file, or remove --input-file to use a synthetic dataset."},
		{"media batch with input file", []string{"--input-file", dataset, "--batch-size-image", "2", "--batch-size-audio", "1"},
			"--image-batch-size, --audio-batch-size requires --custom-dataset-type random_pool when used with --input-file. Either add --custom-dataset-type random_pool to keep --input-file, or remove --input-file to use a synthetic dataset."},
		{"image source with input file", []string{"--input-file", dataset, "--image-source", "assets"},
			"--image-source is only supported with synthetic datasets; remove --input-file (use a synthetic dataset) to apply synthetic-only prompt shaping (ISL, prefix prompts, multimodal generation, multi-turn conversation, etc)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", tt.want)
			}
			lines := strings.Split(err.Error(), "\n")
			for _, l := range lines {
				if l == tt.want {
					return
				}
			}
			t.Errorf("error lines %q\nwant line %q", lines, tt.want)
		})
	}
}

// Flags AIPerf accepts pass validation, including the batch sizes of a
// random_pool file and every media flag of the captures.
func TestValidateMediaAccepts(t *testing.T) {
	dataset := writeFile(t, "d.jsonl", `{"text": "hi"}`+"\n")
	for _, args := range [][]string{
		{"--input-file", dataset, "--custom-dataset-type", "random_pool", "-b", "2", "--batch-size-image", "1"},
		{"--image-source", "assets", "--image-format", "jpeg", "--image-width-mean", "8", "--image-height-mean", "6", "--image-width-stddev", "2", "--batch-size-image", "2"},
		{"--image-source", t.TempDir(), "--image-source-sampling", "sequential-cycle"},
		{"--audio-length-mean", "0.05", "--audio-format", "mp3", "--audio-sample-rates", "8", "--audio-depths", "16", "--audio-num-channels", "2"},
		{"--audio-length-mean", "0", "--batch-size-audio", "0"},
		{"--video-width", "16", "--video-height", "16", "--video-duration", "1", "--video-fps", "2", "--video-synth-type", "grid-clock"},
		{"--video-width", "16", "--video-height", "16", "--video-audio-num-channels", "0", "--video-audio-sample-rate", "16000", "--video-audio-depth", "24"},
		{"--rankings-passages-mean", "3", "--rankings-passages-stddev", "1", "--rankings-passages-prompt-token-mean", "8",
			"--rankings-passages-prompt-token-stddev", "2", "--rankings-query-prompt-token-mean", "6", "--rankings-query-prompt-token-stddev", "0"},
		{"--request-content-type", "application/json", "--download-video-content"},
	} {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, args...)...)
		if err := cfg.Validate(testChoices); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// AIPerf's request content type rules per endpoint type (captured:
// reject_content_type_chat2, video_generation_json2), and the form-data
// default of endpoint types that require it.
func TestCheckEndpointContentType(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		formData bool
		wantErr  string
		wantCT   string
	}{
		{"chat default", []string{"--endpoint-type", "chat"}, false, "", ContentTypeJSON},
		{"video default", []string{"--endpoint-type", "video_generation"}, true, "", ContentTypeFormData},
		{"video explicit form", []string{"--endpoint-type", "video_generation", "--request-content-type", "multipart/form-data"}, true, "", ContentTypeFormData},
		{"chat explicit json", []string{"--endpoint-type", "chat", "--request-content-type", "application/json"}, false, "", ContentTypeJSON},
		{"chat form", []string{"--endpoint-type", "chat", "--request-content-type", "multipart/form-data"}, false,
			"--request-content-type multipart/form-data is only supported for endpoint types that accept form-data (e.g. image_edit, video_generation); endpoint type chat does not", ""},
		{"video json", []string{"--endpoint-type", "video_generation", "--request-content-type", "application/json"}, true,
			"--request-content-type: endpoint type video_generation requires multipart/form-data; application/json is not supported", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			err := cfg.CheckEndpoint(sdk.EndpointMetadata{RequiresFormData: tt.formData})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("CheckEndpoint = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.EffectiveRequestContentType(); got != tt.wantCT {
				t.Errorf("content type %q, want %q", got, tt.wantCT)
			}
			_, inInput := cfg.InputConfig()["endpoint"].(map[string]any)["request_content_type"]
			if want := tt.formData || len(tt.args) > 2; inInput != want {
				t.Errorf("input_config has request_content_type: %v, want %v", inInput, want)
			}
		})
	}
}

// The composers' settings follow AIPerf's converter: a media batch of 1 as
// soon as a shaping flag is given, only the flags given, and nothing at
// all without media flags.
func TestSyntheticMediaSettings(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{"none", nil, map[string]any{}},
		{"batch 1 is the default", []string{"-b", "1"}, map[string]any{}},
		{"text batch", []string{"-b", "3"}, map[string]any{"prompt_batch_size": 3}},
		{"image batch only", []string{"--batch-size-image", "1"}, map[string]any{"image_batch_size": 1}},
		{"image shape implies batch", []string{"--image-width-mean", "8", "--image-height-mean", "6", "--image-width-stddev", "2", "--image-format", "PNG"},
			map[string]any{"image_batch_size": 1, "image_width_mean": 8.0, "image_height_mean": 6.0, "image_width_stddev": 2.0, "image_format": "png"}},
		{"image format alone sends nothing", []string{"--image-format", "png"}, map[string]any{}},
		{"image source", []string{"--image-source", "ASSETS", "--image-source-sampling", "shuffle-cycle"},
			map[string]any{"image_batch_size": 1, "image_source": "assets", "image_source_sampling": "shuffle-cycle"}},
		{"explicit zero image batch", []string{"--image-width-mean", "8", "--batch-size-image", "0"},
			map[string]any{"image_batch_size": 0, "image_width_mean": 8.0}},
		{"audio", []string{"--audio-length-mean", "0.05", "--audio-format", "mp3", "--audio-sample-rates", "8000", "--audio-depths", "16,24", "--audio-num-channels", "2"},
			map[string]any{"audio_batch_size": 1, "audio_length_mean": 0.05, "audio_format": "mp3", "audio_sample_rates": []float64{8},
				"audio_depths": []int{16, 24}, "audio_num_channels": 2}},
		{"audio batch only", []string{"--batch-size-audio", "2"}, map[string]any{"audio_batch_size": 2}},
		{"video", []string{"--video-width", "16", "--video-height", "12", "--video-duration", "1.5", "--video-fps", "2", "--video-synth-type", "grid-clock", "--video-format", "mp4", "--video-codec", "libvpx"},
			map[string]any{"video_batch_size": 1, "video_width": 16, "video_height": 12, "video_duration": 1.5, "video_fps": 2,
				"video_synth_type": "grid_clock", "video_format": "mp4", "video_codec": "libvpx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tt.args...)...)
			if got := cfg.SyntheticMediaSettings(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SyntheticMediaSettings:\n got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestRankingsSettings(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m")
	if got := cfg.RankingsSettings(); len(got) != 0 {
		t.Errorf("no flags: %v, want none (the composer's 10/128/32 defaults stand)", got)
	}
	cfg, _ = load(t, nil, "-m", "m", "--rankings-passages-mean", "3", "--rankings-passages-stddev", "1",
		"--rankings-passages-prompt-token-mean", "8", "--rankings-passages-prompt-token-stddev", "2",
		"--rankings-query-prompt-token-mean", "6", "--rankings-query-prompt-token-stddev", "0")
	want := map[string]any{"passages_mean": 3.0, "passages_stddev": 1.0, "passage_tokens_mean": 8.0,
		"passage_tokens_stddev": 2.0, "query_tokens_mean": 6.0, "query_tokens_stddev": 0.0}
	if got := cfg.RankingsSettings(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

// A random_pool file carries the batch sizes as flat fields (AIPerf's
// _apply_random_pool_batch_sizes); synthetic-only sections stay out of file
// datasets.
func TestInputConfigRandomPoolBatches(t *testing.T) {
	dataset := writeFile(t, "d.jsonl", `{"text": "hi"}`+"\n")
	cfg, _ := load(t, nil, "-m", "m", "--input-file", dataset, "--custom-dataset-type", "random_pool", "-b", "2", "--batch-size-image", "3")
	d := cfg.InputConfig()["datasets"].([]any)[0].(map[string]any)
	if d["prompt_batch_size"] != 2 || d["image_batch_size"] != 3 {
		t.Errorf("dataset %v lacks the batch sizes", d)
	}
	for _, k := range []string{"prompts", "images", "audio_batch_size"} {
		if _, ok := d[k]; ok {
			t.Errorf("dataset has %q: %v", k, d)
		}
	}
}

// Audio lists are []any (the JSON exporter writes their floats as floats);
// the video audio track settings are nested as AIPerf nests them, the
// sample rate in kHz.
func TestInputConfigAudioLists(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--audio-length-mean", "1", "--audio-depths", "16,24", "--audio-sample-rates", "8,44100")
	a := cfg.InputConfig()["datasets"].([]any)[0].(map[string]any)["audio"].(map[string]any)
	if d, r := a["depths"], a["sample_rates"]; !reflect.DeepEqual(d, []any{16, 24}) || !reflect.DeepEqual(r, []any{8.0, 44.1}) {
		t.Errorf("depths %#v, sample_rates %#v", d, r)
	}
}

// The video audio track is nested under video.audio.
func TestInputConfigVideoAudio(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--video-width", "8", "--video-height", "8", "--video-audio-num-channels", "1",
		"--video-audio-sample-rate", "16000", "--video-audio-codec", "libopus", "--video-audio-depth", "24")
	v := cfg.InputConfig()["datasets"].([]any)[0].(map[string]any)["video"].(map[string]any)
	want := map[string]any{"batch_size": 1, "width": 8, "height": 8,
		"audio": map[string]any{"sample_rate": 16.0, "channels": 1, "codec": "libopus", "depth": 24}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("video section %#v, want %#v", v, want)
	}
}

func TestHelpMediaGroups(t *testing.T) {
	out := renderHelp(t, newProfileCmd(t))
	last := -1
	for _, h := range []string{"\nEndpoint:\n", "\nInput:\n", "\nAudio Input:\n", "\nImage Input:\n", "\nVideo Input:\n",
		"\nPrompt:\n", "\nInput Sequence Length (ISL):\n", "\nRankings:\n", "\nConversation Input:\n"} {
		i := strings.Index(out, h)
		if i < last {
			t.Errorf("heading %q missing or out of order", h)
		}
		last = i
	}
	for _, l := range []string{
		"  -b, --prompt-batch-size, --batch-size-text, --batch-size <int>",
		"  --image-batch-size, --batch-size-image <int>",
		"      Choices: png, jpeg, random",
		"  --rankings-passages-mean <int>\n",
		"      Default: 10\n",
		"      Default: 128\n",
		"      Default: 32\n",
		"      Choices: application/json, multipart/form-data",
		"  --video-audio-num-channels <int>",
		"  --download-video-content\n",
	} {
		if !strings.Contains(out, l) {
			t.Errorf("help lacks %q", l)
		}
	}
	// The image format default is what 0.13 does (jpeg), not its --help (png).
	if i := strings.Index(out, "  --image-format <str>"); i < 0 || !strings.Contains(out[i:i+400], "Default: jpeg") {
		t.Error("--image-format does not show Default: jpeg")
	}
}
