package mockagent

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/gateway"
	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/yamlnode"
)

// The model step asks a model over HTTP as a real agent's SDK does: it
// sends the API's own request to the base URL its environment names, reads
// the answer (server-sent events or one JSON body) and says the answer's
// text. It is how acprun's model gateway is exercised with the mock agent.

// promptPlaceholder in a model step's prompt is replaced by the turn's
// prompt text.
const promptPlaceholder = "{{prompt}}"

// anthropicVersion is the anthropic-version header the Anthropic SDKs send.
const anthropicVersion = "2023-06-01"

// anthropicMaxTokens is the max_tokens of an Anthropic request (required
// by the API).
const anthropicMaxTokens = 1024

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// modelAPI is a provider API the model step speaks.
type modelAPI struct {
	name   string
	env    string            // the variable holding the base URL, by default
	key    string            // the variable holding the API key, by default
	header string            // the header that carries the key ("Authorization": Bearer)
	fixed  map[string]string // headers every request has
	// request returns the path (after the base URL) and the body of a
	// request for model with prompt.
	request func(model, prompt string, stream bool) (path string, body map[string]any)
	// text returns the answer's text in one streamed event's data, or in
	// the whole JSON answer (whole).
	text func(data []byte, whole bool) string
}

// modelAPIs are the APIs, in the order messages list them.
var modelAPIs = []modelAPI{
	{
		name: "anthropic", env: "ANTHROPIC_BASE_URL", key: "ANTHROPIC_API_KEY", header: "x-api-key",
		fixed: map[string]string{"anthropic-version": anthropicVersion},
		request: func(model, prompt string, stream bool) (string, map[string]any) {
			return "/v1/messages", map[string]any{
				"model": model, "max_tokens": anthropicMaxTokens, "stream": stream,
				"messages": []any{map[string]any{"role": "user", "content": prompt}},
			}
		},
		text: anthropicText,
	},
	{
		name: "openai-chat", env: "OPENAI_BASE_URL", key: "OPENAI_API_KEY", header: "Authorization",
		request: func(model, prompt string, stream bool) (string, map[string]any) {
			body := map[string]any{
				"model": model, "stream": stream,
				"messages": []any{map[string]any{"role": "user", "content": prompt}},
			}
			if stream { // as agents do: without it a stream reports no usage
				body["stream_options"] = map[string]any{"include_usage": true}
			}
			return "/chat/completions", body
		},
		text: chatText,
	},
	{
		name: "openai-responses", env: "OPENAI_BASE_URL", key: "OPENAI_API_KEY", header: "Authorization",
		request: func(model, prompt string, stream bool) (string, map[string]any) {
			return "/responses", map[string]any{"model": model, "stream": stream, "input": prompt}
		},
		text: responsesText,
	},
	{
		name: "gemini", env: "GOOGLE_GEMINI_BASE_URL", key: "GEMINI_API_KEY", header: "x-goog-api-key",
		request: func(model, prompt string, stream bool) (string, map[string]any) {
			path := "/v1beta/models/" + url.PathEscape(model) + ":generateContent"
			if stream {
				path = "/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
			}
			return path, map[string]any{
				"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}}},
			}
		},
		text: func(data []byte, _ bool) string { return geminiText(data) },
	},
}

// modelStep asks a model and says its answer.
type modelStep struct {
	api    *modelAPI
	prompt string // may hold promptPlaceholder
	model  string
	env    string // the variable holding the base URL
	key    string // the variable holding the API key
	stream bool
	show   bool // say the answer's text
}

func (st *modelStep) parse(p *parser, a action) {
	st.stream, st.show = true, true
	given, _ := p.object(a.V, "model", fields{
		"api": func(v *yaml.Node) {
			names := make([]string, len(modelAPIs))
			for i, m := range modelAPIs {
				names[i] = m.name
			}
			if s, ok := p.oneOf(v, "model.api", names...); ok {
				st.api = &modelAPIs[slices.Index(names, s)]
			}
		},
		"prompt": set(&st.prompt, p.str, "model.prompt"),
		"model":  set(&st.model, p.nonEmpty, "model.model"),
		"env":    set(&st.env, p.nonEmpty, "model.env"),
		"key":    set(&st.key, p.nonEmpty, "model.key"),
		"stream": set(&st.stream, p.bool, "model.stream"),
		"show": func(v *yaml.Node) {
			s, _ := p.oneOf(v, "model.show", "text", "none")
			st.show = s != "none"
		},
	})
	if r := yamlnode.Deref(a.V); r.Kind == yaml.MappingNode && (!given["api"] || !given["prompt"] || !given["model"]) {
		p.Errorf(r, "model: api, model and prompt are required")
	}
	if st.api != nil {
		st.env = cmp.Or(st.env, st.api.env)
		st.key = cmp.Or(st.key, st.api.key)
	}
}

func (st *modelStep) play(pl *player) *ending {
	if pl.next != nil {
		// A background request after the turn: made once the client has
		// read the turn's answer (it sent the session's next message), so
		// that it comes after the answer for the client too, every run.
		select {
		case <-pl.next:
		case <-pl.a.ctx.Done():
			return died()
		}
	}
	base := os.Getenv(st.env)
	if base == "" {
		return st.fail("%s is unset: set it to the %s API's base URL (acprun's gateway sets it)", st.env, st.api.name)
	}
	path, body := st.api.request(st.model, strings.ReplaceAll(st.prompt, promptPlaceholder, pl.prompt), st.stream)
	data, _ := json.Marshal(body) // strings, numbers and bools: it cannot fail
	// The request ends with the turn: a cancel aborts it.
	ctx, abort := context.WithCancel(pl.a.ctx)
	defer abort()
	cancelled := pl.cancelled()
	go func() {
		select {
		case <-cancelled:
			abort()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(base, "/")+path, bytes.NewReader(data))
	if err != nil {
		return st.fail("%s: %v", st.env, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if st.stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if key := os.Getenv(st.key); key != "" {
		if st.api.header == "Authorization" {
			key = "Bearer " + key
		}
		req.Header.Set(st.api.header, key)
	}
	for k, v := range st.api.fixed {
		req.Header.Set(k, v)
	}
	text, turnCancelled, err := st.ask(req)
	if turnCancelled && pl.cancelled() != nil {
		// acprun's gateway refused the request once it had sent the turn's
		// session/cancel: the refusal is that cancel's, read first or not,
		// and the turn ends as the script says of a cancel every time.
		pl.run.cancel()
	}
	switch {
	case pl.a.ctx.Err() != nil:
		return died()
	case err != nil && pl.cancelRequested():
		return pl.cancelEnding()
	case err != nil:
		return st.fail("%v", err)
	case st.show && text != "":
		return check(pl.say("%s", text))
	}
	return nil
}

// ask sends the request and returns the answer's text, or the error the
// answer holds and whether that error answer says the client cancelled the
// turn before it (acprun's gateway, gateway.CancelledHeader).
func (st *modelStep) ask(req *http.Request) (string, bool, error) {
	// One connection per request, closed after the answer: nothing
	// outlives the step.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableKeepAlives = true
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // what was read is the message
		return "", resp.Header.Get(gateway.CancelledHeader) != "", fmt.Errorf("%s: %s", resp.Status, errorMessage(b))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", false, fmt.Errorf("reading the answer: %w", err)
		}
		return st.api.text(b, true), false, nil
	}
	var text strings.Builder
	err = readEvents(resp.Body, func(data []byte) error {
		if msg := streamError(data); msg != "" {
			return fmt.Errorf("stream error: %s", msg)
		}
		text.WriteString(st.api.text(data, false))
		return nil
	})
	return text.String(), false, err
}

// fail ends the turn with a JSON-RPC error saying what went wrong.
func (st *modelStep) fail(format string, args ...any) *ending {
	return &ending{err: &rpcError{Code: -32603, Message: "model step: " + st.api.name + ": " + fmt.Sprintf(format, args...)}}
}

// readEvents reads a server-sent event stream and calls each with the data
// of each event (its data lines joined by "\n"); events without data and
// "[DONE]" are skipped.
func readEvents(r io.Reader, each func(data []byte) error) error {
	var sp provider.Splitter
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		events := sp.Feed(buf[:n])
		if errors.Is(err, io.EOF) {
			events = append(events, sp.Rest()) // an event cut short at the end
		}
		for _, e := range events {
			if _, data := provider.Parse(e); data != nil && string(data) != "[DONE]" {
				if err := each(data); err != nil {
					return err
				}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("reading the answer: %w", err)
		}
	}
}

// errorMessage is the message of an error answer: its error.message, or
// the body itself, cut short.
func errorMessage(body []byte) string {
	if msg := streamError(body); msg != "" {
		return msg
	}
	var list []json.RawMessage // Gemini may answer a list
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		if msg := streamError(list[0]); msg != "" {
			return msg
		}
	}
	s := strings.TrimSpace(string(body))
	s = termtext.Cut(s, 200)
	if s == "" {
		return "(no body)"
	}
	return s
}

// streamError is the message of an error the JSON data reports: a
// top-level error object (Anthropic, OpenAI, Gemini), a Responses error
// event or failed response; "" when there is none.
func streamError(data []byte) string {
	var e struct {
		Type     string          `json:"type"`
		Message  string          `json:"message"`
		Error    json.RawMessage `json:"error"`
		Response struct {
			Error json.RawMessage `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(data, &e) != nil {
		return ""
	}
	message := func(raw json.RawMessage) string {
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Message != "" {
			return m.Message
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	switch {
	case e.Type == "error" && e.Message != "":
		return e.Message
	case e.Type == "response.failed":
		return cmp.Or(message(e.Response.Error), "response failed")
	}
	return message(e.Error)
}

// anthropicText is the text of a content_block_delta's text_delta, or of a
// whole message's text blocks.
func anthropicText(data []byte, whole bool) string {
	var m struct {
		Type  string `json:"type"`
		Delta struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"delta"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	if !whole {
		if m.Type == "content_block_delta" && m.Delta.Type == "text_delta" {
			return m.Delta.Text
		}
		return ""
	}
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// chatText is the text of a chunk's first choice's delta, or of a whole
// completion's first choice's message.
func chatText(data []byte, _ bool) string {
	var m struct {
		Choices []struct {
			Delta   struct{ Content string } `json:"delta"`
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &m) != nil || len(m.Choices) == 0 {
		return ""
	}
	return m.Choices[0].Delta.Content + m.Choices[0].Message.Content
}

// responsesText is the text of a response.output_text.delta event, or of a
// whole response's output items.
func responsesText(data []byte, whole bool) string {
	if !whole {
		var e struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
		}
		if json.Unmarshal(data, &e) != nil || e.Type != "response.output_text.delta" {
			return ""
		}
		return e.Delta
	}
	var r struct {
		Output []struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"output"`
	}
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	var b strings.Builder
	for _, o := range r.Output {
		for _, c := range o.Content {
			if c.Type == "output_text" {
				b.WriteString(c.Text)
			}
		}
	}
	return b.String()
}

// geminiText is the text of the first candidate's parts, thoughts aside,
// the same in a streamed event and in a whole answer.
func geminiText(data []byte) string {
	var r struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if json.Unmarshal(data, &r) != nil || len(r.Candidates) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range r.Candidates[0].Content.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
