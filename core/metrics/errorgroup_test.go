package metrics

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// TestErrorSummaryGroupsNetworkErrors: transport failures that differ only
// in the client's port are one row; HTTP errors keep their exact body.
func TestErrorSummaryGroupsNetworkErrors(t *testing.T) {
	_, res := run(t, streamingInfo(),
		errorRecord(10, 0, "ClientError", "read tcp 127.0.0.1:40001->127.0.0.1:8000: read: connection reset by peer"),
		errorRecord(20, 0, "ClientError", "read tcp 127.0.0.1:40002->127.0.0.1:8000: read: connection reset by peer"),
		errorRecord(30, 0, "ClientPayloadError", "read tcp 127.0.0.1:40003->127.0.0.1:8000: read: connection reset by peer"),
		errorRecord(40, 0, "ClientError", "read tcp 127.0.0.1:40004->127.0.0.1:8000: read: connection reset by peer"),
		errorRecord(50, 503, "Service Unavailable", "upstream 10.0.0.1:5000->10.0.0.2:80 down"),
		errorRecord(60, 503, "Service Unavailable", "upstream 10.0.0.1:5001->10.0.0.2:80 down"),
	)
	want := []sdk.ErrorCount{
		{ErrorDetails: sdk.ErrorDetails{Type: "ClientError", Message: "read tcp 127.0.0.1:8000: read: connection reset by peer"}, Count: 3},
		{ErrorDetails: sdk.ErrorDetails{Type: "ClientPayloadError", Message: "read tcp 127.0.0.1:8000: read: connection reset by peer"}, Count: 1},
		{ErrorDetails: sdk.ErrorDetails{Code: 503, Type: "Service Unavailable", Message: "upstream 10.0.0.1:5000->10.0.0.2:80 down"}, Count: 1},
		{ErrorDetails: sdk.ErrorDetails{Code: 503, Type: "Service Unavailable", Message: "upstream 10.0.0.1:5001->10.0.0.2:80 down"}, Count: 1},
	}
	if !slices.Equal(res.ErrorSummary, want) {
		t.Errorf("ErrorSummary = %+v\nwant %+v", res.ErrorSummary, want)
	}
}
