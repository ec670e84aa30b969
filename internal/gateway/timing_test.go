package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestTiming: record keeps the time between the pieces of an answer;
// replay answers at once, or with Timing at the recorded pace.
func TestTiming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cas := filepath.Join(t.TempDir(), "c.json")
		gaps := []time.Duration{250 * time.Millisecond, 0, 1500 * time.Millisecond}
		pieces := []string{`{"a":`, `1`, `}`}
		slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			for i, p := range pieces {
				time.Sleep(gaps[i])
				io.WriteString(w, p)
			}
		})
		s := newServer()
		route := s.NewRoute("http://upstream.invalid")
		rec := open(t, Config{Mode: Record, Cassette: cas})
		rec.client = &http.Client{Transport: handlerTransport{slow}}
		route.Bind(rec)
		s.serveHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/r/"+route.id+"/v1/x", strings.NewReader(`{}`)))
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		_, c := readCassetteFile(t, cas)
		if len(c.Exchanges) != 1 || len(c.Exchanges[0].Response.Events) != 1 || c.Exchanges[0].Response.Events[0] != (event{MS: 1750, Data: `{"a":1}`}) {
			t.Fatalf("cassette %+v, want one event of 1750 ms", c.Exchanges)
		}

		// Three events, as a stream's would be kept.
		c.Exchanges[0].Response.Events = []event{{MS: 0, Data: `{"a":`}, {MS: 300, Data: `1`}, {MS: 1200, Data: `}`}}
		writeCassetteFile(t, cas, &c)
		for _, timing := range []bool{false, true} {
			play := open(t, Config{Mode: Replay, Cassette: cas, Timing: timing})
			route.Bind(play)
			w := newTimedWriter()
			s.serveHTTP(w, httptest.NewRequest("POST", "/r/"+route.id+"/v1/x", strings.NewReader(`{}`)))
			want := []time.Duration{0, 0, 0}
			if timing {
				want = []time.Duration{0, 300 * time.Millisecond, 1500 * time.Millisecond}
			}
			if w.Code != 200 || w.Body.String() != `{"a":1}` || !reflect.DeepEqual(w.writes, want) {
				t.Errorf("timing %v: %d %q written at %v, want at %v", timing, w.Code, w.Body, w.writes, want)
			}
		}
	})
}

// TestCloseCutsOffTimedReplay: Close ends a replay waiting to send its
// next event.
func TestCloseCutsOffTimedReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cas := filepath.Join(t.TempDir(), "c.json")
		writeCassetteFile(t, cas, &cassette{Version: 1, Exchanges: []exchange{
			{request{Method: "POST", Path: "/v1/x"}, response{Status: 200, ContentType: "application/json", Events: []event{{MS: time.Hour.Milliseconds(), Data: `{}`}}}},
		}})
		s := newServer()
		route := s.NewRoute("")
		play := open(t, Config{Mode: Replay, Cassette: cas, Timing: true})
		route.Bind(play)
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			s.serveHTTP(newTimedWriter(), httptest.NewRequest("POST", "/r/"+route.id+"/v1/x", nil))
		}()
		synctest.Wait()
		start := time.Now()
		play.Close()
		if p := <-done; p != http.ErrAbortHandler {
			t.Errorf("the cut-off answer ended with %v, want the connection broken", p)
		}
		if time.Since(start) != 0 {
			t.Errorf("Close waited %v", time.Since(start))
		}
	})
}

// TestAbandonedAnswerHeld: an answer the agent went away from (its turn
// cancelled while the upstream stalled) is kept as abandoned, with its
// events so far, or none before the headers came; replay holds it open
// there until the agent goes away, as the upstream did, rather than
// breaking it off or finding it not in the cassette; Close then cuts it
// off.
func TestAbandonedAnswerHeld(t *testing.T) {
	first := strings.SplitAfter(anthropicStream, "\n\n")[0]
	for _, headers := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			cas := filepath.Join(t.TempDir(), "c.json")
			stall := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if headers {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, first)
				}
				<-r.Context().Done()
			})
			s := newServer()
			route := s.NewRoute("http://upstream.invalid")
			// serve sends the agent's request; it ends (the handler's
			// panic, nil for none) when the agent goes away (gone), or,
			// with gone nil, when the handler returns.
			serve := func(w http.ResponseWriter, gone chan struct{}) chan any {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan any, 1)
				go func() {
					defer func() { done <- recover() }()
					defer cancel()
					s.serveHTTP(w, httptest.NewRequest("POST", "/r/"+route.id+"/v1/messages", strings.NewReader(anthropicRequest)).WithContext(ctx))
				}()
				go func() {
					if gone != nil {
						<-gone
						cancel()
					}
				}()
				return done
			}
			held := func(what string, done chan any) {
				t.Helper()
				synctest.Wait()
				select {
				case p := <-done:
					t.Fatalf("headers %v: %s: the answer ended (%v) before the agent went away", headers, what, p)
				default:
				}
			}

			rec := open(t, Config{Mode: Record, Cassette: cas})
			rec.client = &http.Client{Transport: handlerTransport{stall}}
			route.Bind(rec)
			gone := make(chan struct{})
			done := serve(newTimedWriter(), gone)
			held("record", done)
			close(gone)
			if p := <-done; p != nil {
				t.Errorf("headers %v: record: the answer the agent left ended with %v", headers, p)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			_, c := readCassetteFile(t, cas)
			want := response{Events: []event{}, Abandoned: true}
			if headers {
				want = response{Status: 200, ContentType: "text/event-stream", Events: []event{{Data: first}}, Abandoned: true}
			}
			if len(c.Exchanges) != 1 || !reflect.DeepEqual(c.Exchanges[0].Response, want) {
				t.Fatalf("headers %v: cassette %+v, want one answer %+v", headers, c.Exchanges, want)
			}

			play := open(t, Config{Mode: Replay, Cassette: cas})
			route.Bind(play)
			gone = make(chan struct{})
			w := newTimedWriter()
			done = serve(w, gone)
			held("replay", done)
			close(gone)
			if p := <-done; p != nil || play.Divergence() != "" {
				t.Errorf("headers %v: replay ended with %v, divergence %q", headers, p, play.Divergence())
			}
			if headers && (w.Code != 200 || w.Body.String() != first) {
				t.Errorf("headers %v: replay answered %d %q, want %q held open", headers, w.Code, w.Body, first)
			}
			if !headers && len(w.pieces) != 0 {
				t.Errorf("headers %v: replay answered %q before the agent went away", headers, w.pieces)
			}

			play = open(t, Config{Mode: Replay, Cassette: cas})
			route.Bind(play)
			w = newTimedWriter()
			done = serve(w, nil)
			held("replay, then Close", done)
			play.Close()
			if p := <-done; headers && p != http.ErrAbortHandler || !headers && (p != nil || w.Code != http.StatusServiceUnavailable) {
				t.Errorf("headers %v: the held answer cut off by Close ended with %v, status %d", headers, p, w.Code)
			}
		})
	}
}
