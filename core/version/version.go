// Package version holds the build version, set with
// -ldflags "-X github.com/aiperf-go/aiperf/core/version.Version=...".
package version

// Version of this build.
var Version = "0.1.0-dev"

// UserAgent is sent with every request, as AIPerf does (aiperf/<version>).
func UserAgent() string { return "aiperf/" + Version }
