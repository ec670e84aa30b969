package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/redact"
)

// cutAnswer is an answer that breaks off inside a secret the model
// repeats, as the upstream sent it up to the cut.
type cutAnswer struct {
	name        string
	secret      string
	contentType string
	body        string
	leaks       []string // what the cassette must not hold
	wantEnd     string   // how the answer kept must end
}

// cutAnswers are answers cut inside a secret: in the last event of a
// stream (the secret written plainly, JSON-escaped in the ways encoders
// write it, cut inside an escape or a UTF-8 character, or begun in the
// event before), or in a JSON body.
func cutAnswers() []cutAnswer {
	const (
		plain    = "sk-live-AbcDef12345"
		quoted   = `pa"ss\word-AbcDef`
		nonASCII = "pässwörd-AbcDef12"
		start    = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
		delta = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\""
		body  = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"`
	)
	var out []cutAnswer
	for _, v := range []struct {
		name, secret, frag string
		leaks              []string
	}{
		{"plain", plain, "sk-live-AbcDef", []string{"sk-live-AbcDef"}},
		{"quote and backslash escaped", quoted, `pa\"ss\\word-Ab`, []string{`pa\"ss`, `ss\\word`}},
		{"non-ASCII as \\u escapes", nonASCII, `p\u00e4ssw\u00f6rd-Ab`, []string{`p\u00e4ssw`, "rd-Ab"}},
		{"upper-case \\u escapes", nonASCII, `p\u00E4ssw\u00F6rd-Ab`, []string{`p\u00E4ssw`, "rd-Ab"}},
		{"ASCII as \\u escapes", plain, `sk-live-\u0041bcDef`, []string{"sk-live-", "bcDef"}},
		{"cut inside an escape", nonASCII, `p\u00e4ssw\u00`, []string{`p\u00e4ssw`}},
		{"cut inside a UTF-8 character", nonASCII, "pässw\xc3", []string{"pässw"}},
	} {
		out = append(out,
			cutAnswer{"event/" + v.name, v.secret, "text/event-stream", start + delta + "key: " + v.frag, v.leaks, "key: " + redact.Marker},
			cutAnswer{"body/" + v.name, v.secret, "application/json", body + "key: " + v.frag, v.leaks, "key: " + redact.Marker})
	}
	return append(out, cutAnswer{"event/begun in the event before", plain, "text/event-stream",
		start + delta + "key: sk-li\"}}\n\n" + delta + "ve-AbcDef", []string{"sk-li", "ve-AbcDef"}, `"text":"`})
}

// TestCutAnswerKeepsNoStartOfSecret: of an answer that broke off in the
// middle of a secret, whether the upstream broke the connection, the
// attempt was cut short (Ctrl-C: its recording goes to the .partial file)
// or the agent went away, the cassette keeps no start of the secret, in
// a stream's last event or in a JSON body: what may begin one, 4 bytes
// or more, is [REDACTED], however the answer's JSON escapes it.
func TestCutAnswerKeepsNoStartOfSecret(t *testing.T) {
	s := startServer(t)
	for _, how := range []string{"upstream breaks", "cut short", "agent gone"} {
		for _, ans := range cutAnswers() {
			t.Run(how+"/"+ans.name, func(t *testing.T) {
				// The upstream breaks the connection after the answer's
				// start; or it stalls, served in the process (handlerTransport)
				// so that when its write returns, the gateway has read it all.
				written := make(chan struct{})
				upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					w.Header().Set("Content-Type", ans.contentType)
					io.WriteString(w, ans.body)
					w.(http.Flusher).Flush()
					if how == "upstream breaks" {
						panic(http.ErrAbortHandler)
					}
					close(written)
					<-r.Context().Done()
				})
				cas := filepath.Join(t.TempDir(), "c.json")
				rec := open(t, Config{Mode: Record, Cassette: cas, Redact: redact.New(ans.secret)})
				route := s.NewRoute("http://upstream.invalid")
				if how == "upstream breaks" {
					up := httptest.NewServer(upstream)
					defer up.Close()
					route = s.NewRoute(up.URL)
				} else {
					rec.client = &http.Client{Transport: handlerTransport{upstream}}
				}
				route.Bind(rec)
				if how == "upstream breaks" {
					if got := send(t, "POST", route.URL(), "/v1/messages", anthropicRequest, nil); got.err == nil || got.body != ans.body {
						t.Errorf("the agent read %q (%v), want %q broken off", got.body, got.err, ans.body)
					}
				} else {
					// The agent's request, served in the process: done
					// when the gateway is done with it.
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					done := make(chan any, 1)
					go func() {
						defer func() { done <- recover() }()
						s.serveHTTP(newTimedWriter(), httptest.NewRequest("POST", "/r/"+route.id+"/v1/messages", strings.NewReader(anthropicRequest)).WithContext(ctx))
					}()
					<-written
					if how == "cut short" {
						rec.CutShort()
						cas += PartialSuffix
					} else {
						cancel()
						<-done
					}
				}
				if err := rec.Close(); err != nil {
					t.Fatal(err)
				}
				_, c := readCassetteFile(t, cas)
				if len(c.Exchanges) != 1 {
					t.Fatalf("cassette: %d exchanges", len(c.Exchanges))
				}
				r := c.Exchanges[0].Response
				if r.Truncated == (how == "agent gone") || r.Abandoned != (how == "agent gone") {
					t.Errorf("the answer kept is truncated %v, abandoned %v", r.Truncated, r.Abandoned)
				}
				var kept strings.Builder
				for _, e := range r.Events {
					kept.Write(e.bytes())
				}
				for _, leak := range ans.leaks {
					if strings.Contains(kept.String(), leak) {
						t.Errorf("the cassette holds %q: %q", leak, kept.String())
					}
				}
				if !strings.HasSuffix(kept.String(), ans.wantEnd) {
					t.Errorf("the answer kept is %q, want it to end in %q", kept.String(), ans.wantEnd)
				}
			})
		}
	}
}
