package capturetest

import (
	"strings"
	"testing"
)

func TestBodiesOfACapture(t *testing.T) {
	bodies := Bodies(t, "embeddings_b3")
	if len(bodies) != 2 || !strings.HasPrefix(bodies[0], `{"model":"mock-model","input":[`) {
		t.Errorf("embeddings_b3 bodies = %q", bodies)
	}
	if r := Requests(t, "video_generation"); len(r) < 3 || r[0].Method != "POST" || r[1].Method != "GET" {
		t.Errorf("video_generation requests = %+v, want the submit then polls", r)
	}
}
