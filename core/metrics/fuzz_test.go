package metrics

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseGoodput: --goodput parses into finite, non-negative SLOs, one
// per pair, and each SLO reads back from its canonical spelling.
func FuzzParseGoodput(f *testing.F) {
	for _, s := range []string{"time_to_first_token:200 inter_token_latency:20", "request_latency:250", "", "  ", "a:-1", "a:NaN",
		"a:1 a:2", "a:", ":5", "a:b:c", "a:1e400", "a:0x10", "a:1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slos, err := ParseGoodput(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "goodput: pair ") {
				t.Fatalf("error does not name the pair: %v", err)
			}
			return
		}
		if len(slos) != len(strings.Fields(s)) {
			t.Fatalf("%d SLOs from %d pairs", len(slos), len(strings.Fields(s)))
		}
		for tag, v := range slos {
			back, err := ParseGoodput(tag + ":" + strconv.FormatFloat(v, 'g', -1, 64))
			if err != nil || len(back) != 1 || back[tag] != v {
				t.Fatalf("%s:%v reads back as %v (%v)", tag, v, back, err)
			}
		}
	})
}
