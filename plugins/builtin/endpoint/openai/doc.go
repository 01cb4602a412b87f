// Package openai holds what the OpenAI-shaped endpoints (chat, completions)
// share: an insertion-ordered JSON object builder that appends straight into
// the request body, the --extra-inputs merge with Python dict.update
// semantics, the stream_options.include_usage rule, usage-field
// normalization and the response-unit helpers ([DONE], malformed JSON).
package openai
