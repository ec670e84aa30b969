// Package writequeue writes to a writer that may be slow (a pipe, a FIFO,
// a terminal) from a goroutine of its own, so that who gives it what to
// write never waits for the writer's reader.
package writequeue

import (
	"io"
	"sync"
)

// Buf holds, in order, what waits to be written to a writer that may be
// slow. With a Limit, a droppable piece that would take it past Limit
// bytes is dropped and counted; Note's line saying how many takes their
// place before the next piece kept, or at the end (End).
type Buf struct {
	Limit int                      // 0: none, nothing is dropped
	Note  func(dropped int) string // the line that says how many were dropped

	pieces  []string
	size    int
	dropped int // since the last piece kept
	total   int // every piece dropped
}

// Add holds s, or drops it when it is droppable and there is no room.
func (b *Buf) Add(s string, droppable bool) {
	if droppable && b.Limit > 0 && b.size+len(s) > b.Limit {
		b.dropped++
		b.total++
		return
	}
	b.End()
	b.pieces = append(b.pieces, s)
	b.size += len(s)
}

// End says how many pieces were dropped since the last one kept, if any.
func (b *Buf) End() {
	if b.dropped > 0 {
		note := b.Note(b.dropped)
		b.dropped = 0
		b.pieces = append(b.pieces, note)
		b.size += len(note)
	}
}

// Take returns what is held and empties b.
func (b *Buf) Take() []string {
	p := b.pieces
	b.pieces, b.size = nil, 0
	return p
}

// Queue writes what it is given to a writer from a goroutine of its own,
// in order, each piece in one Write call, so that who gives it never
// waits for the writer's reader: what its Buf's Limit leaves no room for
// is dropped instead. After the first write error it writes nothing more.
// Call Close to write what is left, or Halt to stop at once.
type Queue struct {
	w io.Writer

	mu      sync.Mutex
	changed sync.Cond // on mu: something was added, written, or Close called
	buf     Buf
	writing bool // the goroutine is writing what it took
	closing bool
	halted  bool // Halt: nothing more is written
	midLine bool // the last piece written ends without a line break
	err     error
	done    chan struct{} // closed when the goroutine returns
}

// New starts writing to w what is added, held meanwhile in b (its Limit
// and Note say what is dropped).
func New(w io.Writer, b Buf) *Queue {
	q := &Queue{w: w, buf: b, done: make(chan struct{})}
	q.changed.L = &q.mu
	go q.loop()
	return q
}

// Add queues s; droppable says it may be dropped (Buf). It never waits
// for the writer.
func (q *Queue) Add(s string, droppable bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.buf.Add(s, droppable)
	q.changed.Broadcast()
}

// Dropped returns how many pieces were dropped so far.
func (q *Queue) Dropped() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.buf.total
}

// loop writes what is queued until Close has been called and nothing is
// left.
func (q *Queue) loop() {
	defer close(q.done)
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.buf.pieces) == 0 && !q.closing && !q.halted {
			q.changed.Wait()
		}
		if q.halted || len(q.buf.pieces) == 0 {
			return
		}
		pieces, err := q.buf.Take(), q.err
		q.writing = true
		for _, s := range pieces {
			if q.halted || err != nil {
				break
			}
			q.mu.Unlock()
			_, err = io.WriteString(q.w, s)
			q.mu.Lock()
			if s != "" {
				q.midLine = s[len(s)-1] != '\n'
			}
		}
		q.writing, q.err = false, err
		q.changed.Broadcast()
	}
}

// Flush waits until everything queued so far is written (or given up
// after a write error).
func (q *Queue) Flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf.pieces) > 0 && !q.halted || q.writing {
		q.changed.Wait()
	}
}

// Halt stops q at once, without waiting for the writer: what it holds and
// has not begun to write is never written, nor what is added after. It
// reports whether the writer's output may end mid-line, for who writes
// after it (acprun's last line, as it exits) to begin with a line break:
// the last piece written ends without one, or a piece is being written,
// which may end anyhow and may even come after what the caller writes.
func (q *Queue) Halt() (midLine bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.halted = true
	q.changed.Broadcast()
	return q.midLine || q.writing
}

// Close writes what is left, saying how many pieces were dropped, and
// returns the first write error. It may be called more than once; what is
// added after it is not written.
func (q *Queue) Close() error {
	q.mu.Lock()
	q.buf.End()
	q.closing = true
	q.changed.Broadcast()
	q.mu.Unlock()
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}
