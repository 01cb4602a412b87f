package engine

import (
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// defaultVideoPollInterval is AIPerf's AIPERF_HTTP_VIDEO_POLL_INTERVAL
// default (0.1 s).
const defaultVideoPollInterval = 100 * time.Millisecond

// requestShape is what the endpoint's metadata asks of every request:
// multipart/form-data instead of JSON (RequiresFormData) and the job flow
// of an asynchronous API (RequiresPolling). It is fixed for the run.
type requestShape struct {
	formData bool
	// poll is shared by every request (the transport only reads it); nil
	// for an ordinary API.
	poll *sdk.PollSpec
}

func newRequestShape(opts Options) requestShape {
	if opts.Endpoint == nil {
		return requestShape{}
	}
	meta := opts.Endpoint.Metadata()
	s := requestShape{formData: meta.RequiresFormData}
	if meta.RequiresPolling {
		interval := opts.VideoPollInterval
		if interval <= 0 {
			interval = defaultVideoPollInterval
		}
		s.poll = &sdk.PollSpec{Interval: interval, DownloadContent: opts.DownloadVideoContent}
	}
	return s
}

// apply sets the shape on one transport request.
func (s requestShape) apply(treq *sdk.TransportRequest) {
	treq.FormData, treq.Poll = s.formData, s.poll
}
