package terminal

import (
	"os"
	"strconv"
)

// heldDir is the path a command started now reaches the open directory d
// by: its descriptor in /proc/self/fd, which the child, a copy of acprun
// until it execs, changes into before anything else (exec's chdir comes
// before its descriptors are rearranged). The link leads to d itself,
// wherever d's path leads by then.
func heldDir(d *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(d.Fd())) }
