package progress

import (
	"fmt"
	"io"
	"sync"
)

// maxHeld is how many bytes of -v lines may wait for a stderr that is not
// read; past it they are dropped, and counted.
const maxHeld = 1 << 20

// lineBuf holds, in order, what waits to be written to a writer that may
// be slow. With a limit, a droppable piece (a -v line) that would take it
// past limit bytes is dropped and counted; a line saying how many takes
// their place before the next piece kept, or at the end (end).
type lineBuf struct {
	pieces  []string
	size    int
	limit   int // 0: none, nothing is dropped
	dropped int
}

// add holds s, or drops it when it is droppable and there is no room.
func (b *lineBuf) add(s string, droppable bool) {
	if droppable && b.limit > 0 && b.size+len(s) > b.limit {
		b.dropped++
		return
	}
	b.end()
	b.pieces = append(b.pieces, s)
	b.size += len(s)
}

// end says how many pieces were dropped since the last one kept, if any.
func (b *lineBuf) end() {
	if b.dropped > 0 {
		note := fmt.Sprintf("acprun: %d log lines dropped: stderr was not read fast enough\n", b.dropped)
		b.dropped = 0
		b.pieces = append(b.pieces, note)
		b.size += len(note)
	}
}

// take returns what is held and empties b.
func (b *lineBuf) take() []string {
	p := b.pieces
	b.pieces, b.size = nil, 0
	return p
}

// queue writes what it is given to w from a goroutine of its own, in
// order, each piece in one Write call, so that who gives it (the runner,
// through an observer) never waits for w's reader. After the first write
// error it writes nothing more. Call close to write what is left.
type queue struct {
	w io.Writer

	mu      sync.Mutex
	changed sync.Cond // on mu: something was added, written, or close called
	buf     lineBuf
	writing bool // the goroutine is writing what it took
	closing bool
	err     error
	done    chan struct{} // closed when the goroutine returns
}

// newQueue starts writing to w; limit is lineBuf's.
func newQueue(w io.Writer, limit int) *queue {
	q := &queue{w: w, buf: lineBuf{limit: limit}, done: make(chan struct{})}
	q.changed.L = &q.mu
	go q.loop()
	return q
}

// add queues s; droppable says it may be dropped (lineBuf).
func (q *queue) add(s string, droppable bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.buf.add(s, droppable)
	q.changed.Broadcast()
}

// loop writes what is queued until close has been called and nothing is
// left.
func (q *queue) loop() {
	defer close(q.done)
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		for len(q.buf.pieces) == 0 && !q.closing {
			q.changed.Wait()
		}
		if len(q.buf.pieces) == 0 {
			return
		}
		pieces, err := q.buf.take(), q.err
		q.writing = true
		q.mu.Unlock()
		for _, s := range pieces {
			if err == nil {
				_, err = io.WriteString(q.w, s)
			}
		}
		q.mu.Lock()
		q.writing, q.err = false, err
		q.changed.Broadcast()
	}
}

// flush waits until everything queued so far is written (or given up
// after a write error).
func (q *queue) flush() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.buf.pieces) > 0 || q.writing {
		q.changed.Wait()
	}
}

// close writes what is left, saying how many pieces were dropped, and
// returns the first write error. It may be called more than once; what is
// added after it is not written.
func (q *queue) close() error {
	q.mu.Lock()
	q.buf.end()
	q.closing = true
	q.changed.Broadcast()
	q.mu.Unlock()
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}
