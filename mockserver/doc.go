// Package mockserver is an OpenAI-compatible inference server for demos,
// tests and benchmarks (the Go counterpart of AIPerf's aiperf-mock-server).
//
// It serves every API an AIPerf 0.13 endpoint type talks to (Routes lists
// them): OpenAI chat, completions, embeddings, image generation, video jobs
// and Responses; NIM, TEI and Cohere reranking; TGI; Solido RAG; Anthropic
// Messages; plus /v1/models, /health and Prometheus /metrics. Output is
// deterministic per request and generated text re-tokenizes to exactly the
// number of tokens the server reports, so a benchmark client can be checked
// against known TTFT, ITL and token counts. Streams go out on the
// TTFT + i·ITL schedule; non-streaming answers after TTFT + ITL per token
// (or per embedded input, ranked passage or image); --error-rate fails any
// inference request with a 500.
package mockserver
