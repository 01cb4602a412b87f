// Package synthetic is the "synthetic" dataset composer: single-turn
// conversations whose prompts are windows of the embedded Shakespeare corpus
// that re-encode to exactly the sampled input length under the run's
// tokenizer (AIPerf's _decode_to_exact_len), with seeded, reproducible
// lengths, corpus offsets, output lengths and session ids.
//
// Choices where AIPerf is silent or differs, on purpose:
//   - Session ids are UUIDv4s drawn from the seeded RNG, so one seed gives
//     byte-identical inputs including ids (AIPerf does not seed them).
//   - RandomSeed 0 is an ordinary seed: DatasetOptions has no "unset" flag, so
//     a caller that wants an unseeded run passes a random seed itself.
//   - With one model Turn.Model stays empty and the engine fills it in; with
//     several, models are assigned round robin (AIPerf's default strategy).
//   - Lengths follow AIPerf's sample_positive_normal_integer: with stddev 0
//     the mean itself (at least 1), otherwise ceil of a normal sample
//     truncated at 0, at least 1.
package synthetic
