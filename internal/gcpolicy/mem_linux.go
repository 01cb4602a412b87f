package gcpolicy

import (
	"os"
	"strconv"
	"strings"
)

// cgroupMemoryLimit returns the memory limit of this process's cgroup
// (v2 memory.max, else v1 memory.limit_in_bytes); 0 when unlimited or unknown.
func cgroupMemoryLimit() uint64 {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if v, ok := parseCgroupLimit(path); ok {
			return v
		}
	}
	return 0
}

func parseCgroupLimit(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, true
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= 1<<62 { // v1 reports "unlimited" as a huge number
		return 0, err == nil
	}
	return v, true
}
