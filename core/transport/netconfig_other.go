//go:build !linux

package transport

// setTCPUserTimeout is Linux-only, as in AIPerf (hasattr(socket,
// "TCP_USER_TIMEOUT")); elsewhere keepalive alone finds dead peers.
func setTCPUserTimeout(uintptr, int) error { return nil }
