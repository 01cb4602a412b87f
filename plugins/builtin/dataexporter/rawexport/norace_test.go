//go:build !race

package rawexport

const raceEnabled = false
