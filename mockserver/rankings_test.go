package mockserver

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

const rankQuery = " I think thou art enamoured"

var rankPassages = []string{
	" imputation of his wickedness by your",
	" or is invented on me I am not only witty",
	" a tale Good faith it is such another Nan But",
	" seek to die And seeking death find life",
}

type wireNIMRankings struct {
	Rankings []struct {
		Index int     `json:"index"`
		Logit float64 `json:"logit"`
	} `json:"rankings"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

type wireTEIRanking struct {
	Index int     `json:"index"`
	Score float64 `json:"score"`
	Text  *string `json:"text"`
}

type wireCohereRerank struct {
	ID      string `json:"id"`
	Results []struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	} `json:"results"`
	Meta struct {
		APIVersion struct {
			Version string `json:"version"`
		} `json:"api_version"`
		BilledUnits struct {
			SearchUnits int `json:"search_units"`
		} `json:"billed_units"`
		Tokens struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"tokens"`
	} `json:"meta"`
}

func jsonList(items []string, wrap bool) string {
	parts := make([]string, len(items))
	for i, s := range items {
		b, _ := json.Marshal(s)
		parts[i] = string(b)
		if wrap {
			parts[i] = `{"text":` + parts[i] + `}`
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// The three APIs rank the same passages the same way: NIM's logits sorted
// best first, TEI and Cohere reporting their sigmoid, every passage once.
func TestRankingsShapesAgree(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	q, _ := json.Marshal(rankQuery)
	var nim wireNIMRankings
	postOK(t, base+"/v1/ranking", `{"model":"m","query":{"text":`+string(q)+`},"passages":`+jsonList(rankPassages, true)+`}`, &nim)
	var tei []wireTEIRanking
	postOK(t, base+"/rerank", `{"query":`+string(q)+`,"texts":`+jsonList(rankPassages, false)+`,"truncate":true}`, &tei)
	var co wireCohereRerank
	postOK(t, base+"/v2/rerank", `{"model":"m","query":`+string(q)+`,"documents":`+jsonList(rankPassages, false)+`}`, &co)

	n := len(rankPassages)
	if len(nim.Rankings) != n || len(tei) != n || len(co.Results) != n {
		t.Fatalf("result counts NIM %d TEI %d Cohere %d, want %d", len(nim.Rankings), len(tei), len(co.Results), n)
	}
	seen := map[int]bool{}
	for i, r := range nim.Rankings {
		seen[r.Index] = true
		if i > 0 && r.Logit > nim.Rankings[i-1].Logit {
			t.Fatalf("NIM rankings not sorted best first: %+v", nim.Rankings)
		}
		if r.Logit < -8 || r.Logit > 8 {
			t.Fatalf("logit %v outside [-8, 8]", r.Logit)
		}
		want := 1 / (1 + math.Exp(-r.Logit))
		if tei[i].Index != r.Index || math.Abs(tei[i].Score-want) > 1e-6 || tei[i].Text != nil {
			t.Fatalf("TEI result %d = %+v, want index %d score sigmoid(%v)=%v and no text", i, tei[i], r.Index, r.Logit, want)
		}
		if co.Results[i].Index != r.Index || math.Abs(co.Results[i].RelevanceScore-want) > 1e-6 {
			t.Fatalf("Cohere result %d = %+v, want index %d score %v", i, co.Results[i], r.Index, want)
		}
	}
	if len(seen) != n {
		t.Fatalf("indexes %v, want each of 0..%d once", seen, n-1)
	}
	// A cross-encoder reads every (query, passage) pair.
	want := n * countTokens(rankQuery)
	for _, p := range rankPassages {
		want += countTokens(p)
	}
	if nim.Usage.PromptTokens != want || nim.Usage.TotalTokens != want || co.Meta.Tokens.InputTokens != want {
		t.Fatalf("NIM usage %+v, Cohere tokens %+v; want %d prompt tokens", nim.Usage, co.Meta.Tokens, want)
	}
	if co.ID == "" || co.Meta.APIVersion.Version != "2" || co.Meta.BilledUnits.SearchUnits != 1 {
		t.Fatalf("Cohere id/meta %q %+v", co.ID, co.Meta)
	}
}

func TestRankingsOptions(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var all, top wireCohereRerank
	docs := jsonList(rankPassages, false)
	postOK(t, base+"/v2/rerank", `{"model":"m","query":"q","documents":`+docs+`}`, &all)
	postOK(t, base+"/v2/rerank", `{"model":"m","query":"q","documents":`+docs+`,"top_n":2}`, &top)
	if len(top.Results) != 2 || top.Results[0] != all.Results[0] || top.Results[1] != all.Results[1] {
		t.Fatalf("top_n 2 gave %+v, want the first two of %+v", top.Results, all.Results)
	}
	var tei []wireTEIRanking
	postOK(t, base+"/rerank", `{"query":"q","texts":`+docs+`,"return_text":true}`, &tei)
	for _, r := range tei {
		if r.Text == nil || *r.Text != rankPassages[r.Index] {
			t.Fatalf("return_text: result %+v does not carry passage %d", r, r.Index)
		}
	}
	// NIM accepts plain strings as well as {"text"} objects.
	var a, b wireNIMRankings
	postOK(t, base+"/v1/ranking", `{"model":"m","query":"q","passages":`+docs+`}`, &a)
	postOK(t, base+"/v1/ranking", `{"model":"m","query":{"text":"q"},"passages":`+jsonList(rankPassages, true)+`}`, &b)
	if a.Rankings[0] != b.Rankings[0] {
		t.Fatalf("string and object texts ranked differently: %+v vs %+v", a.Rankings, b.Rankings)
	}
}

// Scores come from the texts alone: the same request to two servers gives
// the same body, and a passage keeps its score when reordered.
func TestRankingsDeterministic(t *testing.T) {
	s1 := startServer(t, Config{Fast: true, RandomSeed: 4})
	s2 := startServer(t, Config{Fast: true, RandomSeed: 4})
	body := `{"model":"m","query":{"text":"q"},"passages":` + jsonList(rankPassages, true) + `}`
	b1, b2 := postOK(t, s1+"/v1/ranking", body, nil), postOK(t, s2+"/v1/ranking", body, nil)
	if string(b1) != string(b2) {
		t.Fatalf("two servers ranked differently:\n%s\n%s", b1, b2)
	}
	var fwd, rev wireNIMRankings
	strictJSON(t, string(b1), &fwd)
	reversed := make([]string, len(rankPassages))
	for i, p := range rankPassages {
		reversed[len(rankPassages)-1-i] = p
	}
	postOK(t, s1+"/v1/ranking", `{"model":"m","query":{"text":"q"},"passages":`+jsonList(reversed, true)+`}`, &rev)
	logits := func(r wireNIMRankings, flip bool) []float64 {
		out := make([]float64, len(r.Rankings))
		for _, x := range r.Rankings {
			i := x.Index
			if flip {
				i = len(out) - 1 - i
			}
			out[i] = x.Logit
		}
		return out
	}
	f, r := logits(fwd, false), logits(rev, true)
	for i := range f {
		if f[i] != r[i] {
			t.Fatalf("passage %d scored %v, then %v after reordering", i, f[i], r[i])
		}
	}
	if slices.Min(f) == slices.Max(f) {
		t.Fatalf("all passages scored %v: scores do not depend on the text", f[0])
	}
}

func TestRankingsBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ path, body, wantMsg string }{
		{"/v1/ranking", `{"model":"m","query":`, "invalid JSON body"},
		{"/v1/ranking", `{"query":{"text":"q"},"passages":[{"text":"p"}]}`, `"model"`},
		{"/v1/ranking", `{"model":"m","passages":[{"text":"p"}]}`, `"query"`},
		{"/v1/ranking", `{"model":"m","query":{"text":"q"}}`, `"passages"`},
		{"/v1/ranking", `{"model":"m","query":{"text":"q"},"passages":[{"txt":"p"}]}`, "passages[0]"},
		{"/rerank", `{"query":"q"}`, `"texts"`},
		{"/rerank", `{"query":5,"texts":["a"]}`, "query must be"},
		{"/v2/rerank", `{"model":"m","query":"q","documents":[]}`, `"documents"`},
		{"/v2/rerank", `{"model":"m","query":"q","documents":["a"],"top_n":0}`, `"top_n"`},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+tc.path, tc.body), 400)
			if !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
