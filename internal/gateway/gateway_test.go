package gateway

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

// TestRecordThenReplay records one streamed exchange of each provider
// API through the gateway, stops the upstream, and replays it: the agent
// gets the upstream's bytes both times, and the same usage is metered.
// (Needs package provider: SSE splitting, API detection, usage.)
func TestRecordThenReplay(t *testing.T) {
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			up := newUpstream(t)
			s := startServer(t)
			cas := filepath.Join(t.TempDir(), "new", "dir", "s.cassette.json")

			rec := open(t, Config{Mode: Record, Cassette: cas})
			route := s.NewRoute(up.URL + sh.base)
			route.Bind(rec)
			got := send(t, "POST", route.URL(), sh.path, sh.request, http.Header{"Authorization": {"Bearer sk-test-0123456789abcdef"}})
			if got.status != 200 || got.body != sh.stream || got.err != nil {
				t.Fatalf("record: agent got %d %q (%v), want 200 and the upstream's stream %q", got.status, got.body, got.err, sh.stream)
			}
			if ct := got.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("record: Content-Type %q, want text/event-stream", ct)
			}
			ups := up.requests()
			path, query, _ := strings.Cut(sh.base+sh.path, "?")
			if len(ups) != 1 || ups[0].Body != sh.request || ups[0].Path != path || ups[0].Query != query {
				t.Fatalf("upstream got %+v, want the agent's request at %s", ups, sh.base+sh.path)
			}
			if h := ups[0].Header; h.Get("Authorization") != "Bearer sk-test-0123456789abcdef" || h.Get("Accept-Encoding") != "" {
				t.Errorf("upstream got headers %v, want the agent's Authorization and no Accept-Encoding", h)
			}
			recSpent := rec.Spent()
			if recSpent.Requests != 1 || recSpent.Usage.Total() == 0 || len(recSpent.Models) != 1 {
				t.Errorf("record: spent %+v, want 1 request with usage and its model", recSpent)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			up.Close()

			play := open(t, Config{Mode: Replay, Cassette: cas})
			route.Bind(play)
			got = send(t, "POST", route.URL(), sh.path, sh.request, http.Header{"Authorization": {"Bearer " + DummyKey}})
			if got.status != 200 || got.body != sh.stream || got.err != nil {
				t.Fatalf("replay: agent got %d %q (%v), want the recorded stream %q", got.status, got.body, got.err, sh.stream)
			}
			if ct := got.header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("replay: Content-Type %q, want text/event-stream", ct)
			}
			if d := play.Divergence(); d != "" || play.Unplayed() != 0 {
				t.Errorf("replay: divergence %q, %d unplayed", d, play.Unplayed())
			}
			if sp := play.Spent(); !reflect.DeepEqual(sp, recSpent) {
				t.Errorf("replay spent %+v, record %+v: want the same", sp, recSpent)
			}
		})
	}
}

// TestStreamsEventByEvent: the agent gets each event as the upstream
// sends it, not when the answer ends. (Needs provider.Splitter.)
func TestStreamsEventByEvent(t *testing.T) {
	s := startServer(t)
	for _, mode := range []Mode{Record, Meter} {
		t.Run(string(mode), func(t *testing.T) {
			up := newUpstream(t)
			up.holdAfterFirst()
			a := open(t, Config{Mode: mode, Cassette: filepath.Join(t.TempDir(), "c.json")})
			route := s.NewRoute(up.URL)
			route.Bind(a)
			req, _ := http.NewRequest("POST", route.URL()+"/v1/messages", strings.NewReader(anthropicRequest))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			<-up.first
			want := strings.SplitAfter(anthropicStream, "\n\n")[0]
			if got := readFirst(t, resp.Body, len(want)); got != want {
				t.Fatalf("first event: %q, want %q", got, want)
			}
			up.hold <- struct{}{}
		})
	}
}

// readFirst reads the first n bytes of an answer the upstream holds after
// them; the test fails if they do not come (the gateway holds them back).
func readFirst(t *testing.T, r io.Reader, n int) string {
	t.Helper()
	buf := make([]byte, n)
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(r, buf)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		return string(buf)
	case <-time.After(30 * time.Second):
		t.Fatal("the first event did not reach the agent while the upstream held the rest")
	}
	return ""
}

// TestReplayMatchesSwappedOrder: requests that come in another order than
// recorded (concurrent ones) each get their own answer.
func TestReplayMatchesSwappedOrder(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.json")
	writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":["main"]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"answer":"main"}`}}}},
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":["title"]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"answer":"title"}`}}}},
	}})
	s := startServer(t)
	route := s.NewRoute("")
	var ev events
	route.Bind(open(t, Config{Mode: Replay, Cassette: cas, OnEvent: ev.add}))
	for _, which := range []string{"title", "main"} {
		got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":["`+which+`"]}`, nil)
		if got.status != 200 || got.body != `{"answer":"`+which+`"}` {
			t.Errorf("%s: got %d %s", which, got.status, got.body)
		}
	}
	if len(ev.list()) != 0 {
		t.Errorf("events %v, want none", ev.list())
	}
}

// TestReplayBackgroundRequestAnyPlace: a request recorded after the
// others (a background request the agent made once its last turn had
// answered) that comes in the middle of the others in the replay gets its
// own answer, and shifts no other request's: each request is matched to
// the first unplayed recorded one it equals, wherever it is.
func TestReplayBackgroundRequestAnyPlace(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.json")
	ex := func(which string) exchange {
		return exchange{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":["` + which + `"]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"answer":"` + which + `"}`}}}}
	}
	writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{ex("one"), ex("two"), ex("three"), ex("title")}})
	s := startServer(t)
	route := s.NewRoute("")
	var ev events
	a := open(t, Config{Mode: Replay, Cassette: cas, OnEvent: ev.add})
	route.Bind(a)
	for _, which := range []string{"one", "title", "two", "three"} {
		got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":["`+which+`"]}`, nil)
		if got.status != 200 || got.body != `{"answer":"`+which+`"}` {
			t.Errorf("%s: got %d %s", which, got.status, got.body)
		}
	}
	if len(ev.list()) != 0 || a.Unplayed() != 0 {
		t.Errorf("events %v, %d unplayed; want none", ev.list(), a.Unplayed())
	}
}

// TestDivergenceNoTurnWaited: a request that matches no recorded one and
// for which the runner cancelled no turn (OnEvent reports false: none was
// running, or the one running had answered without it, as a background
// request after the last turn) is answered with the divergence's error,
// told once, and does not end the replay: the requests after it are
// matched as before, and the attempt has no divergence.
func TestDivergenceNoTurnWaited(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.json")
	writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":["one"]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"n":1}`}}}},
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":["two"]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"n":2}`}}}},
	}})
	s := startServer(t)
	route := s.NewRoute("")
	var ev events // cancelled: false
	a := open(t, Config{Mode: Replay, Cassette: cas, OnEvent: ev.add})
	route.Bind(a)
	if got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":["one"]}`, nil); got.status != 200 {
		t.Fatalf("request 1: %d %s", got.status, got.body)
	}
	stray := send(t, "POST", route.URL(), "/v1/messages", `{"messages":["title"]}`, nil)
	want := `request 2 (POST /v1/messages): messages[0]: recorded "two", received "title"`
	if stray.status != 400 || !strings.Contains(stray.body, "title") || stray.header.Get(CancelledHeader) != "" {
		t.Errorf("request 2: %d %s (%s %q), want 400 naming it, without %[3]s", stray.status, stray.body, CancelledHeader, stray.header.Get(CancelledHeader))
	}
	if got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":["two"]}`, nil); got.status != 200 || got.body != `{"n":2}` {
		t.Errorf("request 3, recorded: %d %s; want its recorded answer", got.status, got.body)
	}
	if evs := ev.list(); len(evs) != 1 || evs[0] != (Event{Diverged, want}) {
		t.Errorf("events %+v, want one Diverged %q", evs, want)
	}
	if d := a.Divergence(); d != "" || a.Unplayed() != 0 {
		t.Errorf("Divergence() = %q, %d unplayed; want none", d, a.Unplayed())
	}
}

// TestDivergence: a request that matches no recorded one is answered with
// an error the agent does not retry, reported once, and, once the runner
// cancelled its turn for it (OnEvent reports true), every later request of
// the attempt gets the same answer.
func TestDivergence(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.json")
	writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":[{"content":"one","role":"user"}]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"n":1}`}}}},
		{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{"messages":[{"content":"one","role":"user"},{"content":"two","role":"user"}]}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"n":2}`}}}},
	}})
	s := startServer(t)
	route := s.NewRoute("")
	ev := events{cancelled: true}
	a := open(t, Config{Mode: Replay, Cassette: cas, OnEvent: ev.add})
	route.Bind(a)
	if got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":[{"role":"user","content":"one"}]}`, nil); got.status != 200 {
		t.Fatalf("request 1: %d %s", got.status, got.body)
	}
	got := send(t, "POST", route.URL(), "/v1/messages", `{"messages":[{"role":"user","content":"one"},{"role":"user","content":"three"}]}`, nil)
	want := `request 2 (POST /v1/messages): messages[1].content: recorded "two", received "three"`
	if got.status != 400 {
		t.Errorf("diverging request: status %d, want 400", got.status)
	}
	if a.Divergence() != want {
		t.Errorf("Divergence() = %q, want %q", a.Divergence(), want)
	}
	// The recorded request now matches, but the replay has diverged.
	again := send(t, "POST", route.URL(), "/v1/messages", `{"messages":[{"role":"user","content":"one"},{"role":"user","content":"two"}]}`, nil)
	if again.status != 400 || again.body != got.body {
		t.Errorf("after the divergence: %d %s, want the divergence's answer %d %s", again.status, again.body, got.status, got.body)
	}
	if evs := ev.list(); len(evs) != 1 || evs[0] != (Event{Diverged, want}) {
		t.Errorf("events %+v, want one Diverged %q", evs, want)
	}
	if a.Unplayed() != 1 {
		t.Errorf("Unplayed() = %d, want 1", a.Unplayed())
	}
}

// TestDivergenceNotInCassette: a request past the recorded ones.
func TestDivergenceNotInCassette(t *testing.T) {
	cas := filepath.Join(t.TempDir(), "c.json")
	writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
		{request{Method: "GET", Path: "/v1/models"}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{"data":[]}`}}}},
	}})
	s := startServer(t)
	route := s.NewRoute("")
	a := open(t, Config{Mode: Replay, Cassette: cas})
	route.Bind(a)
	send(t, "GET", route.URL(), "/v1/models", "", nil)
	send(t, "GET", route.URL(), "/v1/models", "", nil)
	if want := "request 2 (GET /v1/models): not in the cassette (it has 1 request)"; a.Divergence() != want {
		t.Errorf("Divergence() = %q, want %q", a.Divergence(), want)
	}
}

// TestUnknownPath: a path of no known API goes through to the upstream in
// record and meter, is replayed when recorded, and is a divergence in
// replay when not.
func TestUnknownPath(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/models"] = answerSpec{200, "application/json", `{"data":[{"id":"m"}]}`}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	meter := open(t, Config{Mode: Meter})
	route := s.NewRoute(up.URL)
	route.Bind(meter)
	if got := send(t, "GET", route.URL(), "/v1/models?limit=5", "", nil); got.status != 200 || got.body != `{"data":[{"id":"m"}]}` {
		t.Errorf("meter: %d %s", got.status, got.body)
	}
	rec := open(t, Config{Mode: Record, Cassette: cas})
	route.Bind(rec)
	if got := send(t, "GET", route.URL(), "/v1/models?limit=5", "", nil); got.status != 200 || got.body != `{"data":[{"id":"m"}]}` {
		t.Errorf("record: %d %s", got.status, got.body)
	}
	if got := send(t, "GET", route.URL(), "/v1/nothing", "", nil); got.status != 404 {
		t.Errorf("record, upstream 404: %d %s", got.status, got.body)
	}
	if ups := up.requests(); len(ups) != 3 || ups[0].Path != "/v1/models" || ups[0].Query != "limit=5" {
		t.Errorf("upstream got %+v", ups)
	}
	rec.Close()
	up.Close()

	play := open(t, Config{Mode: Replay, Cassette: cas})
	route.Bind(play)
	if got := send(t, "GET", route.URL(), "/v1/models?limit=5", "", nil); got.status != 200 || got.body != `{"data":[{"id":"m"}]}` {
		t.Errorf("replay: %d %s", got.status, got.body)
	}
	if got := send(t, "GET", route.URL(), "/v1/files", "", nil); got.status != 400 {
		t.Errorf("replay of an unrecorded path: %d %s, want a divergence", got.status, got.body)
	}
	if want := `request 2 (GET /v1/files): path: recorded "/v1/nothing", received "/v1/files"`; play.Divergence() != want {
		t.Errorf("Divergence() = %q, want %q", play.Divergence(), want)
	}
}

// TestSecretsNeverKept: credential headers, secret query parameters and
// the secrets given to Redact are not in the cassette, even when the
// upstream echoes them; the cassette replays all the same.
func TestSecretsNeverKept(t *testing.T) {
	const (
		headerKey = "sk-ant-api03-headerkey0123456789"
		bearer    = "bearer-token-0123456789abcdef"
		queryKey  = "AIzaSyQueryKey0123456789abcdef"
		bodyKey   = "ghp_bodysecret0123456789abcdef"
	)
	up := newUpstream(t)
	echo := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"bad key " + headerKey + " " + bodyKey + " " + queryKey + "\"}}\n\n"
	up.answers["/v1/messages"] = answerSpec{200, "text/event-stream", echo}
	up.answers["/v1/complete"] = answerSpec{200, "application/json", `{"echo":"` + bearer + `","more":"` + bodyKey + `"}`}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	red := redact.New(bodyKey)
	rec := open(t, Config{Mode: Record, Cassette: cas, Redact: red})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	body := `{"model":"m","messages":[{"role":"user","content":"use ` + bodyKey + `"}]}`
	hdr := http.Header{"X-Api-Key": {headerKey}, "Authorization": {"Bearer " + bearer}}
	first := send(t, "POST", route.URL(), "/v1/messages?beta=true&key="+queryKey, body, hdr)
	if first.status != 200 || first.body != echo {
		t.Fatalf("record: %d %q, want the upstream's answer untouched", first.status, first.body)
	}
	second := send(t, "POST", route.URL(), "/v1/complete", `{"prompt":"`+bodyKey+`"}`, hdr)
	if second.status != 200 {
		t.Fatalf("record: %d %q", second.status, second.body)
	}
	ups := up.requests()
	if len(ups) != 2 || ups[0].Header.Get("X-Api-Key") != headerKey || ups[0].Query != "beta=true&key="+queryKey {
		t.Fatalf("the upstream did not get the agent's credentials: %+v", ups)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	raw, c := readCassetteFile(t, cas)
	for _, secret := range []string{headerKey, bearer, queryKey, bodyKey} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the cassette holds %q:\n%s", secret, raw)
		}
	}
	if !bytes.Contains(raw, []byte(redact.Marker)) {
		t.Errorf("the cassette has no %s:\n%s", redact.Marker, raw)
	}
	if len(c.Exchanges) != 2 || c.Exchanges[0].Request.Query != "beta=true" || !json.Valid([]byte(c.Exchanges[1].Response.Events[0].Data)) {
		t.Errorf("cassette exchanges %+v", c.Exchanges)
	}

	up.Close()
	play := open(t, Config{Mode: Replay, Cassette: cas, Redact: red})
	route.Bind(play)
	got := send(t, "POST", route.URL(), "/v1/messages?beta=true&key="+DummyKey, body, http.Header{"X-Api-Key": {DummyKey}})
	if got.status != 200 || strings.Contains(got.body, headerKey) || !strings.Contains(got.body, redact.Marker) {
		t.Errorf("replay: %d %q (divergence %q)", got.status, got.body, play.Divergence())
	}
}

// TestMessagesLearnTheKeys: the credentials a request carries, which
// acprun may not have known (an agent's own config), are secrets of the
// run's outputs (Config.Messages) once the request has come, before its
// answer reaches the agent: a provider's error naming the key is
// redacted wherever the agent repeats it.
func TestMessagesLearnTheKeys(t *testing.T) {
	const (
		headerKey = "sk-ant-api03-learntkey0123456789"
		bearer    = "bearer-learnt-0123456789abcdef"
		queryKey  = "AIzaSyLearntKey0123456789abcdef"
	)
	up := newUpstream(t)
	up.answers["/v1/messages"] = answerSpec{401, "application/json", `{"type":"error","error":{"message":"invalid x-api-key"}}`}
	s := startServer(t)
	run := redact.New("ghp_knownsecret0123456789")
	rec := open(t, Config{Mode: Record, Cassette: filepath.Join(t.TempDir(), "c.json"), Redact: redact.New(), Messages: run})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	hdr := http.Header{"X-Api-Key": {headerKey}, "Authorization": {"Bearer " + bearer}}
	if got := send(t, "POST", route.URL(), "/v1/messages?key="+queryKey, `{"model":"m"}`, hdr); got.status != 401 {
		t.Fatalf("record: %d %q, want the upstream's 401", got.status, got.body)
	}
	const text = "bad key " + headerKey + ", Bearer " + bearer + ", ?key=" + queryKey + ", ghp_knownsecret0123456789"
	const want = "bad key [REDACTED], [REDACTED], ?key=[REDACTED], [REDACTED]"
	if got := run.String(text); got != want {
		t.Errorf("the run's redactor after the request: String(%q) = %q; want %q", text, got, want)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEventEscapesKept: a secret is looked for in an event's JSON data
// decoded, never in its escapes: a short value (EDITOR=nano) that an
// escaped line break and the text after it spell ("\nanother") is no
// secret there, and the event is kept as the provider sent it, valid
// JSON whose text replays as recorded.
func TestEventEscapesKept(t *testing.T) {
	const text = "first line\nanother line"
	data, _ := json.Marshal(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": text}})
	event := "event: content_block_delta\ndata: " + string(data) + "\n\n"
	up := newUpstream(t)
	up.answers["/v1/messages"] = answerSpec{200, "text/event-stream", event}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	rec := open(t, Config{Mode: Record, Cassette: cas, Redact: redact.New("nano")})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	if got := send(t, "POST", route.URL(), "/v1/messages", `{"model":"m"}`, nil); got.status != 200 || got.body != event {
		t.Fatalf("record: %d %q, want the upstream's answer", got.status, got.body)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	raw, c := readCassetteFile(t, cas)
	if len(c.Exchanges) != 1 || len(c.Exchanges[0].Response.Events) != 1 || c.Exchanges[0].Response.Events[0].Data != event {
		t.Errorf("the cassette keeps the event otherwise; want it as sent, %q:\n%s", event, raw)
	}
}

// TestAdmitRefuses: a request Admit refuses gets the provider's rate
// limit answer, is reported, is not counted, and never goes upstream.
func TestAdmitRefuses(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/messages"] = answerSpec{200, "application/json", `{}`}
	up.answers["/v1/x"] = answerSpec{200, "application/json", `{}`}
	s := startServer(t)
	for _, mode := range []Mode{Meter, Record, Replay} {
		t.Run(string(mode), func(t *testing.T) {
			var ev events
			var asked []Spent
			cas := filepath.Join(t.TempDir(), "c.json")
			writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
				{request{Method: "POST", Path: "/v1/messages", Body: json.RawMessage(`{}`)}, response{Status: 200, ContentType: "application/json", Events: []event{{Data: `{}`}}}},
			}})
			a := open(t, Config{Mode: mode, Cassette: cas, OnEvent: ev.add, Admit: func(s Spent) string {
				asked = append(asked, s)
				if s.Requests >= 1 {
					return "budget: 1 request spent of 1"
				}
				return ""
			}})
			route := s.NewRoute(up.URL)
			route.Bind(a)
			before := len(up.requests())
			if got := send(t, "POST", route.URL(), "/v1/messages", `{}`, nil); got.status != 200 {
				t.Fatalf("first request: %d %s", got.status, got.body)
			}
			if got := send(t, "POST", route.URL(), "/v1/messages", `{}`, nil); got.status != 429 {
				t.Errorf("refused request: %d %s, want 429", got.status, got.body)
			}
			if evs := ev.list(); len(evs) != 1 || evs[0] != (Event{Refused, "budget: 1 request spent of 1"}) {
				t.Errorf("events %+v", evs)
			}
			if sp := a.Spent(); sp.Requests != 1 {
				t.Errorf("Spent().Requests = %d, want 1", sp.Requests)
			}
			if len(asked) != 2 || asked[0].Requests != 0 || asked[1].Requests != 1 {
				t.Errorf("Admit was asked with %+v", asked)
			}
			wantUp := 1
			if mode == Replay {
				wantUp = 0
			}
			if n := len(up.requests()) - before; n != wantUp {
				t.Errorf("the upstream got %d requests, want %d", n, wantUp)
			}
			// Not model requests: a HEAD (a connectivity check) and a path
			// of no provider API go by uncounted, Admit not asked.
			if got := send(t, "HEAD", route.URL(), "", "", nil); got.status != 200 && mode == Replay {
				t.Errorf("HEAD in replay: %d, want 200", got.status)
			}
			if got := send(t, "POST", route.URL(), "/v1/x", `{}`, nil); mode != Replay && got.status != 200 {
				t.Errorf("unknown path: %d %s, want it passed through", got.status, got.body)
			}
			if sp := a.Spent(); sp.Requests != 1 || len(asked) != 2 {
				t.Errorf("after a HEAD and an unknown path: Spent().Requests = %d, Admit asked %d times; want 1, 2", sp.Requests, len(asked))
			}
		})
	}
}

// TestCloseWritesCassette: Close in record writes a version 1 cassette,
// creating its directory, leaving no temporary file; in meter it writes
// nothing.
func TestCloseWritesCassette(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{201, "application/json", `{"ok":true}`}
	s := startServer(t)
	dir := filepath.Join(t.TempDir(), "cassettes")
	cas := filepath.Join(dir, "deep", "s.cassette.json")
	a := open(t, Config{Mode: Record, Cassette: cas})
	route := s.NewRoute(up.URL)
	route.Bind(a)
	send(t, "POST", route.URL(), "/v1/x?a=1", `{"b":[1,2.50],"a":"x"}`, nil)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	raw, c := readCassetteFile(t, cas)
	var generic map[string]any
	json.Unmarshal(raw, &generic)
	if generic["version"] != 1.0 {
		t.Errorf("version %v, want 1", generic["version"])
	}
	var compact bytes.Buffer
	json.Compact(&compact, c.Exchanges[0].Request.Body)
	c.Exchanges[0].Request.Body = compact.Bytes()
	want := []exchange{{
		request{Method: "POST", Path: "/v1/x", Query: "a=1", Body: json.RawMessage(`{"a":"x","b":[1,2.50]}`)},
		response{Status: 201, ContentType: "application/json", Events: c.Exchanges[0].Response.Events[:1]},
	}}
	if !reflect.DeepEqual(c.Exchanges, want) || c.Exchanges[0].Response.Events[0].Data != `{"ok":true}` {
		t.Errorf("exchanges %+v, want %+v", c.Exchanges, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(cas))
	if len(entries) != 1 {
		t.Errorf("the cassette's directory holds %v, want the cassette alone", entries)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if got := send(t, "POST", route.URL(), "/v1/x", `{}`, nil); got.status != 503 {
		t.Errorf("request after Close: %d %s, want 503", got.status, got.body)
	}

	m := open(t, Config{Mode: Meter, Cassette: filepath.Join(dir, "meter.json")})
	m.Close()
	if _, err := os.Stat(filepath.Join(dir, "meter.json")); !os.IsNotExist(err) {
		t.Errorf("meter wrote a cassette: %v", err)
	}
}

// TestCutShortWritesAside: the recording of an attempt cut short goes
// beside the cassette (PartialSuffix), which keeps what it held.
func TestCutShortWritesAside(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{200, "application/json", `{"ok":true}`}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "s.cassette.json")
	old := &cassette{Version: 1, Exchanges: []exchange{{Request: request{Method: "POST", Path: "/v1/old"}, Response: response{Status: 200}}}}
	writeCassetteFile(t, cas, old)
	before, _ := readCassetteFile(t, cas)
	a := open(t, Config{Mode: Record, Cassette: cas})
	route := s.NewRoute(up.URL)
	route.Bind(a)
	send(t, "POST", route.URL(), "/v1/x", `{}`, nil)
	a.CutShort()
	if got, want := a.Written(), cas+PartialSuffix; got != want {
		t.Errorf("Written() = %q, want %q", got, want)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if after, _ := readCassetteFile(t, cas); !bytes.Equal(after, before) {
		t.Errorf("the cassette was replaced:\n%s", after)
	}
	if _, c := readCassetteFile(t, cas+PartialSuffix); len(c.Exchanges) != 1 || c.Exchanges[0].Request.Path != "/v1/x" {
		t.Errorf("the partial recording holds %+v, want the request made", c.Exchanges)
	}
}

// TestCloseCutsOffRequests: Close ends the requests in flight (a
// streaming answer breaks off, so the agent sees an error), and the
// cassette keeps what came, marked truncated.
// (Needs provider.Splitter.)
func TestCloseCutsOffRequests(t *testing.T) {
	up := newUpstream(t)
	up.holdAfterFirst()
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	a := open(t, Config{Mode: Record, Cassette: cas})
	route := s.NewRoute(up.URL)
	route.Bind(a)
	resp, err := http.Post(route.URL()+"/v1/messages", "application/json", strings.NewReader(anthropicRequest))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := strings.SplitAfter(anthropicStream, "\n\n")[0]
	if got := readFirst(t, resp.Body, len(first)); got != first {
		t.Fatalf("first event %q, want %q", got, first)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	<-up.gone // the upstream request was cancelled
	if rest, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("the agent read a whole answer, ending %q, from a cut-off stream", rest)
	}
	_, c := readCassetteFile(t, cas)
	if len(c.Exchanges) != 1 || !c.Exchanges[0].Response.Truncated || len(c.Exchanges[0].Response.Events) != 1 {
		t.Errorf("cassette exchanges %+v, want one truncated after its first event", c.Exchanges)
	}
}

// TestAgentGoneCancelsUpstream: when the agent drops its request, the
// upstream request is cancelled.
func TestAgentGoneCancelsUpstream(t *testing.T) {
	up := newUpstream(t)
	up.holdAfterFirst()
	s := startServer(t)
	a := open(t, Config{Mode: Meter})
	route := s.NewRoute(up.URL)
	route.Bind(a)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", route.URL()+"/v1/messages", strings.NewReader(anthropicRequest))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-up.first
	cancel()
	resp.Body.Close()
	<-up.gone
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWorkspacesMatch: the workspace path in a request is kept as its
// name, so a cassette recorded in one workspace replays in another, and
// the answers replayed name the new workspace.
func TestWorkspacesMatch(t *testing.T) {
	wsA, wsB := "/tmp/acprun-ws-1234/work", "/home/ci/acprun-ws-9876/work"
	answer := func(ws string) string {
		return `{"tool":{"command":"go test ./...","cwd":"` + ws + `"},"note":"see ` + ws + `/main.go"}`
	}
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{200, "application/json", answer(wsA)}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	body := func(ws string) string {
		return `{"messages":[{"role":"user","content":"edit ` + ws + `/main.go and ` + ws + `."}],"cwd":"` + ws + `"}`
	}
	rec := open(t, Config{Mode: Record, Cassette: cas, Paths: map[string][]string{"<workspace>": {wsA}, "<tmp>": {"/tmp"}}})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	if got := send(t, "POST", route.URL(), "/v1/x", body(wsA), nil); got.body != answer(wsA) {
		t.Errorf("record: the agent got %s", got.body)
	}
	rec.Close()
	raw, _ := readCassetteFile(t, cas)
	if bytes.Contains(raw, []byte(wsA)) || !bytes.Contains(raw, []byte(`edit <workspace>/main.go and <workspace>.`)) || !bytes.Contains(raw, []byte(`see <workspace>/main.go`)) {
		t.Errorf("cassette:\n%s", raw)
	}
	play := open(t, Config{Mode: Replay, Cassette: cas, Paths: map[string][]string{"<workspace>": {wsB}, "<home>": {"/home/ci"}, "<tmp>": {"/var/tmp"}}})
	route.Bind(play)
	if got := send(t, "POST", route.URL(), "/v1/x", body(wsB), nil); got.status != 200 || got.body != answer(wsB) {
		t.Errorf("replay in another workspace: %d %s (%s), want %s", got.status, got.body, play.Divergence(), answer(wsB))
	}
}

// TestSpent: usage summed over requests, priced per million tokens,
// models in first-use order; a request of a model with no price is
// counted, not priced: its model is in Unpriced, and the priced ones'
// cost is kept.
// (Needs provider: Detect, Model, Meter.)
func TestSpent(t *testing.T) {
	up := newUpstream(t)
	s := startServer(t)
	prices := map[string]Price{"claude-sonnet-4-5-20250929": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	a := open(t, Config{Mode: Meter, Prices: prices})
	route := s.NewRoute(up.URL)
	route.Bind(a)
	if sp := a.Spent(); sp.Requests != 0 || sp.Priced != 0 || sp.Unpriced != nil || sp.Cost != 0 {
		t.Errorf("before any request: %+v", sp)
	}
	send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil)
	send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil)
	sp := a.Spent()
	wantUsage := Usage{Input: 20, Output: 10, CacheRead: 6, CacheWrite: 8}
	wantCost := (20*3 + 10*15 + 6*0.3 + 8*3.75) / 1e6
	if sp.Requests != 2 || sp.Usage != wantUsage || !near(sp.Cost, wantCost) || sp.Priced != 2 || sp.Unpriced != nil || !reflect.DeepEqual(sp.Models, []string{"claude-sonnet-4-5-20250929"}) {
		t.Errorf("spent %+v, want 2 requests, usage %+v, cost %g, priced, one model", sp, wantUsage, wantCost)
	}
	// A whole JSON answer, not streamed.
	whole := newUpstream(t)
	whole.answers["/v1/messages"] = answerSpec{200, "application/json",
		`{"id":"msg_02","type":"message","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Hi"}],"usage":{"input_tokens":7,"output_tokens":2}}`}
	wr := s.NewRoute(whole.URL)
	wr.Bind(a)
	send(t, "POST", wr.URL(), "/v1/messages", strings.Replace(anthropicRequest, `"stream":true`, `"stream":false`, 1), nil)
	sp = a.Spent()
	wantUsage.Input, wantUsage.Output = 27, 12
	wantCost += (7*3 + 2*15) / 1e6
	if sp.Requests != 3 || sp.Usage != wantUsage || !near(sp.Cost, wantCost) || sp.Priced != 3 {
		t.Errorf("after a whole answer: spent %+v, want usage %+v, cost %g", sp, wantUsage, wantCost)
	}

	gem := s.NewRoute(up.URL)
	gem.Bind(a)
	send(t, "POST", gem.URL(), shapes[3].path, geminiRequest, nil)
	sp = a.Spent()
	if sp.Requests != 4 || sp.Priced != 3 || !reflect.DeepEqual(sp.Unpriced, []string{"gemini-2.5-pro"}) || !near(sp.Cost, wantCost) ||
		!reflect.DeepEqual(sp.Models, []string{"claude-sonnet-4-5-20250929", "gemini-2.5-pro"}) {
		t.Errorf("spent %+v, want 4 requests, 3 priced, gemini-2.5-pro unpriced, the cost so far, two models", sp)
	}
	// The priced requests after it still count.
	send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil)
	send(t, "POST", gem.URL(), shapes[3].path, geminiRequest, nil)
	sp = a.Spent()
	wantCost += (10*3 + 5*15 + 3*0.3 + 4*3.75) / 1e6
	if sp.Requests != 6 || sp.Priced != 4 || !reflect.DeepEqual(sp.Unpriced, []string{"gemini-2.5-pro"}) || !near(sp.Cost, wantCost) {
		t.Errorf("spent %+v, want 6 requests, 4 priced costing %g, gemini-2.5-pro unpriced once", sp, wantCost)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

// TestRefusalSaysCancelled: a refusal or a divergence whose turn the
// runner cancelled before the answer (OnEvent reports it) carries
// CancelledHeader, so that the agent can take it for that session/cancel;
// one whose turn was not cancelled (between turns), and the answers after
// a divergence, which are told to no one, do not. A divergence between
// turns does not end the replay: the next request that matches none is
// told too.
func TestRefusalSaysCancelled(t *testing.T) {
	s := startServer(t)
	for _, tt := range []struct {
		name      string
		mode      Mode
		cancelled bool
		status    int
	}{
		{"refused, turn cancelled", Meter, true, 429},
		{"refused, between turns", Meter, false, 429},
		{"diverged, turn cancelled", Replay, true, 400},
		{"diverged, between turns", Replay, false, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cas := filepath.Join(t.TempDir(), "c.json")
			writeCassetteFile(t, cas, &cassette{Version: 1})
			ev := &events{cancelled: tt.cancelled}
			cfg := Config{Mode: tt.mode, Cassette: cas, OnEvent: ev.add}
			if tt.mode == Meter {
				cfg.Admit = func(Spent) string { return "budget: none left" }
			}
			route := s.NewRoute("http://127.0.0.1:1") // never reached: every request is refused
			route.Bind(open(t, cfg))
			want := ""
			if tt.cancelled {
				want = "session/cancel"
			}
			got := send(t, "POST", route.URL(), "/v1/messages", `{}`, nil)
			if got.status != tt.status || got.header.Get(CancelledHeader) != want {
				t.Errorf("answer %d, %s %q; want %d with %q", got.status, CancelledHeader, got.header.Get(CancelledHeader), tt.status, want)
			}
			if tt.mode == Replay {
				again := send(t, "POST", route.URL(), "/v1/messages", `{}`, nil)
				if again.status != 400 || again.header.Get(CancelledHeader) != "" {
					t.Errorf("after the divergence: %d, %s %q; want 400 without it", again.status, CancelledHeader, again.header.Get(CancelledHeader))
				}
			}
			told := 1
			if tt.mode == Replay && !tt.cancelled {
				told = 2
			}
			if n := len(ev.list()); n != told {
				t.Errorf("%d events, want %d", n, told)
			}
		})
	}
}

// TestSecretsWithDatesNeverKept: a secret holding a date, a time or a
// UUID (an Azure SAS token, a key with a UUID in it) is redacted whole
// before the request is normalised, so that no part of it is kept; a
// secret inside a path the cassette names (the workspace's) still lets
// the path be named, and the recording replays.
func TestSecretsWithDatesNeverKept(t *testing.T) {
	const (
		sas  = "sv=2022-11-02&ss=b&se=2030-12-31T23:59:59Z&sig=Zm9vYmFyU2VjcmV0U2lnbmF0dXJlMTIz"
		uuid = "key-6c1e5a0e-6d38-4f5e-9f0c-1b2f8f2f6d11-Zm9vYmFyVXVpZA"
		word = "sesame"
	)
	up := newUpstream(t)
	up.answers["/v1/x"] = answerSpec{200, "application/json", `{"echo":"` + sas + `"}`}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	red := redact.New(sas, uuid, word)
	ws := "/tmp/acprun-sesame-1234/work"
	body := func(ws string) string {
		return `{"messages":[{"role":"user","content":"token ` + sas + ` and ` + uuid + ` in ` + ws + `/main.go"}]}`
	}
	rec := open(t, Config{Mode: Record, Cassette: cas, Redact: red, Paths: map[string][]string{"<workspace>": {ws}}})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	if got := send(t, "POST", route.URL(), "/v1/x", body(ws), nil); got.status != 200 {
		t.Fatalf("record: %d %s", got.status, got.body)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := readCassetteFile(t, cas)
	for _, part := range []string{"Zm9vYmFy", "sig=", "ss=b", "key-", word} {
		if bytes.Contains(raw, []byte(part)) {
			t.Errorf("the cassette holds %q of a secret:\n%s", part, raw)
		}
	}
	if want := `"token [REDACTED] and [REDACTED] in <workspace>/main.go"`; !bytes.Contains(raw, []byte(want)) {
		t.Errorf("the cassette does not hold %s:\n%s", want, raw)
	}

	up.Close()
	ws2 := "/tmp/acprun-sesame-9876/work"
	play := open(t, Config{Mode: Replay, Cassette: cas, Redact: red, Paths: map[string][]string{"<workspace>": {ws2}}})
	route.Bind(play)
	if got := send(t, "POST", route.URL(), "/v1/x", body(ws2), nil); got.status != 200 || play.Divergence() != "" {
		t.Errorf("replay in another workspace: %d %s (%s)", got.status, got.body, play.Divergence())
	}
}

// TestReplaySecretsMatchOnlySecrets: a secret recorded as [REDACTED]
// matches a secret acprun redacts in the request replayed, even one of
// another value (the replaying machine's token), and no other text: a
// prompt or model changed where the recording had a secret (an env value
// such as SUITE=kestrel, ANTHROPIC_MODEL=claude-test) is a divergence.
func TestReplaySecretsMatchOnlySecrets(t *testing.T) {
	up := newUpstream(t)
	up.answers["/v1/messages"] = answerSpec{200, "application/json", `{"ok":true}`}
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	body := func(model, prompt string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"` + prompt + `"}]}`
	}
	rec := open(t, Config{Mode: Record, Cassette: cas, Redact: redact.New("kestrel", "claude-test", "ghp_RecordingMachine0123")})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	if got := send(t, "POST", route.URL(), "/v1/messages", body("claude-test", "Run the kestrel suite with ghp_RecordingMachine0123."), nil); got.status != 200 {
		t.Fatalf("record: %d %s", got.status, got.body)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	up.Close()
	red := redact.New("kestrel", "claude-test", "ghp_ReplayingMachine4567")
	for _, c := range []struct{ name, model, prompt, want string }{
		{"same", "claude-test", "Run the kestrel suite with ghp_ReplayingMachine4567.", ""},
		{"prompt changed", "claude-test", "Run the migration that drops every table, then the kestrel suite with ghp_ReplayingMachine4567.",
			`request 1 (POST /v1/messages): messages[0].content: recorded "Run the [REDACTED] suite with [REDACTED].", received "Run the migration that drops every table, then the [REDACTED] suite with [REDACT…"`},
		{"model changed", "claude-opus", "Run the kestrel suite with ghp_ReplayingMachine4567.",
			`request 1 (POST /v1/messages): model: recorded "[REDACTED]", received "claude-opus"`},
	} {
		play := open(t, Config{Mode: Replay, Cassette: cas, Redact: red})
		route.Bind(play)
		send(t, "POST", route.URL(), "/v1/messages", body(c.model, c.prompt), nil)
		if d := play.Divergence(); d != c.want {
			t.Errorf("%s: divergence %q, want %q", c.name, d, c.want)
		}
	}
}

// TestUnendedLastEvent: a stream whose last event has no blank line after
// it ends in the middle of that event, which clients discard: neither
// record nor replay meters it, and both count the same usage; a last
// event whose blank line ends in a lone "\r" is whole, and both meter it.
func TestUnendedLastEvent(t *testing.T) {
	cut := strings.TrimSuffix(anthropicStream, "event: message_stop\n"+`data: {"type":"message_stop"}`+"\n\n")
	for _, c := range []struct {
		name   string
		stream string
		output int64
	}{
		{"no blank line", strings.TrimSuffix(cut, "\n"), 1},
		{"blank line of a lone CR", strings.TrimSuffix(cut, "\n\n") + "\r\r", 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := newUpstream(t)
			up.answers["/v1/messages"] = answerSpec{200, "text/event-stream", c.stream}
			s := startServer(t)
			cas := filepath.Join(t.TempDir(), "c.json")
			rec := open(t, Config{Mode: Record, Cassette: cas})
			route := s.NewRoute(up.URL)
			route.Bind(rec)
			if got := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil); got.body != c.stream {
				t.Fatalf("record: the agent got %q", got.body)
			}
			recSpent := rec.Spent()
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			play := open(t, Config{Mode: Replay, Cassette: cas})
			route.Bind(play)
			if got := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil); got.body != c.stream {
				t.Fatalf("replay: the agent got %q", got.body)
			}
			if sp := play.Spent(); recSpent.Usage.Output != c.output || !reflect.DeepEqual(sp, recSpent) {
				t.Errorf("record spent %+v, replay %+v: want the same, %d output tokens", recSpent, sp, c.output)
			}
		})
	}
}

// TestCloseKeepsARequestNotAnswered: a request whose answer had not
// started when the attempt closed is kept abandoned, as one the agent went
// away from is: the two happen together at a run's end (an interrupt), and
// which the request's handler sees first must not decide the cassette.
func TestCloseKeepsARequestNotAnswered(t *testing.T) {
	arrived := make(chan struct{})
	var once sync.Once
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		once.Do(func() { close(arrived) })
		<-r.Context().Done() // never answers
	}))
	defer up.Close()
	s := startServer(t)
	cas := filepath.Join(t.TempDir(), "c.json")
	rec := open(t, Config{Mode: Record, Cassette: cas})
	route := s.NewRoute(up.URL)
	route.Bind(rec)
	got := make(chan int, 1)
	go func() {
		resp, err := http.Post(route.URL()+"/v1/messages", "application/json", strings.NewReader(`{"messages":["x"]}`))
		if err != nil {
			got <- 0
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-arrived
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if status := <-got; status != http.StatusServiceUnavailable {
		t.Errorf("the agent got %d, want 503 (the gateway's end)", status)
	}
	_, c := readCassetteFile(t, cas)
	if len(c.Exchanges) != 1 || c.Exchanges[0].Response.Status != 0 || !c.Exchanges[0].Response.Abandoned {
		t.Errorf("the cassette keeps %+v, want the request, abandoned before its answer", c.Exchanges)
	}
}

// TestInterruptKeepsAStreamingAnswerTruncated: an answer whose headers
// and first events were relayed when the run was stopped (an interrupt:
// the context Open was given ends, acprun cancels the agent's turn, then
// closes the attempt) is kept truncated, as far as it went, whichever end
// the request's handler sees let go first: the agent's (it aborts its
// request on the cancel) or the gateway's (Close). One the agent let go
// of while the run went on (its turn cancelled by a timeout) is kept
// abandoned.
func TestInterruptKeepsAStreamingAnswerTruncated(t *testing.T) {
	first := strings.SplitAfter(anthropicStream, "\n\n")[0]
	s := startServer(t)
	for _, tc := range []struct {
		name                  string
		interrupt, agentFirst bool
		truncated, abandoned  bool
	}{
		{"interrupt/the agent's end first", true, true, true, false},
		{"interrupt/the gateway's end first", true, false, true, false},
		{"no interrupt/the agent's end", false, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The upstream stalls after its first event, served in the
			// process (handlerTransport): when its write returns, the
			// gateway has read it.
			written := make(chan struct{})
			upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, first)
				w.(http.Flusher).Flush()
				close(written)
				<-r.Context().Done()
			})
			run, stop := context.WithCancel(t.Context())
			defer stop()
			cas := filepath.Join(t.TempDir(), "c.json")
			a, err := Open(run, Config{Mode: Record, Cassette: cas})
			if err != nil {
				t.Fatal(err)
			}
			a.client = &http.Client{Transport: handlerTransport{upstream}}
			route := s.NewRoute("http://upstream.invalid")
			route.Bind(a)
			agent, leave := context.WithCancel(t.Context())
			defer leave()
			done := make(chan any, 1)
			go func() {
				defer func() { done <- recover() }()
				s.serveHTTP(newTimedWriter(), httptest.NewRequest("POST", "/r/"+route.id+"/v1/messages", strings.NewReader(anthropicRequest)).WithContext(agent))
			}()
			<-written
			if tc.interrupt {
				stop()
				a.CutShort()
				cas += PartialSuffix
			}
			if tc.agentFirst {
				leave()
				<-done // the handler has kept what it saw
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if !tc.agentFirst {
				leave()
				<-done
			}
			_, c := readCassetteFile(t, cas)
			if len(c.Exchanges) != 1 {
				t.Fatalf("the cassette keeps %d exchanges, want 1", len(c.Exchanges))
			}
			r := c.Exchanges[0].Response
			if r.Status != http.StatusOK || r.Truncated != tc.truncated || r.Abandoned != tc.abandoned {
				t.Errorf("the answer is kept with status %d, truncated %v, abandoned %v; want 200, %v, %v", r.Status, r.Truncated, r.Abandoned, tc.truncated, tc.abandoned)
			}
			if len(r.Events) != 1 || r.Events[0].Data != first {
				t.Errorf("the answer kept is %+v, want its first event", r.Events)
			}
		})
	}
}
