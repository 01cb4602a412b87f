// Package sampler holds the built-in dataset_sampler plugins, AIPerf's
// --dataset-sampling-strategy values: shuffle (the default for synthetic
// data), sequential (trace replay) and random. One file per plugin.
//
// Every order is a pure function of (n, seed, credit index): the session of
// credit i does not depend on the order in which sending goroutines ask, so
// trace replay pairs offset i with entry i and a run is reproducible under
// --random-seed.
package sampler
