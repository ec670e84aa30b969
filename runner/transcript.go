package runner

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acprun/acprun/acp"
)

// transcript writes every message of one scenario as JSONL:
// {"t": ms since start, "dir": "c2a"|"a2c", "msg": …}.
type transcript struct {
	path    string
	start   time.Time
	secrets []string

	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	err error
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._@#-]+`)

// transcriptNames gives every job of a run its own transcript file name,
// NAME[@AGENT][#ATTEMPT].jsonl with unsafe characters replaced by "_". Names
// that would collide (case-insensitively, for case-insensitive file
// systems) get "-2", "-3"… in job order, so the same run gives the same
// names every time.
func transcriptNames(jobs []Job) []string {
	names := make([]string, len(jobs))
	used := map[string]bool{}
	for i, j := range jobs {
		base := j.Scenario.Name
		if j.Scenario.Agent.Name != "" {
			base += "@" + j.Scenario.Agent.Name
		}
		if j.Attempt > 0 {
			base += fmt.Sprintf("#%d", j.Attempt)
		}
		base = unsafeName.ReplaceAllString(base, "_")
		name := base
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[strings.ToLower(name)] = true
		names[i] = name + ".jsonl"
	}
	return names
}

// newTranscript creates the transcript file dir/name.
func newTranscript(dir, name string, secrets []string) (*transcript, error) {
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &transcript{path: path, start: time.Now(), secrets: secrets, f: f, w: bufio.NewWriter(f)}, nil
}

// tap is the connection's acp.Options.Tap.
func (t *transcript) tap(dir acp.Direction, line []byte, at time.Time) {
	d := "a2c"
	if dir == acp.Sent {
		d = "c2a"
	}
	msg := line
	if len(t.secrets) > 0 {
		msg = []byte(redact(string(line), t.secrets))
	}
	if !json.Valid(msg) {
		q, _ := json.Marshal(string(msg))
		msg = q
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, `{"t":%d,"dir":%q,"msg":%s}`+"\n", at.Sub(t.start).Milliseconds(), d, msg)
	if t.err == nil {
		// One line at a time reaches the file: a killed run keeps its
		// transcript, and a reader can follow it.
		t.err = t.w.Flush()
	}
}

func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	t.f.Close()
}

// secretName matches environment variable names that hold secrets.
var secretName = regexp.MustCompile(`(?i)(key|token|secret|passw|credential|auth|cookie|session)`)

// secretValues returns the values worth redacting: every value of the
// agent's env, and the values of secret-looking variables of the
// environment acprun passes on.
func secretValues(env map[string]string, environ []string) []string {
	var out []string
	for _, v := range env {
		if len(v) >= 4 {
			out = append(out, v)
		}
	}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if len(v) >= 8 && secretName.MatchString(k) {
			out = append(out, v)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(out)
}

// redact replaces every secret in s, raw or JSON-escaped, with [REDACTED].
func redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "[REDACTED]")
		if q, err := json.Marshal(v); err == nil {
			if esc := string(q[1 : len(q)-1]); esc != v {
				s = strings.ReplaceAll(s, esc, "[REDACTED]")
			}
		}
	}
	return s
}

// redactTurn removes secrets from everything the agent could have put
// into a turn's record.
func redactTurn(t *TurnResult, secrets []string) {
	if len(secrets) == 0 {
		return
	}
	str := func(p *string) { *p = redact(*p, secrets) }
	raw := func(p *json.RawMessage) {
		if len(*p) > 0 {
			*p = json.RawMessage(redact(string(*p), secrets))
		}
	}
	str(&t.Text)
	str(&t.Thoughts)
	str(&t.Error)
	for i := range t.ToolCalls {
		c := &t.ToolCalls[i]
		str(&c.Title)
		raw(&c.RawInput)
		raw(&c.RawOutput)
		raw(&c.Content)
		for j := range c.Locations {
			str(&c.Locations[j])
		}
	}
	for i := range t.Permissions {
		p := &t.Permissions[i]
		str(&p.Title)
		str(&p.Reason)
		for j := range p.Commands {
			str(&p.Commands[j])
		}
		for j := range p.Paths {
			str(&p.Paths[j])
		}
	}
	for i := range t.ClientRequests {
		c := &t.ClientRequests[i]
		str(&c.Command)
		str(&c.Path)
		str(&c.Error)
		str(&c.Refused)
	}
	for i := range t.Plan {
		str(&t.Plan[i].Content)
	}
}
