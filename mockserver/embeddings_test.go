package mockserver

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

type wireEmbeddings struct {
	Object string `json:"object"`
	Data   []struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// vector returns item i's embedding, decoding the base64 form.
func (e wireEmbeddings) vector(t *testing.T, i int) []float64 {
	t.Helper()
	switch v := e.Data[i].Embedding.(type) {
	case []any:
		out := make([]float64, len(v))
		for j, x := range v {
			// The server writes float32 values; compare at that precision.
			out[j] = float64(float32(x.(float64)))
		}
		return out
	case string:
		raw, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(raw)%4 != 0 {
			t.Fatalf("base64 embedding %q: %v", v, err)
		}
		out := make([]float64, len(raw)/4)
		for j := range out {
			out[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
		}
		return out
	}
	t.Fatalf("embedding %d has type %T", i, e.Data[i].Embedding)
	return nil
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func TestEmbeddingsShapesAndUsage(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	a, b := " I think thou art enamoured Upon his", " imputation of his wickedness by your"
	cases := []struct {
		name   string
		body   string
		items  int
		texts  []string // the texts the usage counts
		tokens int      // plus these token-id inputs
		dim    int
	}{
		{"string input", `{"model":"m","input":"` + a + `"}`, 1, []string{a}, 0, DefaultEmbeddingDim},
		{"list input (AIPerf embeddings -b 3)", `{"model":"m","input":["` + a + `","` + b + `","x"],"encoding_format":"float"}`, 3, []string{a, b, "x"}, 0, DefaultEmbeddingDim},
		{"token ids", `{"model":"m","input":[1,2,3,4]}`, 1, nil, 4, DefaultEmbeddingDim},
		{"token-id lists", `{"model":"m","input":[[1,2],[3,4,5]]}`, 2, nil, 5, DefaultEmbeddingDim},
		{"chat messages (chat_embeddings)", `{"messages":[{"role":"user","content":[{"type":"text","text":"` + a + `"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}],"model":"m","stream":false}`, 1, []string{a}, 0, DefaultEmbeddingDim},
		{"dimensions", `{"model":"m","input":["` + a + `"],"dimensions":5}`, 1, []string{a}, 0, 5},
		{"base64", `{"model":"m","input":["` + a + `","` + b + `"],"encoding_format":"base64"}`, 2, []string{a, b}, 0, DefaultEmbeddingDim},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e wireEmbeddings
			postOK(t, base+"/v1/embeddings", tc.body, &e)
			if e.Object != "list" || e.Model != "m" || len(e.Data) != tc.items {
				t.Fatalf("object %q model %q, %d items; want list, m, %d", e.Object, e.Model, len(e.Data), tc.items)
			}
			for i, d := range e.Data {
				if d.Object != "embedding" || d.Index != i {
					t.Fatalf("item %d: object %q index %d", i, d.Object, d.Index)
				}
				v := e.vector(t, i)
				if len(v) != tc.dim {
					t.Fatalf("item %d has %d dimensions, want %d", i, len(v), tc.dim)
				}
				if n := norm(v); math.Abs(n-1) > 1e-3 {
					t.Fatalf("item %d has norm %v, want a unit vector", i, n)
				}
			}
			wantTokens := tc.tokens
			for _, s := range tc.texts {
				wantTokens += countTokens(s)
			}
			if e.Usage.PromptTokens != wantTokens || e.Usage.TotalTokens != wantTokens {
				t.Fatalf("usage %+v, want prompt and total %d", e.Usage, wantTokens)
			}
		})
	}
}

// The same text embeds to the same vector wherever it appears and in every
// server; different texts differ; base64 carries the float vector exactly.
func TestEmbeddingsDeterministic(t *testing.T) {
	s1 := startServer(t, Config{Fast: true, RandomSeed: 9})
	s2 := startServer(t, Config{Fast: true, RandomSeed: 9})
	body := `{"model":"m","input":["alpha","beta","alpha"]}`
	b1 := postOK(t, s1+"/v1/embeddings", body, nil)
	b2 := postOK(t, s2+"/v1/embeddings", body, nil)
	if string(b1) != string(b2) {
		t.Fatalf("two servers answered differently:\n%s\n%s", b1, b2)
	}
	var e wireEmbeddings
	strictJSON(t, string(b1), &e)
	if !slices.Equal(e.vector(t, 0), e.vector(t, 2)) {
		t.Fatal("the same text embedded to different vectors")
	}
	if slices.Equal(e.vector(t, 0), e.vector(t, 1)) {
		t.Fatal("different texts embedded to the same vector")
	}
	var single, b64 wireEmbeddings
	postOK(t, s1+"/v1/embeddings", `{"model":"m","input":"beta"}`, &single)
	postOK(t, s1+"/v1/embeddings", `{"model":"m","input":"beta","encoding_format":"base64"}`, &b64)
	if !slices.Equal(single.vector(t, 0), e.vector(t, 1)) || !slices.Equal(b64.vector(t, 0), e.vector(t, 1)) {
		t.Fatal("a text's vector depends on its batch or its encoding")
	}
}

func TestEmbeddingDimConfig(t *testing.T) {
	base := startServer(t, Config{Fast: true, EmbeddingDim: 3})
	var e wireEmbeddings
	postOK(t, base+"/v1/embeddings", `{"model":"m","input":"x"}`, &e)
	if got := len(e.vector(t, 0)); got != 3 {
		t.Fatalf("%d dimensions, want the configured 3", got)
	}
	postOK(t, base+"/v1/embeddings", `{"model":"m","input":"x","dimensions":7}`, &e)
	if got := len(e.vector(t, 0)); got != 7 {
		t.Fatalf("%d dimensions, want the requested 7", got)
	}
	if _, err := New(Config{EmbeddingDim: -1}); err == nil || !strings.Contains(err.Error(), "embedding dimension") {
		t.Fatalf("negative EmbeddingDim: err = %v", err)
	}
}

func TestEmbeddingsBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ body, wantMsg string }{
		{`{"model":"m","input":`, "invalid JSON body"},
		{`{"input":"x"}`, `"model"`},
		{`{"model":"m"}`, `"input"`},
		{`{"model":"m","input":null}`, `"input"`},
		{`{"model":"m","input":[]}`, "empty array"},
		{`{"model":"m","input":["a",1]}`, `"input" must be`},
		{`{"model":"m","input":{"a":1}}`, `"input" must be`},
		{`{"model":"m","input":"x","messages":[{"role":"user","content":"y"}]}`, "not both"},
		{`{"model":"m","messages":[]}`, `"messages"`},
		{`{"model":"m","input":"x","dimensions":0}`, `"dimensions"`},
		{`{"model":"m","input":"x","encoding_format":"int8"}`, `"encoding_format"`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+"/v1/embeddings", tc.body), 400)
			if e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
