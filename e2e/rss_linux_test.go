package e2e_test

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident memory of the process that ended with ps,
// in bytes (Linux counts it in KiB).
func maxRSS(ps *os.ProcessState) int64 { return ps.SysUsage().(*syscall.Rusage).Maxrss << 10 }
