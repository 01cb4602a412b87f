package scrapeurl

import (
	"strings"
	"testing"
	"time"
)

func TestNormalizeCheckDisplay(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:9400":                 "http://localhost:9400/metrics",
		"http://node1:9401/metrics":      "http://node1:9401/metrics",
		"https://gw/prefix/":             "https://gw/prefix/metrics",
		" node2:8000/metrics ":           "http://node2:8000/metrics",
		"http://u:secret@h:9400/metrics": "http://u:secret@h:9400/metrics",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Display("http://u:secret@h:9400/metrics"); got != "http://h:9400/metrics" {
		t.Errorf("Display kept credentials: %q", got)
	}
	if got := Display("http://u:secret@h:9400/metrics?token=secret&job=x"); got != "http://h:9400/metrics?token=<redacted>&job=x" {
		t.Errorf("Display kept a query credential: %q", got)
	}
	c := Config{URL: "u:pw@h:1"}
	if err := c.Check("x.y", "e"); err != nil || c.URL != "http://u:pw@h:1/metrics" {
		t.Errorf("Check: %v, URL %q", err, c.URL)
	}
	for _, bad := range []Config{{}, {URL: "ftp://h/metrics"}, {URL: "h:1", TimeoutMs: -1}} {
		err := bad.Check("gpu_telemetry_collector.dcgm", "http://localhost:9400/metrics")
		if err == nil || !strings.HasPrefix(err.Error(), "gpu_telemetry_collector.dcgm: setting ") {
			t.Errorf("Check(%+v) = %v", bad, err)
		}
	}
	if cl := (Config{TimeoutMs: 250}).Client(5 * time.Second); cl.Timeout != 250*time.Millisecond {
		t.Errorf("client timeout %v", cl.Timeout)
	}
	if cl := (Config{}).Client(5 * time.Second); cl.Timeout != 5*time.Second {
		t.Errorf("default client timeout %v", cl.Timeout)
	}
}
