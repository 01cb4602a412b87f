// Package mockserver is an OpenAI-compatible inference server for demos,
// tests and benchmarks (the Go counterpart of AIPerf's aiperf-mock-server).
//
// It serves /v1/chat/completions and /v1/completions (SSE or JSON), /v1/models,
// /health and Prometheus /metrics. Output is deterministic per prompt and its
// text re-tokenizes to exactly the number of tokens the server reports, so a
// benchmark client can be checked against known TTFT, ITL and token counts.
package mockserver
