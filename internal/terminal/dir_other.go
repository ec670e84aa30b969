//go:build !linux

package terminal

import "os"

// heldDir is the path a command started now reaches the open directory d
// by: its name, as opened (the directory it names by then).
func heldDir(d *os.File) string { return d.Name() }
