package mooncaketrace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func writeFile(t testing.TB, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func opts() sdk.DatasetOptions {
	return sdk.DatasetOptions{RandomSeed: 42, Tokenizer: tiktoken.New()}
}

func load(t *testing.T, o sdk.DatasetOptions, lines ...string) []sdk.Conversation {
	t.Helper()
	return loadWith(t, New(), o, lines...)
}

func loadWith(t *testing.T, l *Loader, o sdk.DatasetOptions, lines ...string) []sdk.Conversation {
	t.Helper()
	convs, err := l.Load(context.Background(), writeFile(t, "trace.jsonl", lines...), o)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

// withBlockSize returns a loader whose block_size setting is bs.
func withBlockSize(bs int) *Loader {
	l := New()
	l.Config.BlockSize = bs
	return l
}

func testPrompts(t *testing.T, blockSize int) *prompts {
	t.Helper()
	tok := tiktoken.New()
	al, err := alignmentFor(tok)
	if err != nil {
		t.Fatal(err)
	}
	if !al.exact {
		t.Fatal("the builtin tokenizer should pass the alignment self-check")
	}
	return newPrompts(tok, al, blockSize, 7, func(msg string) { t.Errorf("unexpected warning: %s", msg) })
}

func TestHashIDBlocksAreReusedAndExact(t *testing.T) {
	tok := tiktoken.New()
	pb := testPrompts(t, 64)
	mustHashed := func(n int, ids ...int) string {
		t.Helper()
		p, err := pb.hashed(n, ids)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Count(p); got != n {
			t.Fatalf("hash_ids %v: prompt re-encodes to %d tokens, want input_length %d", ids, got, n)
		}
		return p
	}
	a := mustHashed(64*2+10, 1, 2, 3)
	b := mustHashed(64*2+64, 1, 2, 4)
	c := mustHashed(64+1, 1, 5)
	d := mustHashed(64, 2)

	t1, t2 := pb.blocks[1].full, pb.blocks[2].full
	for id, text := range map[int]string{1: t1, 2: t2} {
		if n := tok.Count(text); n != 64 {
			t.Errorf("block %d has %d tokens, want 64", id, n)
		}
	}
	if !strings.HasPrefix(a, t1+t2) || !strings.HasPrefix(b, t1+t2) {
		t.Error("prompts with hash ids [1 2 ...] must start with blocks 1 and 2 verbatim")
	}
	if !strings.HasPrefix(c, t1) || strings.HasPrefix(c, t1+t2) {
		t.Error("prompt [1 5] must start with block 1 and not continue with block 2")
	}
	if d != t2 {
		t.Error("a lone full block 2 must be exactly block 2's text")
	}
	if a[len(t1+t2):] == b[len(t1+t2):] {
		t.Error("different final hash ids must give different final blocks")
	}
	if again := mustHashed(64*2+10, 1, 2, 3); again != a {
		t.Error("the same request must give the same prompt")
	}

	// A block first used as a short final block and later in full: the
	// short text is a prefix of the full one (same corpus window).
	short := mustHashed(10, 9)
	long := mustHashed(64+5, 9, 10)
	if full := pb.blocks[9].full; !strings.HasPrefix(long, full) || !strings.HasPrefix(full, short) {
		t.Error("block 9 cut to 10 tokens must be a prefix of block 9 in full")
	}
}

func TestHashIDPromptsExactAtDefaultBlockSize(t *testing.T) {
	tok := tiktoken.New()
	pb := testPrompts(t, DefaultBlockSize)
	// Prefix trees of shared blocks, as in real traces, with assorted final
	// block sizes.
	for i := range 60 {
		ids := []int{i % 3, 100 + i%7, 1000 + i}
		n := 2*DefaultBlockSize + 1 + (i*97)%DefaultBlockSize
		p, err := pb.hashed(n, ids)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Count(p); got != n {
			t.Fatalf("line %d: %d tokens, want %d", i, got, n)
		}
	}
}

func TestFinalBlockMustFit(t *testing.T) {
	o := opts()
	cases := []struct {
		name, line, want string
	}{
		{"final block empty", `{"input_length": 128, "hash_ids": [1, 2, 3]}`, "leaves 0 tokens for the final block"},
		{"final block negative", `{"input_length": 10, "hash_ids": [1, 2, 3]}`, "leaves -118 tokens"},
	}
	for _, c := range cases {
		path := writeFile(t, "trace.jsonl", `{"input_length": 64, "hash_ids": [1]}`, c.line)
		_, err := withBlockSize(64).Load(context.Background(), path, o)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		for _, want := range []string{"trace.jsonl:2:", "hash_ids:", c.want} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, want)
			}
		}
	}
}

func TestDefaultAndOverriddenBlockSize(t *testing.T) {
	tok := tiktoken.New()
	convs := load(t, opts(), `{"input_length": 600, "hash_ids": [1, 2]}`)
	if n := tok.Count(convs[0].Turns[0].Texts[0]); n != 600 {
		t.Errorf("default block size: %d tokens, want 600", n)
	}
	// Prefix only (AIPerf 0.13): two full 512-token blocks and a fresh
	// 76-token tail.
	convs = load(t, opts(), `{"input_length": 1100, "hash_ids": [1, 2]}`)
	if n := tok.Count(convs[0].Turns[0].Texts[0]); n != 1100 {
		t.Errorf("prefix-only at block size 512: %d tokens, want 1100", n)
	}
	convs = loadWith(t, withBlockSize(16), opts(), `{"input_length": 40, "hash_ids": [1, 2, 3]}`)
	if n := tok.Count(convs[0].Turns[0].Texts[0]); n != 40 {
		t.Errorf("block size 16: %d tokens, want 40", n)
	}
	if _, err := withBlockSize(-1).Load(context.Background(), writeFile(t, "t.jsonl", `{"input_length": 4}`), opts()); err == nil || !strings.Contains(err.Error(), "block size -1") {
		t.Errorf("negative block size: err = %v", err)
	}
}

// The block size is the loader's own setting, decoded by the SDK's rule
// from the key the core sets from --isl-block-size.
func TestBlockSizeSetting(t *testing.T) {
	const label = "custom_dataset_loader.mooncake_trace"
	l := New()
	if err := sdk.ApplyConfig(l, label, []byte(`{"block_size": 16}`)); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	ref := loadWith(t, withBlockSize(16), opts(), `{"input_length": 40, "hash_ids": [1, 2, 3]}`)
	got := loadWith(t, l, opts(), `{"input_length": 40, "hash_ids": [1, 2, 3]}`)
	if got[0].Turns[0].Texts[0] != ref[0].Turns[0].Texts[0] {
		t.Error("block_size 16 from settings must give the prompt of Config{BlockSize: 16}")
	}

	if err := New().Validate(); err != nil {
		t.Errorf("no settings (DefaultBlockSize): %v", err)
	}
	neg := New()
	if err := sdk.ApplyConfig(neg, label, []byte(`{"block_size": -2}`)); err != nil {
		t.Fatal(err)
	}
	if err := neg.Validate(); err == nil || !strings.Contains(err.Error(), "block size -2") || !strings.Contains(err.Error(), "--isl-block-size") {
		t.Errorf("negative block_size: Validate() = %v, want it to name --isl-block-size", err)
	}
	err := sdk.ApplyConfig(New(), label, []byte(`{"blocksize": 16}`))
	if err == nil || err.Error() != `unknown setting "blocksize"` {
		t.Errorf("unknown key: err = %v, want it refused, naming the key (the host names the plugin)", err)
	}
	err = sdk.ApplyConfig(New(), label, []byte(`{"block_size": "big"}`))
	if err == nil || !strings.Contains(err.Error(), "block_size") {
		t.Errorf("non-integer block_size: err = %v", err)
	}
}

func TestRecordErrorsNameFileLineAndField(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"timestamp": 0}`, "no input: exactly one of input_length, text_input, messages or payload"},
		{`{"input_length": 5, "text_input": "hi"}`, "mutually exclusive"},
		{`{"payload": {}}`, "payload: must be a non-empty object"},
		{`{"payload": [1]}`, "payload: must be a JSON object"},
		{`{"messages": []}`, "messages: must be a non-empty list"},
		{`{"messages": [{"role": "system", "content": "s"}, {"content": "x"}]}`, `messages[1]: has no "role" key`},
		{`{"messages": ["hi"]}`, `messages[0]: must be an object`},
		{`{"messages": [{"role": "user", "content": "x"}], "tools": []}`, "tools: must be a non-empty list"},
		{`{"input_length": 5, "tools": [{"type": "function"}]}`, "tools: only allowed when messages is provided"},
		{`{"messages": [{"role": "user", "content": "x"}], "payload": {"a": 1}}`, "mutually exclusive"},
		{`{"payload": {"a": 1}, "hash_ids": [1]}`, "hash_ids: only allowed together with input_length"},
		{`{"text_input": "x", "hash_ids": [1]}`, "hash_ids: only allowed together with input_length"},
		{`{"input_length": 0}`, "input_length: 0, must be at least 1"},
		{`{"input_length": "ten"}`, "input_length: got JSON string, want int"},
		{`{"input_length": 5, "hash_ids": [1.5]}`, "hash_ids"},
		{`{"input_length": 5, "output_length": -1}`, "output_length: -1"},
		{`{"input_length": 5, "delay": -3}`, "delay: -3 ms"},
		{`{"text_input": ""}`, "text_input: empty"},
		{`{"input_length": 5, "session_id": 7}`, "session_id: got JSON number, want string"},
		{`{"input_length": 5,`, "invalid JSON"},
	}
	for _, c := range cases {
		path := writeFile(t, "bad.jsonl", `{"input_length": 3}`, ``, c.line)
		_, err := New().Load(context.Background(), path, opts())
		if err == nil {
			t.Errorf("%s: no error", c.line)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "bad.jsonl:3: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n  got  %q\n  want bad.jsonl:3: ... %q", c.line, msg, c.want)
		}
	}
}

// messages and payload records are carried verbatim (whitespace removed),
// tools beside their messages; each session keeps to one mode.
func TestSelfContainedRecords(t *testing.T) {
	path := writeFile(t, "raw.jsonl",
		`{"session_id": "a", "timestamp": 0, "messages": [ {"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"} ], "tools": [{"type": "function", "function": {"name": "f"}}], "output_length": 7}`,
		`{"session_id": "a", "delay": 5, "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}, {"role": "user", "content": "Again"}]}`,
		`{"session_id": "b", "timestamp": 10, "payload": {"model": "m", "prompt": "verbatim", "max_tokens": 3}, "extra": {"ignored_by_payload": true}}`)
	convs, err := New().Load(context.Background(), path, opts())
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || len(convs[0].Turns) != 2 || len(convs[1].Turns) != 1 {
		t.Fatalf("sessions %+v", convs)
	}
	first := convs[0].Turns[0]
	if got := string(first.RawMessages); got != `[{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"}]` {
		t.Errorf("messages %s", got)
	}
	if got := string(first.RawTools); got != `[{"type":"function","function":{"name":"f"}}]` {
		t.Errorf("tools %s", got)
	}
	if first.MaxTokens == nil || *first.MaxTokens != 7 || len(first.Texts) != 0 {
		t.Errorf("turn %+v", first)
	}
	if second := convs[0].Turns[1]; second.RawTools != nil || second.DelayMs == nil || *second.DelayMs != 5 {
		t.Errorf("second turn %+v", second)
	}
	if got := string(convs[1].Turns[0].RawPayload); got != `{"model":"m","prompt":"verbatim","max_tokens":3}` {
		t.Errorf("payload %s", got)
	}

	for _, tt := range []struct {
		lines []string
		want  string
	}{
		{[]string{`{"session_id": "s", "messages": [{"role": "user", "content": "x"}]}`, `{"session_id": "s", "payload": {"prompt": "y"}}`},
			"session s mixes 1 messages record(s) and 1 payload record(s)"},
		{[]string{`{"session_id": "s", "messages": [{"role": "user", "content": "x"}]}`, `{"session_id": "s", "input_length": 4}`},
			"session s mixes raw messages/payload records with synthesized prompts"},
	} {
		_, err := New().Load(context.Background(), writeFile(t, "mixed.jsonl", tt.lines...), opts())
		if err == nil || !strings.Contains(err.Error(), "mixed.jsonl: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want %q", tt.lines, err, tt.want)
		}
	}
}

func TestFieldsCarriedToTurns(t *testing.T) {
	convs := load(t, opts(),
		`{"timestamp": 1000, "input_length": 20, "output_length": 40, "hash_ids": [1]}`,
		`{"timestamp": 1500.5, "text_input": "Hello there", "extra": {"ignore_eos": true}}`,
		`{"delay": 250, "input_length": 8, "output_length": 0}`,
	)
	if len(convs) != 3 {
		t.Fatalf("got %d conversations, want 3", len(convs))
	}
	t0, t1, t2 := convs[0].Turns[0], convs[1].Turns[0], convs[2].Turns[0]
	if *t0.TimestampMs != 1000 || *t0.MaxTokens != 40 || t0.DelayMs != nil || t0.Extra != nil {
		t.Errorf("line 1 turn: %+v", t0)
	}
	if *t1.TimestampMs != 1500.5 || t1.MaxTokens != nil || t1.Texts[0] != "Hello there" || t1.Extra["ignore_eos"] != true {
		t.Errorf("line 2 turn: %+v", t1)
	}
	if t2.TimestampMs != nil || *t2.DelayMs != 250 || *t2.MaxTokens != 0 {
		t.Errorf("line 3 turn: %+v", t2)
	}
	if !convs[0].IsTrace() || convs[2].IsTrace() {
		t.Error("IsTrace must follow the first turn's timestamp")
	}
}

func TestSessionsGroupInFileOrder(t *testing.T) {
	convs := load(t, opts(),
		`{"session_id": "s1", "input_length": 5, "timestamp": 0}`,
		`{"input_length": 6}`,
		`{"session_id": "s2", "text_input": "b1"}`,
		`{"session_id": "s1", "input_length": 7, "delay": 500}`,
		`{"session_id": "s2", "text_input": "b2", "delay": 20}`,
		`{"session_id": "s1", "text_input": "a3", "delay": 0}`,
	)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if len(convs) != 3 || convs[0].SessionID != "s1" || !uuid.MatchString(convs[1].SessionID) || convs[2].SessionID != "s2" {
		t.Fatalf("sessions = %v, want [s1 <uuid> s2]", ids(convs))
	}
	tok := tiktoken.New()
	s1 := convs[0].Turns
	if len(s1) != 3 || tok.Count(s1[0].Texts[0]) != 5 || tok.Count(s1[1].Texts[0]) != 7 || s1[2].Texts[0] != "a3" {
		t.Errorf("s1 turns out of order: %d turns", len(s1))
	}
	if *s1[1].DelayMs != 500 || *s1[2].DelayMs != 0 || *s1[0].TimestampMs != 0 {
		t.Error("s1 delays/timestamps not carried")
	}
	if s2 := convs[2].Turns; len(s2) != 2 || s2[0].Texts[0] != "b1" || s2[1].Texts[0] != "b2" || *s2[1].DelayMs != 20 {
		t.Errorf("s2 = %+v", s2)
	}
}

func ids(convs []sdk.Conversation) []string {
	var out []string
	for _, c := range convs {
		out = append(out, c.SessionID)
	}
	return out
}

func TestDeterministicBySeed(t *testing.T) {
	lines := []string{
		`{"timestamp": 0, "input_length": 700, "hash_ids": [1, 2]}`,
		`{"timestamp": 5, "input_length": 33}`,
		`{"timestamp": 9, "input_length": 520, "hash_ids": [1, 3]}`,
	}
	run := func(seed int64) string {
		o := opts()
		o.RandomSeed = seed
		b, err := json.Marshal(load(t, o, lines...))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first, again, other := run(1), run(1), run(2)
	if first != again {
		t.Fatal("same seed, different datasets")
	}
	if first == other {
		t.Fatal("different seeds, same dataset")
	}
}

func TestPlainPromptsExact(t *testing.T) {
	tok := tiktoken.New()
	for _, n := range []int{1, 2, 17, 512, 3000} {
		c := load(t, opts(), `{"input_length": `+itoa(n)+`}`, `{"input_length": `+itoa(n)+`}`)
		a, b := c[0].Turns[0].Texts[0], c[1].Turns[0].Texts[0]
		if tok.Count(a) != n || tok.Count(b) != n {
			t.Errorf("input_length %d: prompts have %d and %d tokens", n, tok.Count(a), tok.Count(b))
		}
		if n > 2 && a == b {
			t.Errorf("input_length %d: lines without hash_ids must get fresh prompts", n)
		}
	}
}

func TestPromptLongerThanCorpus(t *testing.T) {
	tok := tiktoken.New()
	al, err := alignmentFor(tok)
	if err != nil {
		t.Fatal(err)
	}
	n := len(al.tokens) + 1000
	c := load(t, opts(), `{"input_length": `+itoa(n)+`}`)
	if got := tok.Count(c[0].Turns[0].Texts[0]); got != n {
		t.Errorf("got %d tokens, want %d", got, n)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// byteTokenizer makes every byte a token: no token starts with a space and
// a letter, so nothing aligns and every prompt takes the verified slow path.
type byteTokenizer struct{}

func (byteTokenizer) Name() string { return "bytes-test" }
func (byteTokenizer) Encode(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}
func (byteTokenizer) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}
func (byteTokenizer) Count(s string) int { return len(s) }

func TestUnalignedTokenizerFallsBackToVerifiedPrompts(t *testing.T) {
	o := opts()
	o.Tokenizer = byteTokenizer{}
	convs := loadWith(t, withBlockSize(8), o, `{"input_length": 20, "hash_ids": [1, 2, 3]}`, `{"input_length": 12, "hash_ids": [1, 4]}`, `{"input_length": 9}`)
	a, b := convs[0].Turns[0].Texts[0], convs[1].Turns[0].Texts[0]
	if len(a) != 20 || len(b) != 12 || len(convs[2].Turns[0].Texts[0]) != 9 {
		t.Fatalf("lengths %d, %d, %d; want 20, 12, 9", len(a), len(b), len(convs[2].Turns[0].Texts[0]))
	}
	if a[:8] != b[:8] {
		t.Error("shared hash id 1 must give the same first block")
	}
}

func TestTextInputNeedsNoTokenizer(t *testing.T) {
	o := opts()
	o.Tokenizer = nil
	convs := load(t, o, `{"text_input": "plain"}`)
	if convs[0].Turns[0].Texts[0] != "plain" {
		t.Errorf("texts = %v", convs[0].Turns[0].Texts)
	}
	_, err := New().Load(context.Background(), writeFile(t, "t.jsonl", `{"text_input": "a"}`, `{"input_length": 4}`), o)
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:2: input_length: building prompts needs a tokenizer") {
		t.Errorf("err = %v", err)
	}
}

func TestLongLinesAndEmptyFiles(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	convs := load(t, opts(), `{"text_input": "`+long+`"}`)
	if len(convs[0].Turns[0].Texts[0]) != len(long) {
		t.Error("a 3 MiB line must load whole")
	}
	_, err := New().Load(context.Background(), writeFile(t, "empty.jsonl", "", "  "), opts())
	if err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("empty file: err = %v", err)
	}
	_, err = New().Load(context.Background(), filepath.Join(t.TempDir(), "missing.jsonl"), opts())
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	lines := make([]string, 5000)
	for i := range lines {
		lines[i] = `{"text_input": "x"}`
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Load(ctx, writeFile(t, "t.jsonl", lines...), opts())
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("err = %v, want cancellation", err)
	}
}

func TestCanLoad(t *testing.T) {
	cases := []struct {
		first string
		want  bool
	}{
		{`{"timestamp": 0, "input_length": 10, "output_length": 4, "hash_ids": [1]}`, true},
		{`{"hash_ids": [1], "input_length": 10}`, true},
		{`{"session_id": "a", "input_length": 300, "output_length": 40}`, true},
		{`{"text_input": "hi"}`, true},
		{`{"messages": [{"role": "user", "content": "x"}]}`, true},
		{`{"type": "mooncake_trace", "foo": 1}`, true},
		{`{"type": "single_turn", "input_length": 3}`, false},
		{`{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114, "input_length": 521, "output_length": 132, "type": "text", "turn": 1, "hash_ids": [1089]}`, false},
		{`{"text": "hi"}`, false},
		{`{"session_id": "a", "turns": [{"text": "x"}]}`, false},
		{`[1, 2]`, false},
		{`not json`, false},
	}
	for _, c := range cases {
		path := writeFile(t, "f.jsonl", "", c.first, `{"input_length": 1}`)
		if got := New().CanLoad(path); got != c.want {
			t.Errorf("CanLoad(%s) = %v, want %v", c.first, got, c.want)
		}
	}
	if New().CanLoad(filepath.Join(t.TempDir(), "missing")) {
		t.Error("CanLoad of a missing file must be false")
	}
}

// AIPerf 0.13's three hash-id layouts: exact tile, last block partial and
// prefix only (hash ids cover a prefix, a fresh tail follows). Prefix-only
// tails are drawn per request, so two identical lines share the blocks but
// not the tail.
func TestHashIDLayouts(t *testing.T) {
	tok := tiktoken.New()
	convs := loadWith(t, withBlockSize(16), opts(),
		`{"input_length": 32, "hash_ids": [1, 2]}`,
		`{"input_length": 20, "hash_ids": [1, 2]}`,
		`{"input_length": 100, "hash_ids": [1, 2]}`,
		`{"input_length": 100, "hash_ids": [1, 2]}`,
	)
	want := []int{32, 20, 100, 100}
	var texts []string
	for i, c := range convs {
		text := c.Turns[0].Texts[0]
		if n := tok.Count(text); n != want[i] {
			t.Errorf("line %d: %d tokens, want %d", i+1, n, want[i])
		}
		texts = append(texts, text)
	}
	prefix := texts[0]
	for i := 2; i < 4; i++ {
		if !strings.HasPrefix(texts[i], prefix) {
			t.Errorf("line %d: prefix-only prompt does not start with the two full blocks", i+1)
		}
	}
	if texts[2] == texts[3] {
		t.Error("prefix-only prompts must get fresh tails per request, as in AIPerf")
	}
	if !strings.HasPrefix(prefix, texts[1][:len(texts[1])/2]) {
		t.Error("the partial last block must share its start with the full block")
	}
}
