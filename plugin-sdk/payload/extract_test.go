package payload

import (
	"reflect"
	"testing"
)

// The shapes of AIPerf 0.13's extract_inputs, with the bodies its
// endpoints send (/tmp/issue10 captures, trimmed).
func TestExtract(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		parts  PartTypes
		texts  []string
		pretok int
		media  [3]int // images, audios, videos
	}{
		{"chat string content with history", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":""},{"role":"user","content":"b"}],"model":"m"}`,
			OpenAI, []string{"a", "", "b"}, 0, [3]int{}},
		{"chat parts", `{"messages":[{"role":"user","content":[{"type":"text","text":"t1"},{"type":"text","text":"t2"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{"type":"input_audio","input_audio":{"data":"UklG","format":"wav"}},{"type":"video_url","video_url":{"url":"https://x/v.mp4"}},{"type":"image_url","image_url":{"url":"u"}}]}]}`,
			OpenAI, []string{"t1", "t2"}, 0, [3]int{2, 1, 1}},
		{"completions prompt string", `{"prompt":"p","model":"m"}`, OpenAI, []string{"p"}, 0, [3]int{}},
		{"completions prompt batch", `{"prompt":["p1","p2"]}`, OpenAI, []string{"p1", "p2"}, 0, [3]int{}},
		{"embeddings input list", `{"model":"m","input":[" a"," b"," c"],"encoding_format":"float"}`, OpenAI, []string{" a", " b", " c"}, 0, [3]int{}},
		{"embeddings token ids", `{"input":[1,2,3]}`, OpenAI, nil, 3, [3]int{}},
		{"embeddings token id batches", `{"input":[[1,2],[3]]}`, OpenAI, nil, 3, [3]int{}},
		{"rankings with a string query", `{"query":"q","passages":["p1",{"text":"p2"}]}`, OpenAI, []string{"q", "p1", "p2"}, 0, [3]int{}},
		// AIPerf recognizes none of these: no ISL for them.
		{"nim rankings query object", `{"model":"m","query":{"text":"q"},"passages":[{"text":"p"}]}`, OpenAI, nil, 0, [3]int{}},
		{"tei rankings", `{"query":"q","texts":["p"]}`, OpenAI, nil, 0, [3]int{}},
		{"cohere rankings", `{"model":"m","query":"q","documents":["p"]}`, OpenAI, nil, 0, [3]int{}},
		{"solido list query", `{"query":["q"],"filters":{"family":"Solido"},"inference_model":"m"}`, OpenAI, nil, 0, [3]int{}},
		{"tgi inputs", `{"inputs":"x y","parameters":{"max_new_tokens":8}}`, OpenAI, []string{"x y"}, 0, [3]int{}},
		{"responses items", `{"input":[{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"u"}],"type":"message"},{"type":"function_call","name":"f","arguments":"{}"},{"type":"function_call_output","output":"42"}]}`,
			PartTypes{Text: []string{"input_text", "output_text"}, Image: []string{"input_image"}}, []string{"hi", "f", "{}", "42"}, 0, [3]int{1, 0, 0}},
		{"tool calls and tools schema", `{"messages":[{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get","arguments":"{\"a\":1}"}}]}],"tools":[{"type":"function","function":{"name":"get","description":"d","parameters":{"type":"object"}}}]}`,
			OpenAI, []string{"", "get", `{"a":1}`, "get", "d", `{"type":"object"}`}, 0, [3]int{}},
		// An items array wins over the flat shapes: its prompt is not read.
		{"items win over prompt", `{"messages":[{"role":"user","content":"m"}],"prompt":"p"}`, OpenAI, []string{"m"}, 0, [3]int{}},
		// Strings in "input" are embeddings, not items.
		{"template body of no shape", `{"text":["a"]}`, OpenAI, nil, 0, [3]int{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Extract([]byte(tc.body), tc.parts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in.Texts, tc.texts) || in.Pretokenized != tc.pretok ||
				[3]int{in.Images, in.Audios, in.Videos} != tc.media {
				t.Errorf("Extract = %+v, want texts %q pretokenized %d media %v", in, tc.texts, tc.pretok, tc.media)
			}
			if want := len(tc.texts) > 0 || tc.pretok > 0; in.HasInput() != want {
				t.Errorf("HasInput = %v, want %v", in.HasInput(), want)
			}
		})
	}
}

func TestExtractRejectsNonJSON(t *testing.T) {
	if _, err := Extract([]byte("prompt=x"), OpenAI); err == nil {
		t.Error("a form body is not a JSON object: want an error")
	}
	if in, err := Extract([]byte(`["a"]`), OpenAI); err == nil || in.HasInput() {
		t.Errorf("a JSON array is not a request object: got %+v, %v", in, err)
	}
}
