package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

var pairSeeds = []string{
	"temperature:0.7", "ignore_eos:true,max_tokens:5", `stop:["a","b"],n:1`, `{"nvext": {"top_k": 5}, "x": null}`,
	"Accept-Language:en-US,en", "Authorization:Bearer abc", `{"X-Num": 5, "X-Bool": true}`, `a:"q,uo\"te",b:{"c":[1,2]}`,
	"seed:12345678901234567890", "x:-0.5e3", "no colon", ":v", "{", "k:", " , ",
}

// FuzzExtraInputs: every parsed --extra-inputs item has named keys and
// values the request body can carry (encoding/json marshals them), and
// parsing is deterministic.
func FuzzExtraInputs(f *testing.F) {
	for _, s := range pairSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		pairs, err := parsePairs(item, jsonScalar)
		again, err2 := parsePairs(item, jsonScalar)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(pairs, again) {
			t.Fatalf("two parses differ: %v (%v), %v (%v)", pairs, err, again, err2)
		}
		if err != nil {
			return
		}
		if len(pairs) == 0 && !strings.HasPrefix(strings.TrimSpace(item), "{") {
			t.Fatalf("no pairs and no error for %q", item)
		}
		for _, p := range pairs {
			if _, err := json.Marshal(p.val); err != nil {
				t.Fatalf("key %q: value %#v cannot go into a request body: %v", p.key, p.val, err)
			}
		}
	})
}

// FuzzHeaders: a -H item that passes validation gives headers net/http
// sends: a token name and a value without control characters.
func FuzzHeaders(f *testing.F) {
	for _, s := range pairSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		pairs, err := parsePairs(item, headerValue)
		if err != nil || checkHeaders(pairs) != nil {
			return
		}
		for _, p := range pairs {
			if p.key == "" {
				t.Fatalf("empty header name from %q", item)
			}
			v, ok := p.val.(string)
			if !ok {
				t.Fatalf("header %q: value %#v is not a string", p.key, p.val)
			}
			for i := 0; i < len(v); i++ {
				if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
					t.Fatalf("header %q: value %q has control byte %#x", p.key, v, c)
				}
			}
		}
	})
}

// FuzzConfigFile loads any bytes as --user-config-file: an error names the
// file; a file that loads validates, and its headers and extra inputs
// read back, without a panic.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"model_names: [file-model]\nconcurrency: 2\nrequest_count: 20\nprompt_input_tokens_mean: 200\nstreaming: true\n",
		"model_names: m\nstreaming: true\nurl: [a:1, b:2]\nexport_level: raw\n",
		`{"model_names": ["a"], "concurrency": 3, "extra_inputs": {"temperature": 0.2}}`,
		"model_names: a\nconcurrency: 1\nurl: d: e\n", "concurrency: -1\nheader: ['X:1', '{\"a\": 2}']\n",
		"isl: 1e99\nrequest_rate: .inf\ngoodput: 'time_to_first_token:200'\n", "- a\n", "a: &x [*x, *x]\n",
		"model_names:\nconcurency: 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		path := writeFile(t, "cfg.yaml", string(content))
		cfg, _, err := Load(newProfileCmd(t, "--user-config-file", path), nil)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		_ = cfg.Validate(Choices{})
		cfg.Headers()
		cfg.ExtraInputs()
	})
}
