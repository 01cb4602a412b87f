package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const secret = "sk-SECRET-1234567890"

func TestRedactedHidesEverySecret(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, []string{"AIPERF_RANDOM_SEED=7"},
		"-m", "org/m", "--api-key", secret,
		"-H", "Authorization:Bearer "+secret,
		"-H", "X-Api-Key:"+secret,
		"-H", `{"Cookie": "sid=`+secret+`", "X-Team": "perf"}`,
		"-H", "X-Auth-Token:"+secret,
		"--extra-inputs", "temperature:0.7",
		"--extra-inputs", `{"api_key": "`+secret+`", "nested": {"client_secret": "`+secret+`", "k": 1}}`,
		"--url", "http://user:"+secret+"@host:8000/?token="+secret,
		"--concurrency", "4",
	)
	m := cfg.Redacted()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Fatalf("Redacted() leaks the secret: %s", b)
	}
	want := map[string]any{
		"api_key": Redacted,
		"header": map[string]any{
			"Authorization": Redacted, "X-Api-Key": Redacted, "Cookie": Redacted,
			"X-Team": "perf", "X-Auth-Token": Redacted,
		},
		"extra_inputs": map[string]any{
			"temperature": 0.7, "api_key": Redacted,
			"nested": map[string]any{"client_secret": Redacted, "k": 1},
		},
		"url":           []string{"http://" + Redacted + "@host:8000/?token=" + Redacted},
		"concurrency":   4,
		"request_count": 10,
		"random_seed":   int64(7),
		"model_names":   []string{"org/m"},
		"ui_type":       "none",
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("Redacted()[%q] = %#v, want %#v", k, m[k], v)
		}
	}
	// The real values stay available to the run itself.
	if cfg.Headers()["X-Api-Key"] != secret || cfg.APIKey != secret {
		t.Error("redaction mutated the config")
	}
}

func TestRedactedOmitsUnsetAndRoundTripsThroughFile(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--osl", "20")
	m := cfg.Redacted()
	for _, k := range []string{"api_key", "random_seed", "tokenizer", "warmup_request_count", "header", "extra_inputs", "goodput"} {
		if _, ok := m[k]; ok {
			t.Errorf("unset %q present in Redacted()", k)
		}
	}
	if m["prompt_output_tokens_mean"] != 20 {
		t.Errorf("osl = %v", m["prompt_output_tokens_mean"])
	}
	// Every key Redacted() emits must be accepted by the config file loader.
	for k := range m {
		if _, ok := optionByAnyKey[k]; !ok {
			t.Errorf("Redacted() key %q is not a config key", k)
		}
	}
}

func TestCLICommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plain", []string{"profile", "--model", "Qwen/Qwen3-0.6B", "--concurrency", "10", "--streaming"},
			"aiperf profile --model 'Qwen/Qwen3-0.6B' --concurrency 10 --streaming"},
		{"api key", []string{"profile", "-m", "m", "--api-key", secret},
			"aiperf profile -m 'm' --api-key '<redacted>'"},
		{"api key inline", []string{"profile", "--api-key=" + secret},
			"aiperf profile --api-key=<redacted>"},
		{"auth header one word", []string{"profile", "-H", "Authorization:Bearer " + secret, "-H", "X-Team:perf"},
			"aiperf profile -H 'Authorization:<redacted>' -H 'X-Team:perf'"},
		{"auth header split words", []string{"profile", "-H", "Authorization:", "Bearer", secret, "--streaming"},
			"aiperf profile -H 'Authorization:<redacted>' '<redacted>' '<redacted>' --streaming"},
		{"attached short header", []string{"profile", "-HX-Api-Key:" + secret},
			"aiperf profile -HX-Api-Key:<redacted>"},
		{"json header", []string{"profile", "--header", `{"Cookie":"` + secret + `","X-A":"1"}`},
			`aiperf profile --header '{"Cookie":"<redacted>","X-A":"1"}'`},
		{"url userinfo", []string{"profile", "--url", "https://u:" + secret + "@h", "http://h2"},
			"aiperf profile --url 'https://<redacted>@h' 'http://h2'"},
		{"extra inputs multi", []string{"profile", "--extra-inputs", "temperature:0.7", "api_key:" + secret},
			"aiperf profile --extra-inputs 'temperature:0.7' 'api_key:<redacted>'"},
		{"unknown secret flag", []string{"profile", "--hf-token", secret, "--other-auth-token=" + secret},
			"aiperf profile --hf-token '<redacted>' --other-auth-token=<redacted>"},
		{"plugin settings", []string{"profile", "--plugin-config", "endpoint.acme.api_key=" + secret, "--plugin-config=endpoint.acme.region=eu"},
			"aiperf profile --plugin-config 'endpoint.acme.api_key=<redacted>' --plugin-config=endpoint.acme.region=eu"},
		{"quote escaping", []string{"profile", "-m", "it's"}, `aiperf profile -m 'it'\''s'`},
		{"negative and verbose", []string{"profile", "--concurrency", "-1", "-vv"}, "aiperf profile --concurrency -1 -vv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &RunConfig{}
			got := c.CLICommand(tt.args)
			if got != tt.want {
				t.Errorf("CLICommand =\n  %s\nwant\n  %s", got, tt.want)
			}
			if strings.Contains(got, secret) {
				t.Errorf("secret leaked: %s", got)
			}
		})
	}
}

// The configured api key is scrubbed even where no rule would catch it.
func TestCLICommandScrubsKnownSecretsAnywhere(t *testing.T) {
	c := &RunConfig{APIKey: secret, Header: []string{"X-Weird-Auth:" + "zz" + secret}}
	got := c.CLICommand([]string{"profile", "--", "echo", secret, "zz" + secret})
	if strings.Contains(got, secret) {
		t.Errorf("secret leaked: %s", got)
	}
}
