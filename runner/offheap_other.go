//go:build !unix

package runner

// offHeapMem is memory outside the Go heap; this system has none to
// offer, so textBuf blocks all live in the Go heap.
type offHeapMem struct{}

func allocOffHeap(int) *offHeapMem { return nil }

func (m *offHeapMem) bytes() []byte { return nil }

func (m *offHeapMem) free() {}
