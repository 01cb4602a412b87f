// Package testfixtures holds small stand-ins for built-in plugins so tests
// of core packages need nothing under plugins/: an OpenAI-shaped endpoint, a
// whitespace tokenizer, AIPerf's record-metric specs and a record processor
// computing a few of them. They are test doubles, not references: the
// built-ins are tested next to their own code.
package testfixtures
