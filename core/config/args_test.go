package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestExpandMultiValueArgs(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"profile", "--extra-inputs", "a:1", "b:2", "--streaming"},
			[]string{"profile", "--extra-inputs", "a:1", "--extra-inputs", "b:2", "--streaming"}},
		{[]string{"profile", "-u", "h1", "h2", "-m", "x", "y"},
			[]string{"profile", "-u", "h1", "-u", "h2", "-m", "x", "-m", "y"}},
		{[]string{"profile", "--url=h1", "h2"}, []string{"profile", "--url=h1", "h2"}},
		{[]string{"profile", "--concurrency", "4", "stray"}, []string{"profile", "--concurrency", "4", "stray"}},
		{[]string{"profile", "-m", "-odd-name", "b"}, []string{"profile", "-m", "-odd-name", "-m", "b"}},
		{[]string{"profile", "-H", "A:1", "--", "B:2"}, []string{"profile", "-H", "A:1", "--", "B:2"}},
		{[]string{"profile", "--header"}, []string{"profile", "--header"}},
	}
	for _, tt := range tests {
		if got := ExpandMultiValueArgs(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExpandMultiValueArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandedArgsLoad(t *testing.T) {
	args := ExpandMultiValueArgs([]string{"--model", "a", "b", "--extra-inputs", "temperature:0.7", "top_p:0.9"})
	cfg, _ := load(t, nil, args...)
	if !reflect.DeepEqual(cfg.ModelNames, []string{"a", "b"}) {
		t.Errorf("ModelNames = %q", cfg.ModelNames)
	}
	if x := cfg.ExtraInputs(); x["temperature"] != 0.7 || x["top_p"] != 0.9 {
		t.Errorf("ExtraInputs = %v", x)
	}
}

func TestPositionalArgsRejected(t *testing.T) {
	_, _, err := Load(newProfileCmd(t, "-m", "m", "--extra-inputs", "a:1", "b:2"), nil)
	if err == nil || !strings.Contains(err.Error(), `unexpected argument "b:2"`) {
		t.Errorf("err = %v", err)
	}
}

// A bare --server-metrics turns server metrics on with the defaults (the
// --url's /metrics); it must not swallow the next flag as a URL.
func TestBareServerMetrics(t *testing.T) {
	tests := []struct {
		in       []string
		wantArgs []string
		wantURLs []string
	}{
		{[]string{"-u", "h1:8000", "--server-metrics", "--concurrency", "2"},
			[]string{"-u", "h1:8000", "--server-metrics=", "--concurrency", "2"},
			[]string{"http://h1:8000/metrics"}},
		{[]string{"-u", "h1:8000", "--server-metrics"},
			[]string{"-u", "h1:8000", "--server-metrics="},
			[]string{"http://h1:8000/metrics"}},
		{[]string{"-u", "h1:8000", "--server-metrics", "node1:8081", "node2:9090/metrics", "-m", "x"},
			[]string{"-u", "h1:8000", "--server-metrics", "node1:8081", "--server-metrics", "node2:9090/metrics", "-m", "x"},
			[]string{"http://h1:8000/metrics", "http://node1:8081/metrics", "http://node2:9090/metrics"}},
	}
	for _, tt := range tests {
		got := ExpandMultiValueArgs(tt.in)
		if !reflect.DeepEqual(got, tt.wantArgs) {
			t.Errorf("ExpandMultiValueArgs(%q) = %q, want %q", tt.in, got, tt.wantArgs)
			continue
		}
		args := got
		if !slices.Contains(args, "-m") {
			args = append(args, "-m", "x")
		}
		cfg, _ := load(t, nil, args...)
		if urls := cfg.ServerMetricsURLs(); !reflect.DeepEqual(urls, tt.wantURLs) {
			t.Errorf("%q: ServerMetricsURLs = %q, want %q", tt.in, urls, tt.wantURLs)
		}
		if tt.in[len(tt.in)-1] == "2" && (cfg.Concurrency == nil || *cfg.Concurrency != 2) {
			t.Errorf("%q: concurrency = %v, want 2", tt.in, cfg.Concurrency)
		}
		if errs := cfg.validateServerMetrics(); len(errs) > 0 {
			t.Errorf("%q: %v", tt.in, errs)
		}
	}
}
