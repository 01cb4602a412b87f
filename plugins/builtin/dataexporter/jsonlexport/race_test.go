//go:build race

package jsonlexport

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation counts are only checked without it.
const raceEnabled = true
