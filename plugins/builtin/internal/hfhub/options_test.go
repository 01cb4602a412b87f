package hfhub

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOptionsFromEnvPrecedence(t *testing.T) {
	// A real HF_HOME with a stored login token, for the token-file rows.
	hfHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(hfHome, "token"), []byte("hf_from_file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenPath := filepath.Join(t.TempDir(), "custom-token")
	if err := os.WriteFile(tokenPath, []byte("  hf_custom_path  "), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		env  map[string]string
		want Options
	}{
		{"defaults under HOME", map[string]string{"HOME": "/h"},
			Options{CacheDir: "/h/.cache/huggingface/hub"}},
		{"XDG_CACHE_HOME", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x"},
			Options{CacheDir: "/x/huggingface/hub"}},
		{"HF_HOME beats XDG", map[string]string{"HOME": "/h", "XDG_CACHE_HOME": "/x", "HF_HOME": "/hf"},
			Options{CacheDir: "/hf/hub"}},
		{"HF_HUB_CACHE beats HF_HOME", map[string]string{"HF_HOME": "/hf", "HF_HUB_CACHE": "/c"},
			Options{CacheDir: "/c"}},
		{"HF_HUB_CACHE beats legacy HUGGINGFACE_HUB_CACHE", map[string]string{"HF_HUB_CACHE": "/c", "HUGGINGFACE_HUB_CACHE": "/legacy"},
			Options{CacheDir: "/c"}},
		{"legacy HUGGINGFACE_HUB_CACHE beats HF_HOME", map[string]string{"HF_HOME": "/hf", "HUGGINGFACE_HUB_CACHE": "/legacy"},
			Options{CacheDir: "/legacy"}},
		{"tilde expanded", map[string]string{"HOME": "/h", "HF_HUB_CACHE": "~/hubcache"},
			Options{CacheDir: "/h/hubcache"}},
		{"HF_TOKEN beats HUGGING_FACE_HUB_TOKEN", map[string]string{"HF_HOME": "/hf", "HF_TOKEN": "hf_a", "HUGGING_FACE_HUB_TOKEN": "hf_b"},
			Options{Token: "hf_a", CacheDir: "/hf/hub"}},
		{"HUGGING_FACE_HUB_TOKEN alone", map[string]string{"HF_HOME": "/hf", "HUGGING_FACE_HUB_TOKEN": "hf_b"},
			Options{Token: "hf_b", CacheDir: "/hf/hub"}},
		{"token file of HF_HOME", map[string]string{"HF_HOME": hfHome},
			Options{Token: "hf_from_file", CacheDir: filepath.Join(hfHome, "hub")}},
		{"env token beats token file", map[string]string{"HF_HOME": hfHome, "HF_TOKEN": "hf_env"},
			Options{Token: "hf_env", CacheDir: filepath.Join(hfHome, "hub")}},
		{"HF_TOKEN_PATH", map[string]string{"HF_HOME": hfHome, "HF_TOKEN_PATH": tokenPath},
			Options{Token: "hf_custom_path", CacheDir: filepath.Join(hfHome, "hub")}},
		{"HF_ENDPOINT trailing slash trimmed", map[string]string{"HF_HOME": "/hf", "HF_ENDPOINT": "https://hf-mirror.com/"},
			Options{Endpoint: "https://hf-mirror.com", CacheDir: "/hf/hub"}},
		{"offline 1", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "1"}, Options{Offline: true, CacheDir: "/hf/hub"}},
		{"offline TRUE", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "TRUE"}, Options{Offline: true, CacheDir: "/hf/hub"}},
		{"offline yes", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "yes"}, Options{Offline: true, CacheDir: "/hf/hub"}},
		{"offline On", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "On"}, Options{Offline: true, CacheDir: "/hf/hub"}},
		{"offline 0", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "0"}, Options{CacheDir: "/hf/hub"}},
		{"offline false", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "false"}, Options{CacheDir: "/hf/hub"}},
		{"offline no", map[string]string{"HF_HOME": "/hf", "HF_HUB_OFFLINE": "no"}, Options{CacheDir: "/hf/hub"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OptionsFromEnv(envOf(tt.env))
			if got.Token != tt.want.Token || got.CacheDir != tt.want.CacheDir ||
				got.Endpoint != tt.want.Endpoint || got.Offline != tt.want.Offline || got.Revision != "" {
				t.Errorf("OptionsFromEnv = %+v (token %q), want %+v (token %q)", got, got.Token, tt.want, tt.want.Token)
			}
		})
	}
}

func TestOptionsPrintWithoutToken(t *testing.T) {
	o := Options{Token: "hf_SECRET123", Revision: "main", CacheDir: "/c"}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{o, &o} {
			s := fmt.Sprintf(format, v)
			if strings.Contains(s, "hf_SECRET123") {
				t.Errorf("%s of %T leaks the token: %s", format, v, s)
			}
			if !strings.Contains(s, "<redacted>") || !strings.Contains(s, "/c") {
				t.Errorf("%s of %T = %s, want the redacted marker and the cache dir", format, v, s)
			}
		}
	}
}
