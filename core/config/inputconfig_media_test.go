package config

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// captureFlags are the flags every issue-10 capture of AIPerf 0.13 used
// (/tmp/issue10/captures/<name>/cmd.txt), with the URL fixed.
var captureFlags = []string{"--model", "mock-model", "--url", "http://127.0.0.1:8000", "--request-count", "2",
	"--concurrency", "1", "--random-seed", "1", "--ui-type", "none"}

// formDataTypes are the endpoint types whose metadata sets requires_form_data.
var formDataTypes = map[string]bool{"video_generation": true, "image_edit": true, "audio_transcription": true}

// The endpoint and datasets sections of each capture's input_config match
// AIPerf 0.13's (copied from _full_artifacts/<name>/profile_export_aiperf.json,
// the URL normalized) key for key and number kind for number kind.
func TestInputConfigMediaMatchesAIPerf(t *testing.T) {
	pinTerminal(t, false)
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{"chat_batch_text2", []string{"--endpoint-type", "chat", "--isl", "8", "--batch-size-text", "2"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}, "batch_size": 2}}]}`},
		{"chat_image_batch_only", []string{"--endpoint-type", "chat", "--isl", "8", "--batch-size-image", "1"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "images": {"batch_size": 1}}]}`},
		{"chat_image_format_random", []string{"--endpoint-type", "chat", "--isl", "8", "--image-width-mean", "4", "--image-height-mean", "4", "--image-format", "random", "--batch-size-image", "3"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "images": {"batch_size": 3, "width": {"mean": 4.0}, "height": {"mean": 4.0}, "format": "random"}}]}`},
		{"chat_mm_assets_jpeg", []string{"--endpoint-type", "chat", "--isl", "8", "--image-source", "assets", "--image-format", "jpeg", "--image-width-mean", "8", "--image-height-mean", "6", "--image-width-stddev", "2", "--batch-size-image", "2"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "images": {"batch_size": 2, "width": {"mean": 8.0, "stddev": 2.0}, "height": {"mean": 6.0}, "format": "jpeg", "source": "assets"}}]}`},
		{"chat_mm_audio_mp3", []string{"--endpoint-type", "chat", "--isl", "8", "--audio-length-mean", "0.05", "--audio-format", "mp3", "--audio-sample-rates", "8", "--audio-depths", "16", "--audio-num-channels", "2"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "audio": {"batch_size": 1, "length": {"mean": 0.05}, "format": "mp3", "sample_rates": [8.0], "depths": [16], "channels": 2}}]}`},
		{"chat_mm_image_audio", []string{"--endpoint-type", "chat", "--isl", "8", "--image-width-mean", "8", "--image-height-mean", "8", "--image-format", "png", "--batch-size-image", "1", "--audio-length-mean", "0.02", "--audio-format", "wav", "--audio-sample-rates", "8", "--batch-size-audio", "1"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "images": {"batch_size": 1, "width": {"mean": 8.0}, "height": {"mean": 8.0}, "format": "png"}, "audio": {"batch_size": 1, "length": {"mean": 0.02}, "format": "wav", "sample_rates": [8.0]}}]}`},
		{"chat_audio_batch_only", []string{"--endpoint-type", "chat", "--isl", "8", "--batch-size-audio", "1"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "audio": {"batch_size": 1}}]}`},
		{"chat_video", []string{"--endpoint-type", "chat", "--isl", "8", "--video-width", "16", "--video-height", "16", "--video-duration", "1", "--video-fps", "2", "--video-synth-type", "noise"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}, "video": {"batch_size": 1, "duration": 1.0, "fps": 2, "width": 16, "height": 16, "synth_type": "noise"}}]}`},
		{"nim_rankings", []string{"--endpoint-type", "nim_rankings", "--rankings-passages-mean", "3", "--rankings-passages-stddev", "1", "--rankings-passages-prompt-token-mean", "8", "--rankings-passages-prompt-token-stddev", "2", "--rankings-query-prompt-token-mean", "6", "--rankings-query-prompt-token-stddev", "0"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "nim_rankings"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 550.0}}, "rankings": {"passages": {"mean": 3.0, "stddev": 1.0}, "passage_tokens": {"mean": 8.0, "stddev": 2.0}, "query_tokens": {"mean": 6.0, "stddev": 0.0}}}]}`},
		{"nim_rankings_b3", []string{"--endpoint-type", "nim_rankings", "--rankings-passages-mean", "3", "--rankings-passages-stddev", "1", "--rankings-passages-prompt-token-mean", "8", "--rankings-passages-prompt-token-stddev", "2", "--rankings-query-prompt-token-mean", "6", "--rankings-query-prompt-token-stddev", "0", "--batch-size-text", "3"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "nim_rankings"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 550.0}, "batch_size": 3}, "rankings": {"passages": {"mean": 3.0, "stddev": 1.0}, "passage_tokens": {"mean": 8.0, "stddev": 2.0}, "query_tokens": {"mean": 6.0, "stddev": 0.0}}}]}`},
		{"rankings_defaults", []string{"--endpoint-type", "nim_rankings"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "nim_rankings"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 550.0}}}]}`},
		{"rankings_file", []string{"--endpoint-type", "cohere_rankings", "--input-file", "/tmp/issue10/datasets/rankings_file.jsonl", "--custom-dataset-type", "single_turn"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "cohere_rankings"}, "datasets": [{"name": "main", "type": "file", "path": "/tmp/issue10/datasets/rankings_file.jsonl", "format": "single_turn", "entries": 2, "random_seed": 1}]}`},
		{"chat_single_turn_media", []string{"--endpoint-type", "chat", "--input-file", "/tmp/issue10/datasets/single_turn_media.jsonl", "--custom-dataset-type", "single_turn"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "chat"}, "datasets": [{"name": "main", "type": "file", "path": "/tmp/issue10/datasets/single_turn_media.jsonl", "format": "single_turn", "entries": 2, "random_seed": 1}]}`},
		{"video_generation", []string{"--endpoint-type", "video_generation", "--isl", "8", "--extra-inputs", "seconds:4", "--extra-inputs", "size:64x64"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "video_generation", "extra": {"seconds": 4, "size": "64x64"}, "request_content_type": "multipart/form-data"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}}]}`},
		{"video_generation_download", []string{"--endpoint-type", "video_generation", "--isl", "8", "--download-video-content"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "video_generation", "download_video_content": true, "request_content_type": "multipart/form-data"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}}}]}`},
		{"embeddings_b3", []string{"--endpoint-type", "embeddings", "--isl", "8", "--batch-size-text", "3", "--extra-inputs", "encoding_format:float"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "embeddings", "extra": {"encoding_format": "float"}}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}, "batch_size": 3}}]}`},
		{"nim_embeddings_images", []string{"--endpoint-type", "nim_embeddings", "--isl", "8", "--batch-size-text", "2", "--image-width-mean", "8", "--image-height-mean", "8", "--batch-size-image", "2"},
			`{"endpoint": {"urls": ["http://127.0.0.1:8000"], "type": "nim_embeddings"}, "datasets": [{"name": "main", "type": "synthetic", "entries": 2, "random_seed": 1, "prompts": {"isl": {"mean": 8.0}, "batch_size": 2}, "images": {"batch_size": 2, "width": {"mean": 8.0}, "height": {"mean": 8.0}}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append(append([]string(nil), captureFlags...), tc.flags...)...)
			if err := cfg.CheckEndpoint(sdk.EndpointMetadata{RequiresFormData: formDataTypes[cfg.EndpointType]}); err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(strings.NewReader(tc.want))
			dec.UseNumber()
			var want map[string]any
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			ic := cfg.InputConfig()
			got := map[string]any{"endpoint": ic["endpoint"], "datasets": ic["datasets"]}
			for _, d := range sameJSON("input_config", got, want) {
				t.Error(d)
			}
		})
	}
}
