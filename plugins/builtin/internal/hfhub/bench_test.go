package hfhub

import (
	"context"
	"testing"
)

// BenchmarkResolveCacheHit is the path every run takes after the first: a
// ref read and a stat, no network.
func BenchmarkResolveCacheHit(b *testing.B) {
	cache := b.TempDir()
	hub := newHub(b, serveTokenizer(testCommit, validTokenizer))
	opts := Options{Endpoint: hub.URL(), CacheDir: cache}
	if _, err := Resolve(context.Background(), "org/model", opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(context.Background(), "org/model", opts); err != nil {
			b.Fatal(err)
		}
	}
	if hub.hits.Load() != 1 {
		b.Fatalf("cache hits made %d requests", hub.hits.Load()-1)
	}
}

func BenchmarkValidateRepoID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateRepoID("meta-llama/Llama-3.1-8B-Instruct"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckTokenizerJSON(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(validTokenizer)))
	for b.Loop() {
		if err := checkTokenizerJSON(validTokenizer); err != nil {
			b.Fatal(err)
		}
	}
}
