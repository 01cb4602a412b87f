//go:build linux

package transport

import "golang.org/x/sys/unix"

// setTCPUserTimeout sets TCP_USER_TIMEOUT, as AIPerf does on Linux.
func setTCPUserTimeout(fd uintptr, ms int) error {
	return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
}
