package mocktest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

func TestStartServesHealth(t *testing.T) {
	url := Start(t, mockserver.Config{Fast: true})
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("url %q", url)
	}
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/health = %d", resp.StatusCode)
	}
}
