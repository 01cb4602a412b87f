package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// runCommand runs the aiperf subcommand name with args through the root
// command, as the binary would, and returns what it printed.
func runCommand(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	full := append([]string{name}, args...)
	root := newRootCmd(full)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(full)
	err := root.Execute()
	return out.String(), err
}
