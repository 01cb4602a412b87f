package config

import (
	"strings"
	"testing"
)

const secret = "sk-SECRET-1234567890"

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
		{"url query", []string{"profile", "--url", "http://h?api-key=" + secret + "&x=1", "-u", "http://h2?sig=" + secret},
			"aiperf profile --url 'http://h?api-key=<redacted>&x=1' -u 'http://h2?sig=<redacted>'"},
		{"custom endpoint query", []string{"profile", "--custom-endpoint", "/v1/chat/completions?api-key=" + secret, "--endpoint=/v1/x?code=" + secret},
			"aiperf profile --custom-endpoint '/v1/chat/completions?api-key=<redacted>' --endpoint=/v1/x?code=<redacted>"},
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

// HeaderItemHasSecret decides which -H items a Kubernetes shard gets from
// a Secret rather than its command line.
func TestHeaderItemHasSecret(t *testing.T) {
	for item, want := range map[string]bool{
		"Authorization: Bearer x":           true,
		"X-Model: m":                        false,
		"Accept-Language:en-US,en":          false,
		"X-A:1,Ocp-Apim-Subscription-Key:k": true,
		`{"X-A":"1","x-auth-token":"t"}`:    true,
		`{"X-A":"1"}`:                       false,
		"x-session-token: s":                true,
		"no colon but an api_key inside":    true,
		"no colon and nothing else":         false,
	} {
		if got := HeaderItemHasSecret(item); got != want {
			t.Errorf("HeaderItemHasSecret(%q) = %v, want %v", item, got, want)
		}
	}
}
