package replay

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/pathtext"
	"github.com/acprun/acprun/internal/redact"
)

// rewriter moves what the recording says into the replay's world (out) and
// what the client says back into the recording's (in): paths under the
// recorded session cwd, and the terminal ids the client gave.
type rewriter struct {
	recCwd, liveCwd string
	terms           map[string]string // recorded terminal id → the client's
	termsBack       map[string]string // the client's terminal id → recorded
}

// out rewrites a recorded JSON value for sending.
func (r *rewriter) out(v json.RawMessage) json.RawMessage {
	return r.rewrite(v, r.recCwd, r.liveCwd, r.terms)
}

// in rewrites a JSON value the client sent for comparing with the recording.
func (r *rewriter) in(v json.RawMessage) json.RawMessage {
	return r.rewrite(v, r.liveCwd, r.recCwd, r.termsBack)
}

// mapTerminal records that the client named terminal rec (recorded) got.
func (r *rewriter) mapTerminal(rec, got string) {
	if rec == "" || got == "" || rec == got {
		return
	}
	if r.terms == nil {
		r.terms, r.termsBack = map[string]string{}, map[string]string{}
	}
	r.terms[rec], r.termsBack[got] = got, rec
}

func (r *rewriter) rewrite(v json.RawMessage, from, to string, terms map[string]string) json.RawMessage {
	moveCwd := from != "" && to != "" && from != to && bytes.Contains(v, []byte(jsonInner(from)))
	if len(v) == 0 || (!moveCwd && len(terms) == 0) {
		return v
	}
	return edit(v, func(x any) any {
		return walk(x, "", func(key, s string) string {
			if key == "terminalId" {
				if t, ok := terms[s]; ok {
					return t
				}
			}
			if moveCwd {
				return pathtext.Replace(s, from, to)
			}
			return s
		})
	})
}

// jsonInner is s as it appears inside a JSON string (without the quotes).
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// walk returns x with f applied to every string value (key is the member
// name the value is under, "" in an array).
func walk(x any, key string, f func(key, s string) string) any {
	switch v := x.(type) {
	case string:
		return f(key, v)
	case map[string]any:
		for k, e := range v {
			v[k] = walk(e, k, f)
		}
	case []any:
		for i, e := range v {
			v[i] = walk(e, key, f)
		}
	}
	return x
}

func decode(v json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	err := d.Decode(&x)
	return x, err
}

// edit returns v decoded, changed by f and encoded again; v itself when
// that fails.
func edit(v json.RawMessage, f func(x any) any) json.RawMessage {
	x, err := decode(v)
	if err != nil {
		return v
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(f(x)); err != nil {
		return v
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// sameJSON reports whether got matches rec, a recorded JSON value: equal
// values once both are redacted with red, so that a recorded redact.Marker
// matches a secret red redacts in got (whatever its value on this
// machine), and no other text, which would hide a changed prompt or
// answer. Missing values (nil) match only each other.
func sameJSON(red *redact.Redactor, rec, got json.RawMessage) bool {
	if len(rec) == 0 || len(got) == 0 {
		return len(rec) == len(got)
	}
	rec, got = red.JSON(rec), red.JSON(got)
	rx, err1 := decode(rec)
	gx, err2 := decode(got)
	if err1 != nil || err2 != nil {
		return bytes.Equal(rec, got)
	}
	return match(rx, gx)
}

func match(rec, got any) bool {
	switch r := rec.(type) {
	case string:
		g, ok := got.(string)
		return ok && r == g
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return false
		}
		if r == g {
			return true
		}
		rf, err1 := r.Float64()
		gf, err2 := g.Float64()
		return err1 == nil && err2 == nil && rf == gf
	case map[string]any:
		// A member that is null is one that is absent: ACP's optional
		// fields are nullable ("signal": null from one client, nothing
		// from another, say the same).
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, rv := range r {
			if gv := g[k]; !(rv == nil && gv == nil) && !match(rv, gv) {
				return false
			}
		}
		for k, gv := range g {
			if _, ok := r[k]; !ok && gv != nil {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(r) {
			return false
		}
		for i := range r {
			if !match(r[i], g[i]) {
				return false
			}
		}
		return true
	}
	return rec == got
}

// excerpt shows a JSON value (or text) in a message, redacted with red
// and cut at max characters. What is kept is redacted knowing all of s
// (redact.Redactor.Excerpt), so that it shows no part of a secret the cut
// goes through.
func excerpt(red *redact.Redactor, s string, max int) string {
	i := 0
	for j := range s {
		if i == max {
			return red.Excerpt(s, 0, j, false) + "…"
		}
		i++
	}
	return red.String(s)
}

// errorObject is a JSON-RPC error as compared and shown.
type errorObject struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// describeAnswer shows an answer: "result {…}" or "error -32002 "…"".
func describeAnswer(red *redact.Redactor, result, errObj json.RawMessage) string {
	if len(errObj) > 0 {
		var e errorObject
		if json.Unmarshal(errObj, &e) == nil {
			return fmt.Sprintf("error %d %q", e.Code, excerpt(red, e.Message, 200))
		}
		return "error " + excerpt(red, string(errObj), 200)
	}
	if len(result) == 0 {
		return "no result"
	}
	return "result " + excerpt(red, string(result), 200)
}

// sameAnswer compares the client's answer with the recorded one: errors by
// code and message, results as JSON, both redacted with red (see sameJSON).
func sameAnswer(red *redact.Redactor, rec *answer, result, errObj json.RawMessage) bool {
	if (len(rec.err) > 0) != (len(errObj) > 0) {
		return false
	}
	if len(errObj) > 0 {
		var re, ge errorObject
		if json.Unmarshal(rec.err, &re) != nil || json.Unmarshal(errObj, &ge) != nil {
			return bytes.Equal(red.JSON(rec.err), red.JSON(errObj))
		}
		return re.Code == ge.Code && red.String(re.Message) == red.String(ge.Message)
	}
	if isNull(rec.result) && isNull(result) {
		return true
	}
	return sameJSON(red, rec.result, result)
}

func isNull(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) == 0 || string(t) == "null" || string(t) == "{}"
}

// permissionChoice is the outcome of a permission answer.
type permissionChoice struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

// permissionOutcome reads the outcome of a permission answer; ok is false
// when the answer is an error or has no outcome.
func permissionOutcome(result, errObj json.RawMessage) (permissionChoice, bool) {
	if len(errObj) > 0 {
		return permissionChoice{}, false
	}
	var r struct {
		Outcome *permissionChoice `json:"outcome"`
	}
	if json.Unmarshal(result, &r) != nil || r.Outcome == nil {
		return permissionChoice{}, false
	}
	return *r.Outcome, true
}

// describeChoice shows a permission outcome with the kind of its option:
// `selected "allow" (allow_once)`, `cancelled`.
func describeChoice(c permissionChoice, params json.RawMessage) string {
	if c.Outcome != "selected" {
		return c.Outcome
	}
	var p struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(params, &p)
	for _, o := range p.Options {
		if o.OptionID == c.OptionID && o.Kind != "" {
			return fmt.Sprintf("selected %q (%s)", c.OptionID, o.Kind)
		}
	}
	return fmt.Sprintf("selected %q", c.OptionID)
}

// describeRequest names an agent's request by what it is about: the tool
// call of a permission request, the path of an fs request, the command of
// terminal/create, the terminal of the other terminal requests.
// A permission request without a title takes the one its tool call was
// announced with (titles: tool call id → title).
func describeRequest(red *redact.Redactor, method string, params json.RawMessage, titles map[string]string) string {
	var p struct {
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
			Title      string `json:"title"`
		} `json:"toolCall"`
		Path       string `json:"path"`
		Command    string `json:"command"`
		TerminalID string `json:"terminalId"`
	}
	_ = json.Unmarshal(params, &p)
	p.ToolCall.Title = cmp.Or(p.ToolCall.Title, titles[p.ToolCall.ToolCallID])
	switch {
	case method == "session/request_permission" && p.ToolCall.Title != "":
		return fmt.Sprintf("%s for %q (tool call %s)", method, excerpt(red, p.ToolCall.Title, 80), p.ToolCall.ToolCallID)
	case method == "session/request_permission":
		return fmt.Sprintf("%s for tool call %s", method, p.ToolCall.ToolCallID)
	case p.Path != "":
		return method + " " + p.Path
	case p.Command != "":
		return fmt.Sprintf("%s %q", method, excerpt(red, p.Command, 80))
	case p.TerminalID != "":
		return method + " " + p.TerminalID
	}
	return method
}

// promptText is the text blocks of a prompt, joined with newlines.
func promptText(prompt json.RawMessage) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(prompt, &blocks)
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// noteToolCall keeps, in titles, the title of a tool call that msg (a
// session/update) announces or renames.
func noteToolCall(titles map[string]string, msg json.RawMessage) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				ToolCallID    string `json:"toolCallId"`
				Title         string `json:"title"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "session/update" {
		return
	}
	u := m.Params.Update
	if (u.SessionUpdate == "tool_call" || u.SessionUpdate == "tool_call_update") && u.ToolCallID != "" && u.Title != "" {
		titles[u.ToolCallID] = u.Title
	}
}

// withoutURIs is a prompt without the uri of its blocks: an attached file
// is compared by its content, since its absolute path changes with the
// checkout the scenario runs from.
func withoutURIs(prompt json.RawMessage) json.RawMessage {
	if !bytes.Contains(prompt, []byte(`"uri"`)) {
		return prompt
	}
	var drop func(any)
	drop = func(v any) {
		switch y := v.(type) {
		case map[string]any:
			delete(y, "uri")
			for _, e := range y {
				drop(e)
			}
		case []any:
			for _, e := range y {
				drop(e)
			}
		}
	}
	return edit(prompt, func(x any) any {
		drop(x)
		return x
	})
}
