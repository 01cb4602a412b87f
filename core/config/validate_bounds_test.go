package config

import (
	"strings"
	"testing"
)

// Issue 15: sizes past what one host can serve or build are rejected with
// the flag and the bound, not hang or run out of memory.
func TestValidateBoundsRejects(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"concurrency", []string{"--concurrency", "2000000000", "--benchmark-duration", "2"},
			"--concurrency must be <= 1000000 (got 2000000000): one host cannot hold more connections in flight (sockets, file descriptors, ports); split the load across machines"},
		{"concurrency one past", []string{"--concurrency", "1000001", "--benchmark-duration", "2"},
			"--concurrency must be <= 1000000 (got 1000001): one host cannot hold more connections in flight (sockets, file descriptors, ports); split the load across machines"},
		{"prefill concurrency", []string{"--prefill-concurrency", "2000000000", "--benchmark-duration", "2"},
			"--prefill-concurrency must be <= 1000000 (got 2000000000): one host cannot hold more connections in flight (sockets, file descriptors, ports); split the load across machines"},
		{"warmup concurrency", []string{"--warmup-concurrency", "1000001", "--warmup-request-count", "5"},
			"--warmup-concurrency must be <= 1000000 (got 1000001): one host cannot hold more connections in flight (sockets, file descriptors, ports); split the load across machines"},
		{"dataset entries", []string{"--num-dataset-entries", "2000000000"},
			"--num-dataset-entries must be <= 10000000 (got 2000000000): the dataset is built in memory up front; entries are reused across requests, so fewer suffice"},
		{"dataset prompt tokens", []string{"--num-dataset-entries", "2000000", "--isl", "550"},
			"--num-dataset-entries (2000000) times --prompt-input-tokens-mean (550) must be <= 1000000000 prompt tokens (got 1100000000): the dataset's prompts are built in memory up front"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, c.args...)...)
			err := cfg.Validate(testChoices)
			if err == nil {
				t.Fatalf("Validate succeeded, want %q", c.want)
			}
			lines := strings.Split(err.Error(), "\n")
			for _, l := range lines {
				if l == c.want {
					return
				}
			}
			t.Errorf("error lines %q\nwant line %q", lines, c.want)
		})
	}
}

// Values at the bounds are accepted.
func TestValidateBoundsAcceptsLimits(t *testing.T) {
	cases := [][]string{
		{"--concurrency", "1000000", "--benchmark-duration", "2"},
		{"--prefill-concurrency", "1000000", "--concurrency", "1000000", "--benchmark-duration", "2", "--streaming"},
		{"--num-dataset-entries", "10000000", "--isl", "100"},
		{"--num-dataset-entries", "1818181", "--isl", "550"},
	}
	for _, args := range cases {
		cfg, _ := load(t, nil, append([]string{"-m", "m"}, args...)...)
		if err := cfg.Validate(testChoices); err != nil {
			t.Errorf("%v: Validate = %v, want nil", args, err)
		}
	}
}
