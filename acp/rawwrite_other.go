//go:build !unix

package acp

import (
	"io"
	"syscall"
)

// nonBlocking is nil where acp does not write files directly: every write
// goes the usual way.
func nonBlocking(io.Writer) syscall.RawConn { return nil }

// writeOnce is never called without a raw connection.
func writeOnce(syscall.RawConn, []byte) int { return 0 }
