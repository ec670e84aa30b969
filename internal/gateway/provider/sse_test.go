package provider_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/gateway/provider"
)

// split feeds stream to a Splitter in the given pieces and returns the
// events and the rest.
func split(pieces ...string) (events []string, rest string) {
	var s provider.Splitter
	for _, p := range pieces {
		for _, e := range s.Feed([]byte(p)) {
			events = append(events, string(e))
		}
	}
	return events, string(s.Rest())
}

func TestSplitter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		events []string
		rest   string
	}{
		{"LF", []string{"event: a\ndata: 1\n\nevent: b\ndata: 2\n\n"},
			[]string{"event: a\ndata: 1\n\n", "event: b\ndata: 2\n\n"}, ""},
		{"CRLF", []string{"data: 1\r\n\r\ndata: 2\r\n\r\n"},
			[]string{"data: 1\r\n\r\n", "data: 2\r\n\r\n"}, ""},
		{"CR", []string{"data: 1\r\rdata: 2\r\r"},
			// The last "\r" may yet be the start of a "\r\n": its event waits.
			[]string{"data: 1\r\r"}, "data: 2\r\r"},
		{"CR then more", []string{"data: 1\r\r", "d", "ata: 2\r\r", "\n"},
			[]string{"data: 1\r\r", "data: 2\r\r\n"}, ""},
		{"CRLF cut between CR and LF", []string{"data: 1\r", "\n\r", "\ndata: 2\r\n", "\r", "\n"},
			[]string{"data: 1\r\n\r\n", "data: 2\r\n\r\n"}, ""},
		{"mixed line ends", []string{"data: 1\r\ndata: 2\n\r\n:c\rdata: 3\n\r"},
			[]string{"data: 1\r\ndata: 2\n\r\n"}, ":c\rdata: 3\n\r"},
		{"a blank line alone is an empty event", []string{"\n\ndata: 1\n\n"},
			[]string{"\n", "\n", "data: 1\n\n"}, ""},
		{"cut short", []string{"data: 1\n\ndata: {\"a\":", "1}\n"},
			[]string{"data: 1\n\n"}, "data: {\"a\":1}\n"},
		{"a byte at a time", []string{"e", "v", "e", "n", "t", ":", "x", "\n", "\n", "d", "\n", "\n"},
			[]string{"event:x\n\n", "d\n\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, rest := split(tc.pieces...)
			if !slices.Equal(events, tc.events) || rest != tc.rest {
				t.Errorf("events %q, rest %q; want %q, %q", events, rest, tc.events, tc.rest)
			}
			var s provider.Splitter
			for _, p := range tc.pieces {
				s.Feed([]byte(p))
			}
			// Only a rest whose blank line ended in a lone "\r" is whole.
			if want := strings.HasSuffix(tc.rest, "\r\r") || strings.HasSuffix(tc.rest, "\n\r"); s.RestEnds() != want {
				t.Errorf("RestEnds() = %v, want %v", s.RestEnds(), want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		event string
		name  string
		data  string
		none  bool // no data: no event is dispatched
	}{
		{"event: message_start\ndata: {\"a\":1}\n\n", "message_start", `{"a":1}`, false},
		{"data: {\"a\":1}\r\n\r\n", "", `{"a":1}`, false},
		{"data:one\ndata:  two\ndata\n\n", "", "one\n two\n", false},
		{"data: 1\rdata: 2\r\r", "", "1\n2", false},
		{": keep-alive\n\n", "", "", true},
		{":comment\nevent: ping\nid: 7\nretry: 10\ndata: {}\n\n", "ping", "{}", false},
		{"event: a\nevent: b\ndata: x\n\n", "b", "x", false},
		{"data:\n\n", "", "", false},
		{"\uFEFFdata: first\n\n", "", "first", false},
		{"data: no end", "", "no end", false},
		{"event: error\n\n", "error", "", true},
		{"\n", "", "", true},
		{"", "", "", true},
	} {
		name, data := provider.Parse([]byte(tc.event))
		if name != tc.name || string(data) != tc.data || (data == nil) != tc.none {
			t.Errorf("Parse(%q) = %q, %q (nil: %v); want %q, %q (nil: %v)", tc.event, name, data, data == nil, tc.name, tc.data, tc.none)
		}
	}
}

// FuzzSplitter: the events and the rest make up the stream, byte for
// byte, however it is cut; each event ends with a blank line; and events
// are the same whether the stream comes whole or in two pieces.
func FuzzSplitter(f *testing.F) {
	for _, seed := range []string{"data: 1\n\n", "data: 1\r\n\r\ndata: 2\r\n\r\n", "a\r\r\n\r\n\n\r", "event: x\ndata: {}\n\n:c\n\n", "\r", "\r\n\r"} {
		f.Add([]byte(seed), uint(3))
	}
	f.Fuzz(func(t *testing.T, stream []byte, cut uint) {
		whole, wholeRest := split(string(stream))
		at := int(cut % uint(len(stream)+1))
		pieces, piecesRest := split(string(stream[:at]), string(stream[at:]))
		if !slices.Equal(whole, pieces) || wholeRest != piecesRest {
			t.Fatalf("cut at %d: events %q rest %q; whole: %q rest %q", at, pieces, piecesRest, whole, wholeRest)
		}
		var all []byte
		for _, e := range whole {
			all = append(all, e...)
			if !bytes.HasSuffix([]byte(e), []byte("\n\n")) && !bytes.HasSuffix([]byte(e), []byte("\r\r")) &&
				!bytes.HasSuffix([]byte(e), []byte("\n\r\n")) && !bytes.HasSuffix([]byte(e), []byte("\r\r\n")) &&
				!bytes.HasSuffix([]byte(e), []byte("\n\r")) && e != "\n" && e != "\r" && e != "\r\n" {
				t.Errorf("event %q does not end with a blank line", e)
			}
		}
		if all = append(all, wholeRest...); !bytes.Equal(all, stream) {
			t.Errorf("events and rest make up %q; want %q", all, stream)
		}
	})
}
