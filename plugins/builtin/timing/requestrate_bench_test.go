package timing

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

// lagSender records, per credit, how late Send was entered against the
// schedule and how late the strategy stamped IssuedNs. It does no work.
type lagSender struct {
	send, issue []int64
}

func (l *lagSender) Send(_ context.Context, c sdk.Credit) {
	l.send[c.Index] = clock.Now() - c.ScheduledNs
	l.issue[c.Index] = c.IssuedNs - c.ScheduledNs
}

// BenchmarkSendLag runs a constant-rate phase of b.N credits at each rate
// with a no-op sender and reports the schedule lag (µs) and achieved rate.
// send-lag is scheduled → Send entered (goroutine start included);
// issue-lag is scheduled → IssuedNs.
func BenchmarkSendLag(b *testing.B) {
	for _, rate := range []float64{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("rate=%v", rate), func(b *testing.B) {
			l := &lagSender{send: make([]int64, b.N), issue: make([]int64, b.N)}
			plan := sdk.PhasePlan{RequestCount: b.N, Arrival: timingtest.ConstantArrival{}}
			start := clock.Now()
			b.ResetTimer()
			if err := requestRateWith(RequestRateConfig{Rate: rate}).Run(context.Background(), plan, l); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if b.N > 1 {
				// The first credit is due one gap after the start.
				b.ReportMetric(float64(b.N)/(float64(clock.Now()-start)/1e9), "req/s")
			}
			reportLagQuantiles(b, "send-lag", l.send)
			reportLagQuantiles(b, "issue-lag", l.issue)
		})
	}
}

func reportLagQuantiles(b *testing.B, name string, lags []int64) {
	sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
	us := func(q float64) float64 { return float64(lags[int(q*float64(len(lags)-1))]) / 1e3 }
	b.ReportMetric(us(0.5), name+"-p50-µs")
	b.ReportMetric(us(0.99), name+"-p99-µs")
	b.ReportMetric(us(1), name+"-max-µs")
}
