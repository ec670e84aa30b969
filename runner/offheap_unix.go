//go:build unix

package runner

import (
	"runtime"
	"syscall"
)

// offHeapMem is memory mapped outside the Go heap for a textBuf's block.
// It is unmapped by free, or, should its textBuf be dropped without
// String, once the garbage collector finds it unreachable.
type offHeapMem struct {
	mem     []byte
	cleanup runtime.Cleanup
}

// allocOffHeap maps size bytes of anonymous memory; nil when the system
// refuses, and the caller then uses the Go heap.
func allocOffHeap(size int) *offHeapMem {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	m := &offHeapMem{mem: mem}
	// The cleanup holds the mapping, not m, so that m can become
	// unreachable.
	m.cleanup = runtime.AddCleanup(m, func(mem []byte) { _ = syscall.Munmap(mem) }, mem)
	return m
}

// bytes returns the mapped memory; it is valid until free.
func (m *offHeapMem) bytes() []byte { return m.mem }

// free unmaps the memory now; nothing of it may be used after.
func (m *offHeapMem) free() {
	m.cleanup.Stop()
	_ = syscall.Munmap(m.mem)
	m.mem = nil
}
