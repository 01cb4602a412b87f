package servermetrics

import (
	"math"
	"sort"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// BoundaryGraceNs is how long after a phase ends its boundary scrape (the
// one the sampler takes when told the phase ended) may land and still
// count in that phase, as AIPerf extends the warmup window to its
// end-of-warmup scrape.
const BoundaryGraceNs = int64(1e9)

// Build computes the results: profiling over [profiling.StartNs,
// max(profiling.EndNs, final scrape)] (the final scrape counts even when it
// repeats the one before, as in AIPerf), warmup (nil for none) over its window extended to its boundary
// scrape. configured lists every source, stores the ones that answered.
func Build(stores []*Store, configured []string, profiling Window, warmup *Window, formats []string, opts ...Option) *sdk.ServerMetricsResults {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	res := &sdk.ServerMetricsResults{
		EndpointsConfigured: append([]string{}, configured...),
		StartNs:             profiling.StartNs, EndNs: profiling.EndNs,
		Formats: append([]string(nil), formats...),
	}
	ordered := append([]*Store(nil), stores...)
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].URL < ordered[j].URL })
	var warmEnd int64
	if warmup != nil {
		warmEnd = warmup.EndNs
		for _, s := range ordered {
			if t, ok := s.firstFetchAfter(warmup.EndNs); ok && t-warmup.EndNs <= BoundaryGraceNs && t > warmEnd {
				warmEnd = t
			}
		}
		res.WarmupStartNs, res.WarmupEndNs = warmup.StartNs, warmEnd
	}
	res.EndpointsSuccessful = []string{}
	for _, s := range ordered {
		if len(s.fetchTs) == 0 {
			continue
		}
		res.EndpointsSuccessful = append(res.EndpointsSuccessful, s.URL)
		w := profiling
		w.EndNs = max(w.EndNs, s.lastFetchNs())
		ep := sdk.ServerMetricsEndpoint{URL: s.URL, Info: s.Info(), Metrics: s.MetricsSliced(w, o.sliceSec), Scrapes: s.Records()}
		// The profiling phase's own file counts the final scrape too.
		ep.ProfilingInfo = s.InfoIn(Window{w.StartNs, max(w.EndNs, s.lastFetchNs())})
		if warmup != nil && warmup.StartNs < warmEnd {
			ep.WarmupMetrics = s.MetricsSliced(Window{warmup.StartNs, warmEnd}, o.sliceSec)
			ep.WarmupInfo = s.InfoIn(Window{warmup.StartNs, warmEnd})
		}
		res.Endpoints = append(res.Endpoints, ep)
	}
	return res
}

// Option tunes Build.
type Option func(*options)

type options struct{ sliceSec float64 }

// WithSliceDuration computes every series' timeslices of sec seconds
// (--slice-duration), in both phases as AIPerf does; 0 computes none.
func WithSliceDuration(sec float64) Option {
	return func(o *options) {
		if sec > 0 && !math.IsInf(sec, 0) {
			o.sliceSec = sec
		}
	}
}

func (s *Store) lastFetchNs() int64 {
	if len(s.fetchTs) == 0 {
		return 0
	}
	return s.fetchTs[len(s.fetchTs)-1]
}

func (s *Store) firstFetchAfter(ns int64) (int64, bool) {
	i := sort.Search(len(s.fetchTs), func(i int) bool { return s.fetchTs[i] >= ns })
	if i == len(s.fetchTs) {
		return 0, false
	}
	return s.fetchTs[i], true
}
