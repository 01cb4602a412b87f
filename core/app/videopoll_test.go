package app

import (
	"strings"
	"testing"
	"time"
)

// AIPERF_HTTP_VIDEO_POLL_INTERVAL: seconds, 0.001 to 10, 0.1 by default.
func TestVideoPollInterval(t *testing.T) {
	for _, c := range []struct {
		env  string
		want time.Duration
		err  bool
	}{
		{"", 100 * time.Millisecond, false},
		{"0.25", 250 * time.Millisecond, false},
		{" 2 ", 2 * time.Second, false},
		{"0.0001", 0, true},
		{"11", 0, true},
		{"fast", 0, true},
	} {
		got, err := videoPollInterval(c.env)
		if c.err {
			if err == nil || !strings.Contains(err.Error(), EnvVideoPollInterval) {
				t.Errorf("%q: err %v, want one naming %s", c.env, err, EnvVideoPollInterval)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %v, %v; want %v", c.env, got, err, c.want)
		}
	}
}
