package config

import (
	"reflect"
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
