package mockagent

import (
	"errors"
	"io"
	"sync"
)

// errExited is what writes fail with after an exit step.
var errExited = errors.New("mock agent exited")

// output is the agent's stdout. It serialises writes (the Conn's messages
// and garbage lines) and can be switched off: after an exit step writes
// fail, after a hang step they vanish.
type output struct {
	mu      sync.Mutex
	w       io.Writer // the raw stdout, which grandchildren inherit
	state   int
	failed  chan struct{} // closed at the first failed write
	written func([]byte)  // called after each complete write, outside mu
}

const (
	outLive = iota
	outDiscard
	outDead
)

func (o *output) Write(b []byte) (int, error) {
	n, err := o.write(b)
	if err == nil && n == len(b) && o.written != nil {
		o.written(b)
	}
	return n, err
}

func (o *output) write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch o.state {
	case outDiscard:
		return len(b), nil
	case outDead:
		return 0, errExited
	}
	n, err := o.w.Write(b)
	if err != nil {
		o.state = outDead
		close(o.failed)
	}
	return n, err
}

// kill makes every later write fail; once it returns nothing more is written.
func (o *output) kill() {
	o.mu.Lock()
	o.state = outDead
	o.mu.Unlock()
}

// discard makes every later write vanish.
func (o *output) discard() {
	o.mu.Lock()
	if o.state == outLive {
		o.state = outDiscard
	}
	o.mu.Unlock()
}

// lockedWriter serialises writes to stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
