package sessionstate

import "syscall"

// DupLock duplicates f's lock descriptor, as a child being forked holds a
// copy of it until its exec.
func DupLock(f *File) (int, error) { return syscall.Dup(int(f.lock.Fd())) }
