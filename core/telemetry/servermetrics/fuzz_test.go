package servermetrics

import (
	"bytes"
	"testing"
)

// FuzzParseAndStore feeds two pages through Parse and, where they parse,
// into a store as three scrapes (first, second, second again: a duplicate)
// and reads the stats back: no bad page may crash a run.
func FuzzParseAndStore(f *testing.F) {
	f.Add(page(10, 1, [4]float64{2, 3, 4, 4}, 1.2), page(22, 2, [4]float64{3, 8, 10, 12}, 8.5))
	f.Add([]byte("# TYPE x counter\nx_total 1\n# EOF\n"), []byte("# TYPE x counter\nx_total NaN\n"))
	f.Add([]byte("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"1.0\"} 3\nh_sum 1\nh_count 3\n"),
		[]byte("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_bucket{le=\"0.5\"} 9\nh_count 1\n"))
	f.Add([]byte("# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 3\ng{a=\"\\\"\"} -Inf\n"), []byte("<html>not metrics</html>\n"))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		s := NewStore("http://h:1/metrics")
		for i, body := range [][]byte{first, second, second} {
			fams, err := Parse(body)
			if err != nil {
				if fams != nil {
					t.Fatalf("families %v with error %v", fams, err)
				}
				continue
			}
			s.Add(int64(i+1)*1e9, 1e6, body, fams)
		}
		if n := len(s.Records()); bytes.Equal(first, second) && n > 1 {
			t.Fatalf("%d records from one page scraped three times", n)
		}
		for _, w := range []Window{{StartNs: 0, EndNs: 4e9}, {StartNs: 15e8, EndNs: 25e8}} {
			s.InfoIn(w)
			s.MetricsSliced(w, 0.5)
		}
		s.Metrics(Window{StartNs: 0, EndNs: 4e9})
	})
}
