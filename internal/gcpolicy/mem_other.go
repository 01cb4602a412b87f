//go:build !linux

package gcpolicy

// cgroupMemoryLimit is Linux-only.
func cgroupMemoryLimit() uint64 { return 0 }
