package completions

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A plain streaming request (no --use-server-token-count) asks for the usage
// chunk, as AIPerf 0.13 does, and the mock server answers with it: the
// record ends with the server's usage.
func TestStreamingUsageChunkFromMockServer(t *testing.T) {
	base := mocktest.Start(t, mockserver.Config{Fast: true})
	ep := New()
	body, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: true,
		ExtraInputs: map[string]any{"ignore_eos": true},
		Turn:        sdk.Turn{Texts: []string{"Shall I compare thee to a summer's day?"}, MaxTokens: intp(7)}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+Path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var usage *sdk.Usage
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		p, err := ep.ParseResponse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if p.Usage != nil {
			usage = p.Usage
		}
	}
	if usage == nil || usage.CompletionTokens == nil || *usage.CompletionTokens != 7 {
		t.Fatalf("usage = %+v, want a usage chunk with completion_tokens 7", usage)
	}
}
