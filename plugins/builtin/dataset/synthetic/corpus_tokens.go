package synthetic

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/corpus"
)

// chunkChars is the corpus chunk size tokenized at once. Fixed (not derived
// from the CPU count) so token boundaries, and thus prompts, are the same on
// every machine, as in AIPerf.
const chunkChars = 10_000

type tokenizedCorpus struct {
	once   sync.Once
	tokens []int
	err    error
}

var (
	corpusMu    sync.Mutex
	corpusCache = map[string]*tokenizedCorpus{}
)

// CorpusTokens returns the corpus tokenized by tok, computed once per
// tokenizer name for the life of the process.
func CorpusTokens(tok sdk.Tokenizer) ([]int, error) {
	corpusMu.Lock()
	c, ok := corpusCache[tok.Name()]
	if !ok {
		c = &tokenizedCorpus{}
		corpusCache[tok.Name()] = c
	}
	corpusMu.Unlock()
	c.once.Do(func() {
		c.tokens = tokenize(tok, corpusChunks(corpus.Text()))
		if len(c.tokens) == 0 {
			c.err = fmt.Errorf("synthetic: tokenizer %q turned the corpus into no tokens", tok.Name())
		}
	})
	return c.tokens, c.err
}

// corpusChunks prepares the corpus like AIPerf: lines trimmed, empty lines
// dropped, joined by spaces into chunks of about chunkChars characters.
// Every chunk after the first starts with a space so words do not fuse
// where chunks meet.
func corpusChunks(text string) []string {
	var chunks []string
	var b strings.Builder
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if b.Len() > 0 || len(chunks) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(line)
		if b.Len() >= chunkChars {
			chunks = append(chunks, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		chunks = append(chunks, b.String())
	}
	return chunks
}

// tokenize encodes the chunks in parallel and concatenates them in order.
func tokenize(tok sdk.Tokenizer, chunks []string) []int {
	parts := make([][]int, len(chunks))
	parallelFor(len(chunks), func(i int) { parts[i] = tok.Encode(chunks[i]) })
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]int, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// parallelFor runs fn(0..n-1) on up to GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
