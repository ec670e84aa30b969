package provider

import "bytes"

// Splitter cuts a server-sent event stream into events as bytes arrive,
// as the WHATWG HTML standard's event stream format has it: an event ends
// at a blank line, and a line ends at "\r\n", "\n" or "\r". Every byte fed
// is in exactly one event Feed returns or in Rest, so what the events and
// Rest make up together is the stream as it came. The zero Splitter is
// ready to use; a Splitter is for one goroutine.
type Splitter struct {
	buf []byte // the bytes after the last event returned
	// Where and how scanning stopped in buf: at pos, whether that is in
	// the middle of a line (false where a line starts: a line ending just
	// ended, or nothing came yet), and whether buf[pos-1] is a "\r" ending
	// a line (blankCR: a blank one), whose "\n", if the next byte is one,
	// belongs to it.
	pos     int
	midLine bool
	afterCR bool
	blankCR bool
}

// Feed adds p and returns the events it completes, each whole with its
// terminating blank line, in order. A blank line ending in a lone "\r" at
// the end of what came so far completes its event only with the next byte
// (it may be a "\n" that belongs to it).
func (s *Splitter) Feed(p []byte) [][]byte {
	s.buf = append(s.buf, p...)
	var events [][]byte
	start := 0 // where the current event starts in buf
	for ; s.pos < len(s.buf); s.pos++ {
		b := s.buf[s.pos]
		if s.afterCR {
			s.afterCR = false
			if b == '\n' {
				if s.blankCR { // "\r\n" ends the blank line
					events = append(events, s.buf[start:s.pos+1])
					start = s.pos + 1
				}
				continue
			}
			if s.blankCR { // the lone "\r" ended the blank line
				events = append(events, s.buf[start:s.pos])
				start = s.pos
			}
		}
		switch b {
		case '\r':
			s.afterCR, s.blankCR = true, !s.midLine
			s.midLine = false
		case '\n':
			if !s.midLine {
				events = append(events, s.buf[start:s.pos+1])
				start = s.pos + 1
			}
			s.midLine = false
		default:
			s.midLine = true
		}
	}
	if start > 0 {
		// Events keep their own copies: buf's array is reused.
		for i, e := range events {
			events[i] = bytes.Clone(e)
		}
		s.buf = append(s.buf[:0], s.buf[start:]...)
		s.pos -= start
	}
	return events
}

// Rest returns what remains after the last event Feed returned: at the
// end of a stream, an event cut short, or a last event whose blank line
// ended in a lone "\r" (Parse reads either); "" at a clean end.
func (s *Splitter) Rest() []byte { return bytes.Clone(s.buf) }

// RestEnds reports whether Rest, at the end of a stream, is a whole event
// (its blank line ended in a lone "\r"), which a client dispatches, rather
// than one cut short, which it discards (the standard: "if the file ends
// in the middle of an event, before the final empty line, the incomplete
// event is not dispatched").
func (s *Splitter) RestEnds() bool { return len(s.buf) > 0 && s.afterCR && s.blankCR }

// Parse reads one event as Feed returns it: its name (the last "event:"
// field's value) and data (the "data:" fields' values joined by "\n"; nil
// when it has none, and then clients dispatch no event). Comments
// (lines that start with ":") and other fields are ignored; a field's
// value is what follows its colon, less one leading space.
func Parse(event []byte) (name string, data []byte) {
	fields(event, func(field, value []byte, _ int) {
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if data != nil {
				data = append(data, '\n')
			} else {
				data = make([]byte, 0, len(value))
			}
			data = append(data, value...)
		}
	})
	return name, data
}

// fields calls f with each field of event, as Parse reads them (comments
// left out), and where the field's value starts in event.
func fields(event []byte, f func(field, value []byte, at int)) {
	// at is where event, as it is cut, starts in the event given. A
	// stream may start with a byte order mark.
	at := 0
	if bytes.HasPrefix(event, []byte("\uFEFF")) {
		event, at = event[len("\uFEFF"):], len("\uFEFF")
	}
	for len(event) > 0 {
		i := bytes.IndexAny(event, "\r\n")
		line, next := event, len(event)
		if i >= 0 {
			line = event[:i]
			if event[i] == '\r' && i+1 < len(event) && event[i+1] == '\n' {
				i++
			}
			next = i + 1
		}
		if len(line) > 0 && line[0] != ':' {
			field, value, _ := bytes.Cut(line, []byte(":"))
			trimmed := bytes.TrimPrefix(value, []byte(" "))
			f(field, trimmed, at+len(line)-len(trimmed))
		}
		event, at = event[next:], at+next
	}
}
