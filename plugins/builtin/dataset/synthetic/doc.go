// Package synthetic is the "synthetic" dataset composer: conversations whose
// prompts are windows of the embedded Shakespeare corpus that re-encode to
// exactly the sampled input length under the run's tokenizer (AIPerf's
// _decode_to_exact_len), with seeded, reproducible lengths, corpus offsets,
// output lengths and session ids. Conversations have Config.SessionTurnsMean
// (± stddev) turns, each with its own prompt and output length, and turns
// after the first carry a sampled delay (see sessionShape for AIPerf's
// rules). The session shape is the composer's own settings (Config, keys
// session_turns_mean, session_turns_stddev, turn_delay_mean_ms and
// turn_delay_stddev_ms), not dataset options.
//
// Each turn carries Config.PromptBatchSize prompts (-b; consecutive draws,
// as AIPerf's batch) and, when the media settings enable them, images,
// audio clips and videos from the media package's seeded generators, with
// AIPerf 0.13's inclusion rules: no text when the input length mean is 0,
// images when both size means are positive (512 when unset), audio when
// the length mean is positive (10 s when unset), videos only with a width
// and a height (1 s at 4 fps when unset). Turn.AudioDurationS is the first
// clip's length.
//
// It also exports the primitives file-based loaders reuse: CorpusTokens,
// ExactLengthPrompt, FitLength, NewStream, PositiveNormalInt and NewUUID.
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
