// Package arrival holds the built-in arrival_pattern plugins, one file per
// pattern: poisson (AIPerf's default), constant, gamma and
// concurrency_burst. Each is a renewal process whose gaps the open-loop
// strategy adds to an absolute schedule. Seeded patterns take their seed
// from Init (sdk.RunInfo.Seed), which also restarts their sequence, so a
// phase with the same seed draws the same gaps.
package arrival
