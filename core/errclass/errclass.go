// Package errclass groups transport failures for the error summary. Go's
// network error strings carry the client's ephemeral port
// ("read tcp 127.0.0.1:54321->127.0.0.1:8000: read: connection reset by
// peer"), so identical failures would each make a summary row; AIPerf's
// aiohttp messages carry no such parts and group naturally.
package errclass

import (
	"regexp"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

var (
	// localAddr is the "local->" half of a Go socket error: the client side,
	// whose port differs per connection.
	localAddr = regexp.MustCompile(`(?:\[[0-9A-Fa-f:.%\w]*\]|[\w.\-]+):\d+->`)
	// streamID and lastStreamID are HTTP/2 per-request counters.
	streamID     = regexp.MustCompile(`stream ID \d+`)
	lastStreamID = regexp.MustCompile(`LastStreamID=\d+`)
	// duration is a Go time.Duration string ("1.5s", "250ms", "1m30s").
	duration = regexp.MustCompile(`\b(?:\d+(?:\.\d+)?(?:h|m|s|ms|us|µs|ns))+\b`)
	// uuid is a request or trace id.
	uuid = regexp.MustCompile(`\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b`)
)

// Normalize removes the parts of a network error message that differ
// between otherwise identical failures: the client's address and port,
// HTTP/2 stream ids, durations and UUIDs. The server's address is kept.
func Normalize(msg string) string {
	msg = localAddr.ReplaceAllString(msg, "")
	msg = streamID.ReplaceAllString(msg, "stream ID N")
	msg = lastStreamID.ReplaceAllString(msg, "LastStreamID=N")
	msg = duration.ReplaceAllString(msg, "<duration>")
	return uuid.ReplaceAllString(msg, "<id>")
}

// GroupKey is the error-summary key of e. Transport failures (no status
// code) group by type and normalised message; HTTP and SSE errors and
// cancellations carry a code and keep their exact message, as AIPerf groups
// them (a server's body is the server's to word).
func GroupKey(e sdk.ErrorDetails) sdk.ErrorDetails {
	e.RetryAfter = "" // a hint, not what failed
	if e.Code != 0 {
		return e
	}
	e.Message = Normalize(e.Message)
	return e
}
