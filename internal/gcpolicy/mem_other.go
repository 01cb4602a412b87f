//go:build !linux

package main

// physicalMemory is unknown off Linux; tuneGC then only raises GOGC.
func physicalMemory() uint64 { return 0 }

// cgroupMemoryLimit is Linux-only.
func cgroupMemoryLimit() uint64 { return 0 }
