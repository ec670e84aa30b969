package proc

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Output is a pipe a process writes to, read into a Tail until its end,
// or until it is stopped (see Config.Readers). Once reading has stopped,
// the tail holds in memory just the bytes it kept.
type Output struct {
	r, w *os.File
	done chan struct{} // reading stopped

	// mu is held from each read of the pipe to its write into the tail,
	// so that Take finds every byte either still in the pipe or in the
	// tail.
	mu   sync.Mutex
	tail *Tail
	buf  []byte
	// also sees everything read, in order (see NewOutputTo); nil for none.
	also io.Writer
}

// NewOutput makes a pipe and starts reading it into a tail of limit
// bytes. Hand File to a process, or close it to end the reading.
func NewOutput(limit int) (*Output, error) { return NewOutputTo(limit, nil) }

// NewOutputTo is NewOutput that also writes everything it reads to also
// (nil: nowhere), in order, as it reads it: also sees the whole stream,
// the tail only its end. What also returns is ignored; ReadDone is closed
// once its last Write has returned.
func NewOutputTo(limit int, also io.Writer) (*Output, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	o := &Output{r: r, w: w, done: make(chan struct{}), tail: NewTail(limit), buf: make([]byte, 32<<10), also: also}
	go o.read()
	return o, nil
}

// keep writes what was read to the tail, and to also; o.mu is held.
func (o *Output) keep(p []byte) {
	o.tail.Write(p)
	if o.also != nil {
		_, _ = o.also.Write(p)
	}
}

// File is the end of the pipe a process writes to.
func (o *Output) File() *os.File { return o.w }

// ReadDone is closed once reading has stopped.
func (o *Output) ReadDone() <-chan struct{} { return o.done }

// ReadToEnd does nothing: an Output never holds back.
func (o *Output) ReadToEnd() {}

// StopReading stops reading what is not in the pipe yet.
func (o *Output) StopReading() { _ = o.r.SetReadDeadline(time.Now()) }

// Unread is how many bytes the pipe holds that were not read yet.
func (o *Output) Unread() int { return PipeUnread(o.r) }

// read reads the pipe into the tail until its end, or until StopReading.
func (o *Output) read() {
	defer close(o.done)
	defer o.compact()
	defer o.r.Close()
	rc, err := o.r.SyscallConn()
	if err != nil {
		return
	}
	for ended := false; !ended; {
		err := rc.Read(func(fd uintptr) bool {
			o.mu.Lock()
			defer o.mu.Unlock()
			n, err := unix.Read(int(fd), o.buf)
			switch {
			case n > 0:
				o.keep(o.buf[:n])
			case err == unix.EAGAIN:
				return false // wait until there is more
			case err != unix.EINTR:
				ended = true // the end of the pipe, or an error
			}
			return true
		})
		if err != nil {
			return // stopped
		}
	}
}

// compact has the tail, once reading has stopped, hold just the bytes it
// kept: what it holds (Held) is then what was written, however the reads
// cut it, which is their timing.
func (o *Output) compact() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if cap(o.tail.buf) > len(o.tail.buf) {
		o.tail = o.tail.clone()
	}
}

// Tail returns a copy of the tail so far.
func (o *Output) Tail() *Tail {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tail.clone()
}

// Held is how many bytes of memory the tail holds (see Tail.Held).
func (o *Output) Held() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.tail.Held()
}

// Take returns the tail of everything written to the pipe before the
// call, what is in the pipe but not read yet included, since the last Take
// (or the start); what is written from then on goes to a new tail, which
// follows this one (see Tail.Follows).
func (o *Output) Take() *Tail {
	o.mu.Lock()
	defer o.mu.Unlock()
	if rc, err := o.r.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { // an error: closed, everything was read
			for {
				n, err := unix.Read(int(fd), o.buf)
				if n > 0 {
					o.keep(o.buf[:n])
					continue
				}
				if err != unix.EINTR {
					return // empty for now (EAGAIN), ended, or failed
				}
			}
		})
	}
	t := o.tail
	o.tail = NewTail(t.limit)
	o.tail.follows = true
	return t
}

// Tail keeps the last bytes written to it, at most its limit, starting at
// a UTF-8 character boundary: the rest of a character the cut went through
// is dropped. Its buffer is a ring that grows to the limit and no further:
// it never holds more than the limit in memory, and writes cost O(1) per
// byte.
type Tail struct {
	limit int
	// buf is the ring: the last len(buf) bytes written, the oldest at
	// head. It grows (head 0) until it holds limit bytes.
	buf   []byte
	head  int
	total int64
	// follows is set on a tail that Output.Take started after another.
	follows bool
}

// NewTail returns an empty Tail that keeps at most limit bytes.
func NewTail(limit int) *Tail { return &Tail{limit: max(limit, 0)} }

// Write keeps the end of p; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if len(p) >= t.limit { // p alone fills the ring
		t.grow(t.limit)
		t.buf = t.buf[:t.limit]
		copy(t.buf, p[len(p)-t.limit:])
		t.head = 0
		return n, nil
	}
	if free := t.limit - len(t.buf); free > 0 { // still growing
		k := min(free, len(p))
		t.grow(len(t.buf) + k)
		t.buf = append(t.buf, p[:k]...)
		p = p[k:]
	}
	// The ring is full: p overwrites the oldest bytes.
	k := copy(t.buf[t.head:], p)
	copy(t.buf, p[k:])
	t.head = (t.head + len(p)) % max(len(t.buf), 1)
	return n, nil
}

// grow makes room for n bytes in the buffer, doubling it, and to the
// limit once past half of it, so that growing to the limit allocates at
// most twice the limit.
func (t *Tail) grow(n int) {
	if n <= cap(t.buf) {
		return
	}
	c := max(n, 2*cap(t.buf), 512)
	if c > t.limit/2 {
		c = t.limit
	}
	b := make([]byte, len(t.buf), c)
	copy(b, t.buf)
	t.buf = b
}

// Bytes returns the bytes kept, as they were written (not checked for
// valid UTF-8). They are valid until the next Write. It puts the ring in
// order, in place: it allocates nothing.
func (t *Tail) Bytes() []byte {
	if t.head != 0 {
		slices.Reverse(t.buf[:t.head])
		slices.Reverse(t.buf[t.head:])
		slices.Reverse(t.buf)
		t.head = 0
	}
	return t.trim(t.buf)
}

// trim drops from the start of b, the last bytes written, the rest of a
// character cut in two, when the beginning of the output was dropped.
func (t *Tail) trim(b []byte) []byte {
	if int64(len(b)) == t.total {
		return b
	}
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}

// Total is how many bytes were written in all.
func (t *Tail) Total() int64 { return t.total }

// Truncated reports whether bytes were dropped from the beginning.
func (t *Tail) Truncated() bool { return int64(len(t.Bytes())) < t.total }

// Follows reports whether the tail follows one that Output.Take took: its
// beginning may then be in the middle of what was written, as the
// beginning of a truncated tail is.
func (t *Tail) Follows() bool { return t.follows }

// Held is how many bytes the tail holds in memory: at most its limit.
func (t *Tail) Held() int { return cap(t.buf) }

// clone returns a copy of the tail, which holds just the bytes kept, in
// order; t is left as it was.
func (t *Tail) clone() *Tail {
	b := make([]byte, 0, len(t.buf))
	b = append(append(b, t.buf[t.head:]...), t.buf[:t.head]...)
	return &Tail{limit: t.limit, buf: b, total: t.total, follows: t.follows}
}
