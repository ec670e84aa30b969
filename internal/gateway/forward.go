package gateway

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/redact"
)

// upstreamClient sends the agents' requests upstream: plain bodies (no
// compression, so that what is streamed, metered and kept is the text),
// no redirects followed (the agent sees them), no time limit (answers
// stream for minutes; the agent's own request, and the attempt, bound
// them).
var upstreamClient = &http.Client{
	Transport: func() http.RoundTripper {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableCompression = true
		return t
	}(),
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// hopByHop are the headers of one connection, never forwarded (RFC 9110
// 7.6.1), with Accept-Encoding (answers must come plain) and the framing
// ones the server and client set.
var hopByHop = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Accept-Encoding", "Content-Length", "Host",
}

// copyHeader copies the end-to-end headers of src into dst.
func copyHeader(dst, src http.Header) {
	skip := make(map[string]bool)
	for _, h := range hopByHop {
		skip[h] = true
	}
	for _, v := range src.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			skip[textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	for k, vs := range src {
		if !skip[textproto.CanonicalMIMEHeaderKey(k)] {
			dst[k] = append([]string(nil), vs...)
		}
	}
}

// forward sends c to upstream (the route's; the API's default when ""),
// with the agent's header, and streams the answer back to w as it comes,
// metering it, and in record keeping the exchange.
func (a *Attempt) forward(ctx context.Context, w http.ResponseWriter, header http.Header, c *call, upstream string) {
	upstream = cmp.Or(upstream, strings.TrimRight(provider.DefaultUpstream(c.api), "/"))
	if upstream == "" {
		plain(w, http.StatusBadGateway, fmt.Sprintf("acprun gateway: %s %s: no upstream to forward it to (give the agent's gateway an upstream)", c.method, c.path))
		return
	}
	target := upstream + c.path
	if c.rawQuery != "" {
		target += "?" + c.rawQuery
	}
	out, err := http.NewRequestWithContext(ctx, c.method, target, bytes.NewReader(c.body))
	if err != nil {
		plain(w, http.StatusBadGateway, fmt.Sprintf("acprun gateway: upstream %s: %v", redact.URL(upstream), innerURLErr(err)))
		return
	}
	copyHeader(out.Header, header)
	t := tape{now: a.cfg.Now, last: a.cfg.Now()}
	resp, err := a.client.Do(out)
	if err != nil {
		switch {
		case ctx.Err() != nil || a.closing():
			// The agent went away (its turn cancelled), or the attempt
			// ended, before the answer started: kept, for replay to hold
			// the request as long. Which of the two this handler saw first
			// depends on timing, never what the cassette keeps.
			if a.cfg.Mode == Record && !c.probe {
				a.keep(c, response{Events: []event{}, Abandoned: true})
			}
			if a.closing() {
				cutOff(w, false)
			}
		default:
			// The provider could not be reached: what the agent gets is
			// kept, for a replay to answer the same; the recording is not
			// the agent's (Unreachable), and does not replace the cassette.
			msg := fmt.Sprintf("acprun gateway: upstream %s: %v", redact.URL(upstream), innerURLErr(err))
			plain(w, http.StatusBadGateway, msg)
			a.noteUnreachable(msg)
			if a.cfg.Mode == Record && !c.probe {
				a.keep(c, response{Status: http.StatusBadGateway, ContentType: "text/plain; charset=utf-8", Events: []event{newEvent(0, []byte(msg+"\n"))}})
			}
		}
		return
	}
	defer resp.Body.Close()
	w.Header()["Content-Type"] = nil // the upstream's, never one sniffed
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	rc.Flush()

	contentType := resp.Header.Get("Content-Type")
	sse := isSSE(contentType)
	m := provider.NewMeter(c.api)
	var split provider.Splitter
	var whole []byte
	buf := make([]byte, 32<<10)
	broken := false
	for {
		n, err := resp.Body.Read(buf)
		if p := buf[:n]; sse {
			for _, ev := range split.Feed(p) {
				w.Write(ev)
				rc.Flush()
				name, data := provider.Parse(ev)
				m.Event(name, data)
				a.report(c, m)
				t.add(ev)
			}
		} else if n > 0 {
			w.Write(p)
			rc.Flush()
			whole = append(whole, p...)
		}
		if err != nil {
			broken = !errors.Is(err, io.EOF)
			break
		}
	}
	if sse {
		if rest := split.Rest(); len(rest) > 0 {
			w.Write(rest)
			rc.Flush()
			if split.RestEnds() { // else cut short: clients discard it, so it is not metered
				m.Event(provider.Parse(rest))
				a.report(c, m)
			}
			t.add(rest)
		}
	} else {
		if !broken {
			m.Body(whole)
			a.report(c, m)
		}
		if len(whole) > 0 || !broken {
			t.add(whole)
		}
	}
	// Broken off by the agent going away (its turn cancelled) while the
	// run went on, not by the upstream nor by the recording's end (ending:
	// an interrupt, then Close): replay holds it open as the upstream did.
	abandoned := broken && ctx.Err() != nil && !a.ending()
	if a.cfg.Mode == Record && !c.probe {
		a.keep(c, response{Status: resp.StatusCode, ContentType: contentType, Events: a.keptEvents(c, t.events, sse, broken),
			Truncated: broken && !abandoned, Abandoned: abandoned})
	}
	if broken && !abandoned {
		// Cut off by the recording's end, or by the upstream: the agent
		// must not take what it got for the whole answer.
		panic(http.ErrAbortHandler)
	}
	if !broken {
		a.answeredWhole(c, resp.StatusCode)
	}
}

// keep keeps c's exchange for the cassette.
func (a *Attempt) keep(c *call, resp response) {
	ex := &exchange{Request: c.summary(a), Response: resp}
	a.mu.Lock()
	c.kept = ex
	a.mu.Unlock()
}

// keptEvents returns the events of c's answer as the cassette keeps
// them: redacted (an event's JSON data and a JSON body as JSON, see
// redactEvent; the rest as text), the paths replaced by
// their names. The text a stream's events add to each part of the answer
// is redacted and named first as one text (see keptDeltas); cut: the
// answer broke off, and the last event (or the body) may end anywhere
// (see cutEnd).
func (a *Attempt) keptEvents(c *call, events []event, sse, cut bool) []event {
	if sse {
		a.keptDeltas(c, events, cut)
	}
	for i, e := range events {
		b := e.bytes()
		switch {
		case !sse && json.Valid(b):
			b = c.json(a, b)
		case cut && i == len(events)-1:
			b = a.cutEnd(c, b, sse)
		case sse:
			b = a.redactEvent(c, b)
		default:
			b = []byte(c.text(a, string(b)))
		}
		events[i] = newEvent(e.MS, b)
		if events[i].Data != "" {
			events[i].Data = a.paths.name(events[i].Data)
		}
	}
	return events
}

// redactEvent redacts b, an event of c's answer stream: its data, when it
// is one JSON value (provider.EventData), as JSON (c.json: its strings
// decoded, so that an escape neither hides a secret nor spells one, as
// "\nanother" spells a short "nano", whose Marker would cut the escape
// and leave the event no JSON), and the rest of it as text.
func (a *Attempt) redactEvent(c *call, b []byte) []byte {
	data, at, ok := provider.EventData(b)
	if !ok || !json.Valid(data) {
		return []byte(c.text(a, string(b)))
	}
	return slices.Concat([]byte(c.text(a, string(b[:at]))), c.json(a, data), []byte(c.text(a, string(b[at+len(data):]))))
}

// cutEnd redacts b, the last event (sse) or the body of c's answer, which
// broke off there: as text, and its end, which may begin a secret, as
// c.cutEnd does; the string its JSON text ends inside, if it does, is
// decoded for that (an escape, however an encoder wrote it, hides no
// start of a secret) and written back without its closing quote.
func (a *Attempt) cutEnd(c *call, b []byte, sse bool) []byte {
	data, at, ok := b, 0, true
	if sse {
		data, at, ok = provider.EventData(b)
	}
	if ok {
		if start, text, ok := provider.CutString(data); ok {
			if red := c.cutEnd(a, text); red != text {
				b = slices.Concat(b[:at+start], openString(red), b[at+len(data):])
			}
		}
	}
	return []byte(c.cutEnd(a, string(b)))
}

// openString is s as a JSON string without its closing quote: the string
// an answer cut short ends inside.
func openString(s string) []byte {
	q := encode(s)
	return q[:len(q)-1]
}

// keptDeltas redacts and names, in place, the text that events, c's
// answer streamed, add to each part of it (provider.Deltas): a model
// streams a text in pieces cut anywhere, so a secret or a path may be
// split between events, where redacting each event finds nothing. The
// pieces of a part are redacted as one text (call.pieces: a secret split
// between pieces goes in the piece where it starts), their paths named
// (pathNames.pieces), and each goes back into its event's JSON string;
// cut: the answer broke off, its parts' ends may begin a secret, and its
// last event may end anywhere, even inside a piece (provider.CutDeltas).
func (a *Attempt) keptDeltas(c *call, events []event, cut bool) {
	type piece struct {
		event int
		provider.Delta
	}
	var parts [][]piece
	index := make(map[string]int) // parts' index by provider.Delta.Part
	texts := make([]string, len(events))
	for i, e := range events {
		var ds []provider.Delta
		switch {
		case cut && i == len(events)-1:
			// Cut, maybe inside a UTF-8 character: the rest of it is whole.
			texts[i] = string(e.bytes())
			ds = provider.CutDeltas(c.api, []byte(texts[i]))
		case e.Data != "": // else not UTF-8: no JSON
			texts[i] = e.Data
			ds = provider.Deltas(c.api, []byte(e.Data))
		}
		for _, d := range ds {
			k, ok := index[d.Part]
			if !ok {
				k = len(parts)
				index[d.Part] = k
				parts = append(parts, nil)
			}
			parts[k] = append(parts[k], piece{i, d})
		}
	}
	edits := make(map[int][]piece) // by event: the pieces to put back
	for _, part := range parts {
		pieces := make([]string, len(part))
		for j, p := range part {
			pieces[j] = p.Text
		}
		pieces = a.paths.pieces(c.pieces(a, pieces, cut))
		for j, p := range part {
			if pieces[j] != p.Text {
				p.Text = pieces[j]
				edits[p.event] = append(edits[p.event], p)
			}
		}
	}
	for i, ps := range edits {
		b := texts[i]
		slices.SortFunc(ps, func(p, q piece) int { return cmp.Compare(p.Start, q.Start) })
		for _, p := range slices.Backward(ps) { // the last first: the others keep their places
			q := encode(p.Text)
			if p.Cut {
				q = q[:len(q)-1] // left open: see openString
			}
			b = b[:p.Start] + string(q) + b[p.End:]
		}
		events[i] = newEvent(events[i].MS, []byte(b))
	}
}

// tape times the pieces of an answer as they come.
type tape struct {
	now    func() time.Time
	last   time.Time
	events []event
}

// add takes p as the next piece, timed since the previous one.
func (t *tape) add(p []byte) {
	now := t.now()
	t.events = append(t.events, newEvent(now.Sub(t.last).Milliseconds(), p))
	t.last = now
}

// isSSE reports whether a content type is a server-sent event stream.
func isSSE(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

// innerURLErr is err without the URL an *url.Error names (its query may
// hold a key).
func innerURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
