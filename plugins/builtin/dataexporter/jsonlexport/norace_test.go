//go:build !race

package jsonlexport

const raceEnabled = false
