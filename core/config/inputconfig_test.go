package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureFlags are the flags every AIPerf 0.13 reference run used
// (testdata/aiperf013/README.md), with its tokenizer directory.
var fixtureFlags = []string{"--model", "mock-model", "--url", "http://127.0.0.1:18123", "--tokenizer", "/tmp/qwen3tok",
	"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true",
	"--random-seed", "1", "--ui-type", "none"}

// fixtureInputConfig reads input_config from an AIPerf 0.13 reference file,
// numbers kept as written (64.0 stays a float, 8 an int).
func fixtureInputConfig(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "aiperf013", file))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	ic, ok := doc["input_config"].(map[string]any)
	if !ok {
		t.Fatalf("%s has no input_config", file)
	}
	return ic
}

// sameJSON compares a value we build with one decoded from AIPerf's file:
// the same keys at every level, the same values, and the same number kinds
// (an AIPerf float must be a float64 here, an AIPerf int an int).
func sameJSON(path string, got, want any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %T, want an object", path, got)}
		}
		var diffs []string
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			diffs = append(diffs, sameJSON(path+"."+k, gv, wv)...)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: not in AIPerf's (%v)", path, k, g[k]))
			}
		}
		return diffs
	case []any:
		g := reflect.ValueOf(got)
		if g.Kind() != reflect.Slice || g.Len() != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want %d elements", path, got, len(w))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, sameJSON(fmt.Sprintf("%s[%d]", path, i), g.Index(i).Interface(), w[i])...)
		}
		return diffs
	case json.Number:
		isFloat := strings.ContainsAny(string(w), ".eE")
		wf, _ := w.Float64()
		switch g := got.(type) {
		case float64:
			if !isFloat || g != wf {
				return []string{fmt.Sprintf("%s: got float %v, want %s", path, g, w)}
			}
		case int, int64:
			if isFloat || fmt.Sprint(g) != string(w) {
				return []string{fmt.Sprintf("%s: got int %v, want %s", path, g, w)}
			}
		default:
			return []string{fmt.Sprintf("%s: got %T %v, want %s", path, got, got, w)}
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return []string{fmt.Sprintf("%s: got %#v, want %#v", path, got, want)}
	}
	return nil
}

// The configuration of each reference run matches AIPerf 0.13's
// input_config key for key, value for value, number kind for number kind.
func TestInputConfigMatchesAIPerf(t *testing.T) {
	pinTerminal(t, false)
	fromFile := func(file string) func(t *testing.T) map[string]any {
		return func(t *testing.T) map[string]any { return fixtureInputConfig(t, file) }
	}
	tests := []struct {
		name  string
		flags []string
		want  func(t *testing.T) map[string]any
		// edit adapts the expectation to what we cannot reproduce.
		edit func(map[string]any)
	}{
		{"a_chat_stream", []string{"--endpoint-type", "chat", "--streaming"},
			fromFile("a_chat_stream/profile_export_aiperf.json"), nil},
		{"b_chat_nostream", []string{"--endpoint-type", "chat"},
			fromFile("b_chat_nostream/profile_export_aiperf.json"), nil},
		{"e_chat_goodput_slices", []string{"--endpoint-type", "chat", "--streaming", "--goodput", "time_to_first_token:100"},
			fromFile("e_chat_goodput_slices/profile_export_aiperf_timeslices.json"),
			// --slice-duration does not exist here yet.
			func(m map[string]any) { delete(m["artifacts"].(map[string]any), "slice_duration") }},
		{"g_chat_warmup", []string{"--endpoint-type", "chat", "--streaming", "--warmup-request-count", "2"},
			fromFile("g_chat_warmup/profile_export_aiperf.trimmed.json"), nil},
		// d and h: the variations docs/GAPS list, applied to a.
		{"d_chat_multiturn", []string{"--endpoint-type", "chat", "--streaming", "--conversation-num", "2", "--conversation-turn-mean", "3"},
			fromFile("a_chat_stream/profile_export_aiperf.json"), func(m map[string]any) {
				ds := m["datasets"].([]any)[0].(map[string]any)
				ds["entries"] = json.Number("2")
				ds["turns"] = map[string]any{"mean": json.Number("3.0"), "stddev": json.Number("0.0")}
				m["phases"].([]any)[0].(map[string]any)["sessions"] = json.Number("2")
			}},
		{"h_chat_errors_raw", []string{"--endpoint-type", "chat", "--streaming", "--api-key", "sk-test-secret", "--export-level", "raw"},
			fromFile("a_chat_stream/profile_export_aiperf.json"), func(m map[string]any) {
				m["endpoint"].(map[string]any)["api_key"] = Redacted
				a := m["artifacts"].(map[string]any)
				a["records"] = []any{"jsonl"}
				a["raw"] = true
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want(t)
			if tc.edit != nil {
				tc.edit(want)
			}
			dir := want["artifacts"].(map[string]any)["dir"].(string)
			cfg, _ := load(t, nil, append(append(append([]string(nil), fixtureFlags...), tc.flags...), "--artifact-dir", dir)...)
			got := cfg.InputConfig()
			for _, d := range sameJSON("input_config", got, want) {
				t.Error(d)
			}
			if b, _ := json.Marshal(got); bytes.Contains(b, []byte("sk-test-secret")) {
				t.Errorf("the api key leaks: %s", b)
			}
		})
	}
}

const secret2 = "sk-SECRET-0987654321"

func TestInputConfigHidesEverySecret(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, []string{"AIPERF_RANDOM_SEED=7"},
		"-m", "org/m", "--api-key", secret2,
		"-H", "Authorization:Bearer "+secret2,
		"-H", "X-Api-Key:"+secret2,
		"-H", `{"Cookie": "sid=`+secret2+`", "X-Team": "perf"}`,
		"-H", "X-Auth-Token:"+secret2,
		"--extra-inputs", "temperature:0.7",
		"--extra-inputs", `{"api_key": "`+secret2+`", "nested": {"client_secret": "`+secret2+`", "k": 1}}`,
		"--url", "http://user:"+secret2+"@host:8000/?token="+secret2,
		"--plugin-config", "endpoint.acme.api_key="+secret2,
		"--concurrency", "4",
		"--custom-endpoint", "/v1/chat/completions?model=m&api-key="+secret2+"&sig="+secret2,
	)
	m := cfg.InputConfig()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret2) {
		t.Fatalf("InputConfig() leaks the secret: %s", b)
	}
	ep := m["endpoint"].(map[string]any)
	want := map[string]any{
		"api_key": Redacted,
		"headers": map[string]any{
			"Authorization": Redacted, "X-Api-Key": Redacted, "Cookie": Redacted,
			"X-Team": "perf", "X-Auth-Token": Redacted,
		},
		"urls": []any{"http://" + Redacted + "@host:8000/?token=" + Redacted},
		"path": "/v1/chat/completions?model=m&api-key=" + Redacted + "&sig=" + Redacted,
	}
	for k, v := range want {
		if !reflect.DeepEqual(ep[k], v) {
			t.Errorf("endpoint[%q] = %#v, want %#v", k, ep[k], v)
		}
	}
	extra := ep["extra"].(map[string]any)
	if extra["api_key"] != Redacted || extra["nested"].(map[string]any)["client_secret"] != Redacted ||
		extra["temperature"] != 0.7 {
		t.Errorf("endpoint.extra = %#v", extra)
	}
	if got := m["datasets"].([]any)[0].(map[string]any)["random_seed"]; got != int64(7) {
		t.Errorf("random_seed = %#v (from the environment)", got)
	}
	// The real values stay available to the run itself.
	if cfg.Headers()["X-Api-Key"] != secret2 || cfg.APIKey != secret2 {
		t.Error("redaction mutated the config")
	}
}

// Defaults are left out, as in AIPerf's dump (exclude_unset).
func TestInputConfigOmitsDefaults(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, nil, "-m", "m")
	m := cfg.InputConfig()
	for _, k := range []string{"slos", "tokenizer", "logging", inputConfigExtension} {
		if v, ok := m[k]; ok {
			t.Errorf("%s = %#v for a default run", k, v)
		}
	}
	ep := m["endpoint"].(map[string]any)
	if got := strings.Join(sortedKeys(ep), ","); got != "type,urls" {
		t.Errorf("endpoint keys %s, want type,urls", got)
	}
	ds := m["datasets"].([]any)[0].(map[string]any)
	if got := strings.Join(sortedKeys(ds), ","); got != "name,prompts,type" {
		t.Errorf("dataset keys %s (no entries without a count flag, as AIPerf)", got)
	}
	if isl := ds["prompts"].(map[string]any)["isl"]; !reflect.DeepEqual(isl, map[string]any{"mean": 550.0}) {
		t.Errorf("prompts.isl = %#v, want AIPerf's default mean 550.0", isl)
	}
	ph := m["phases"].([]any)
	if len(ph) != 1 || !reflect.DeepEqual(ph[0], map[string]any{"name": "profiling", "kind": "profiling", "type": "concurrency"}) {
		t.Errorf("phases = %#v", ph)
	}
	if a := m["artifacts"]; !reflect.DeepEqual(a, map[string]any{"auto_plot": false, "plot_required": false}) {
		t.Errorf("artifacts = %#v", a)
	}
	if r := m["runtime"]; !reflect.DeepEqual(r, map[string]any{"ui": "none"}) {
		t.Errorf("runtime = %#v", r)
	}
}

// Load settings land on the phases as AIPerf's converter puts them; an
// infinite grace period is nil (null in the file).
func TestInputConfigPhases(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, nil, "-m", "m", "--request-rate", "20", "--vllm-burstiness", "2", "--benchmark-duration", "10",
		"--benchmark-grace-period", "inf", "--warmup-duration", "3", "--warmup-grace-period", "inf", "--num-sessions", "4",
		"--request-cancellation-rate", "5", "--request-cancellation-delay", "0.5", "--connection-reuse-strategy", "never",
		"--request-rate-ramp-duration", "2", "--concurrency-ramp-duration", "1", "--ramp-type", "exponential", "-v")
	m := cfg.InputConfig()
	phases := m["phases"].([]any)
	if len(phases) != 2 {
		t.Fatalf("phases = %#v", phases)
	}
	wantWarmup := map[string]any{"name": "warmup", "kind": "warmup", "exclude_from_results": true, "duration": 3.0,
		"rate": 20.0, "type": "gamma", "smoothness": 2.0, "rate_ramp": map[string]any{"duration": 2.0},
		"concurrency_ramp": map[string]any{"duration": 1.0}, "grace_period": nil}
	if !reflect.DeepEqual(phases[0], wantWarmup) {
		t.Errorf("warmup\n got %#v\nwant %#v", phases[0], wantWarmup)
	}
	wantProfiling := map[string]any{"name": "profiling", "kind": "profiling", "type": "gamma", "duration": 10.0,
		"grace_period": nil, "sessions": 4, "concurrency_ramp": map[string]any{"duration": 1.0},
		"cancellation": map[string]any{"rate": 5.0, "delay": 0.5}, "rate": 20.0,
		"rate_ramp": map[string]any{"duration": 2.0}, "smoothness": 2.0}
	if !reflect.DeepEqual(phases[1], wantProfiling) {
		t.Errorf("profiling\n got %#v\nwant %#v", phases[1], wantProfiling)
	}
	if got := m["endpoint"].(map[string]any)["connection_reuse"]; got != "never" {
		t.Errorf("connection_reuse = %#v", got)
	}
	if got := m["logging"]; !reflect.DeepEqual(got, map[string]any{"level": "DEBUG"}) {
		t.Errorf("logging = %#v", got)
	}
	if got := m[inputConfigExtension]; !reflect.DeepEqual(got, map[string]any{"ramp_type": "exponential"}) {
		t.Errorf("%s = %#v", inputConfigExtension, got)
	}
	// The default grace of a duration run is AIPerf's 30 s.
	cfg, _ = load(t, nil, "-m", "m", "--benchmark-duration", "5", "--concurrency", "3")
	p := cfg.InputConfig()["phases"].([]any)[0].(map[string]any)
	if p["grace_period"] != 30.0 || p["duration"] != 5.0 || p["concurrency"] != 3 {
		t.Errorf("duration phase = %#v", p)
	}
}

func TestInputConfigUserCentricAndFiles(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, nil, "-m", "m", "--user-centric-rate", "2.5", "--num-users", "3", "--conversation-turn-mean", "2",
		"--conversation-turn-delay-mean", "100", "--conversation-turn-delay-ratio", "0.5", "--num-dataset-entries", "7",
		"--dataset-sampling-strategy", "random", "--profile-export-prefix", "/x/run1.json", "--export-level", "summary",
		"--goodput", "request_latency:250 inter_token_latency:10")
	m := cfg.InputConfig()
	p := m["phases"].([]any)[0].(map[string]any)
	if p["type"] != "user_centric" || p["rate"] != 2.5 || p["users"] != 3 {
		t.Errorf("user-centric phase = %#v", p)
	}
	ds := m["datasets"].([]any)[0].(map[string]any)
	want := map[string]any{"name": "main", "type": "synthetic", "entries": 7, "sampling": "random",
		"prompts":          map[string]any{"isl": map[string]any{"mean": 550.0}},
		"turns":            map[string]any{"mean": 2.0, "stddev": 0.0},
		"turn_delay":       map[string]any{"mean": 100.0, "stddev": 0.0},
		"turn_delay_ratio": 0.5}
	if !reflect.DeepEqual(ds, want) {
		t.Errorf("dataset\n got %#v\nwant %#v", ds, want)
	}
	a := m["artifacts"].(map[string]any)
	if a["prefix"] != "run1" || a["records"] != false || a["raw"] != false {
		t.Errorf("artifacts = %#v", a)
	}
	if got := m["slos"]; !reflect.DeepEqual(got, map[string]any{"request_latency": 250.0, "inter_token_latency": 10.0}) {
		t.Errorf("slos = %#v", got)
	}

	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [1]}`+"\n"+
		`{"timestamp": 5, "input_length": 10, "output_length": 2, "hash_ids": [2]}`+"\n")
	cfg, _ = load(t, nil, "-m", "m", "--input-file", trace, "--custom-dataset-type", "mooncake_trace",
		"--fixed-schedule-start-offset", "1", "--isl-block-size", "16", "--osl", "4")
	m = cfg.InputConfig()
	ds = m["datasets"].([]any)[0].(map[string]any)
	want = map[string]any{"name": "main", "type": "file", "path": trace, "format": "mooncake_trace",
		"osl": map[string]any{"mean": 4.0}, "block_size": 16}
	if !reflect.DeepEqual(ds, want) {
		t.Errorf("file dataset\n got %#v\nwant %#v", ds, want)
	}
	p = m["phases"].([]any)[0].(map[string]any)
	if p["type"] != "fixed_schedule" || p["requests"] != 2 || p["start_offset"] != 1 || p["auto_offset"] != false {
		t.Errorf("fixed-schedule phase = %#v", p)
	}
}

// Every value is one the JSON exporters can write (no NaN, no Inf).
func TestInputConfigIsEncodable(t *testing.T) {
	pinTerminal(t, false)
	cfg, _ := load(t, nil, "-m", "m", "--benchmark-duration", "1", "--benchmark-grace-period", "inf")
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("non-finite value %v", x)
			}
		}
	}
	m := cfg.InputConfig()
	walk(m)
	if _, err := json.Marshal(m); err != nil {
		t.Fatal(err)
	}
}
