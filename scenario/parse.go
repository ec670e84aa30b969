package scenario

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/attach"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/suggest"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/yamlnode"
)

// The keys of each mapping in the format, in the order the docs give them.
var (
	scenarioKeys = []string{"name", "description", "tags", "agent", "timeout", "turnTimeout", "idleTimeout",
		"cancelGrace", "killGrace", "continueAfterCancel", "retries", "budget", "client", "permissions", "answers", "workspace", "sandbox",
		"gateway", "setup", "expect", "turns", "verify", "teardown", "session", "vars"}
	agentKeys          = []string{"command", "name", "replay", "args", "env", "cwd", "auth", "mode", "model", "config", "mcpServers", "reuse"}
	clientKeys         = []string{"fs", "terminal", "readOnly", "roots"}
	permissionKeys     = []string{"default", "allow", "deny", "answerDelay", "enforce"}
	ruleKeys           = []string{"kind", "tool", "title", "command", "path", "input", "always", "examples"}
	matcherKeys        = []string{"kind", "tool", "title", "command", "path", "input"}
	exampleKeys        = []string{"match", "noMatch"}
	turnKeys           = []string{"prompt", "timeout", "budget", "answers", "expect"}
	partKeys           = []string{"text", "file", "image"}
	turnExpectKeys     = []string{"stopReason", "cancelCause", "text", "denied", "maxDenied", "toolCalls", "files", "permissions", "usage", "judge", "notices"}
	scenarioExpectKeys = []string{"denied", "maxDenied", "toolCalls", "files", "permissions", "usage", "judge", "agent", "notices", "passRate"}
	textKeys           = []string{"contains", "matches", "notContains", "notMatches"}

	workspaceKeys         = []string{"from", "git", "ref", "protect"}
	commandKeys           = []string{"run", "timeout"} // setup and teardown
	verifyKeys            = []string{"run", "timeout", "expect"}
	commandExpectKeys     = []string{"exitCode", "stdout"}
	toolCallsKeys         = []string{"used", "notUsed", "count", "status", "sequence"}
	filesKeys             = []string{"exists", "absent", "contains", "matches", "unchanged", "golden"}
	permissionsExpectKeys = []string{"requested", "notRequested"}
	usageKeys             = []string{"maxTotalTokens", "maxCost"}
	budgetKeys            = []string{"maxTotalTokens", "maxCost", "maxRequests"}
	judgeKeys             = []string{"agent", "rubric", "pass", "timeout"}
	toolCallStatuses      = []string{"completed", "failed"}

	// stopReasons are ACP's StopReason values, then the outcomes acprun
	// records when the agent gave none.
	stopReasons = []string{"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled",
		"error", "agent_exited", "unresponsive"}

	// runCancelCauses are the causes of a cancel that come from outside the
	// scenario (runner.ExternalCause): no expectation may name them.
	runCancelCauses = []string{"interrupt", "runTimeout", "failFast"}
)

// stopReason is the stop reason of node n of an expectation: one of ACP's
// or of acprun's outcomes (stopReasons), or an agent's own, which the
// results keep verbatim and the expectation then matches so. "" and
// "skipped" are errors: a turn that did not run meets no expectation. A
// near miss of one of them (canceled) is kept as an agent's own, with a
// warning that says which it is near: a typo then fails the turn, never
// passes it, and an agent that answers canceled can be expected.
func (p *fileParser) stopReason(n *yaml.Node) (string, bool) {
	s, ok := p.str(n)
	switch {
	case !ok || slices.Contains(stopReasons, s):
		return s, ok
	case s == "skipped" || strings.TrimSpace(s) == "":
		p.Errorf(n, "%s", unknownMsg("stop reason", s, stopReasons, "stop reasons"))
		return "", false
	}
	if near, ok := suggest.Closest(s, stopReasons); ok {
		p.warnf(p.pos(n), "stop reason %q is not ACP's nor acprun's (did you mean %q?), so only a turn whose agent answers %q verbatim meets it", s, near, s)
	}
	return s, true
}

// MaxFileBytes and MaxTurns bound what one scenario file may ask for, so
// that a runaway file fails at once with a clear message instead of
// running for hours.
const (
	MaxFileBytes = 4 << 20
	MaxTurns     = 1000
)

// tooLarge says that a file of size bytes is over MaxFileBytes.
func tooLarge(size int64) string {
	return fmt.Sprintf("the file is %.1f MiB; a scenario file may hold at most %d MiB (attach long texts with prompt: [{file: PATH}])", float64(size)/(1<<20), MaxFileBytes>>20)
}

// agentWanted says how to give a scenario without an agent key one: run
// --agent replaces the agent of a scenario, which still needs its own.
const agentWanted = "name the agent that runs it (agent: claude, or agent: {command: [...]}), or give every scenario one with defaults.agent in the config file (acprun.yaml, or --config FILE)"

// parseFile decodes every YAML document of the file and returns its
// scenarios. Empty documents are skipped. A syntax error ends the file, but
// the documents before it are still checked.
func (p *fileParser) parseFile() []*Scenario {
	var out []*Scenario
	if len(p.Src) > MaxFileBytes {
		p.errorAt(Pos{File: p.Name}, "%s", tooLarge(int64(len(p.Src))))
		return nil
	}
	for doc := range p.Documents() {
		if len(doc.Content) == 0 || yamlnode.IsNull(doc.Content[0]) {
			continue
		}
		p.ExpandAliases(doc)
		exps := p.expand(doc.Content[0])
		if exps == nil {
			out = append(out, p.scenario(doc.Content[0], len(out), nil))
			continue
		}
		probs := make([][]*srcerr.Error, len(exps))
		for i, e := range exps {
			first := len(p.Errs)
			s := p.scenario(e.root, len(out), e.set.vars)
			s.Name += "[" + e.set.key() + "]"
			s.VarSet = i + 1
			probs[i] = append(slices.Clone(p.Errs[first:]), s.Unset...)
			out = append(out, s)
		}
		nameValueSets(exps, probs)
	}
	if len(out) == 0 && len(p.Errs) == 0 {
		p.errorAt(Pos{File: p.Name}, "no scenario in file: write one as a mapping with name, agent and turns (acprun schema prints the whole format)")
	}
	return out
}

// durationAt is a duration and where it is written.
type durationAt struct {
	pos Pos
	d   time.Duration
}

// scenario checks one document, its templates rendered with vars (nil:
// the document has no vars).
func (p *fileParser) scenario(root *yaml.Node, index int, vars []Var) *Scenario {
	s := &Scenario{File: p.Name, Index: index, Pos: p.pos(yamlnode.Deref(root)), Vars: vars}
	first := len(p.warns)
	defer func() {
		s.Warnings = slices.Clone(p.warns[first:])
		for i := first; i < len(p.warns); i++ {
			if p.warns[i].Pos.File != p.Name && s.Name != "" {
				if p.about == nil {
					p.about = map[int]string{}
				}
				p.about[i] = s.Name
			}
		}
	}()
	s.Agent.Cwd = p.dir
	s.Agent.McpServers = json.RawMessage("[]")
	s.Client = Client{FS: true, Terminal: true}
	p.unset = nil
	defer func() {
		s.Unset = sorted(p.unset)
		p.unset = nil
	}()
	defaultAgent := p.applyDefaults(s, root)
	if p.cfg != nil {
		s.Currency = p.cfg.Currency
	}
	p.unchanged = nil
	m, ok := p.mapping(root, scenarioKeys, expectHint(false))
	if !ok {
		return s
	}
	var turnTimeouts []durationAt                // to compare with timeout at the end
	timeoutPos := p.defaultPos("timeout", s.Pos) // where the scenario's timeout is set
	var rootsNode *yaml.Node
	for _, kv := range m.pairs {
		v := kv.V
		switch kv.Key {
		case "name":
			if name, ok := p.str(v); ok {
				if strings.TrimSpace(name) == "" {
					p.Errorf(v, "name is empty")
				} else if r, ok := unprintableChar(name); ok {
					p.Errorf(v, "name holds %s: a name is one line of printable text", describeChar(r))
				}
				s.Name = name
			}
		case "description":
			if !yamlnode.IsNull(v) {
				s.Description, _ = p.str(v)
			}
		case "tags":
			s.Tags = p.tags(v)
		case "agent":
			s.Agent = p.agentFromSpec(p.agentSpec(v, agentKeys))
		case "vars": // read by expand
		case "turnTimeout":
			p.setting(kv.Key, v, s)
			turnTimeouts = append(turnTimeouts, durationAt{p.pos(yamlnode.Deref(v)), s.TurnTimeout})
		case "timeout":
			timeoutPos = p.pos(yamlnode.Deref(v))
			p.setting(kv.Key, v, s)
		case "client":
			rootsNode = p.setting(kv.Key, v, s)
		case "expect":
			s.Expect = p.expect(v, false)
		case "turns":
			n, ok := p.Want(v, yaml.SequenceNode, "a list of turns")
			if !ok {
				continue
			}
			if len(n.Content) == 0 {
				p.Errorf(n, "turns is empty: a scenario needs at least one turn")
			}
			if len(n.Content) > MaxTurns {
				p.Errorf(n, "%d turns; a scenario may have at most %d (split it into several scenarios)", len(n.Content), MaxTurns)
				continue
			}
			for _, tn := range n.Content {
				t, timeout := p.turn(tn)
				s.Turns = append(s.Turns, t)
				if timeout != nil {
					turnTimeouts = append(turnTimeouts, durationAt{p.pos(yamlnode.Deref(timeout)), t.Timeout})
				}
			}
		default:
			p.setting(kv.Key, v, s)
		}
	}
	if _, ok := m.has["agent"]; !ok && p.cfg.HasDefaultAgent() {
		s.Agent = p.defaultAgent(defaultAgent)
		p.require(m, "name", "turns")
	} else {
		p.require(m, "name")
		if _, ok := m.has["agent"]; !ok && !m.suggested["agent"] {
			p.Errorf(m.n, "missing required key %q: %s", "agent", agentWanted)
		}
		p.require(m, "turns")
	}
	if s.Agent.Cwd == "" || s.Agent.CwdPos == (Pos{}) && s.Agent.Cwd == p.dir {
		s.Agent.Cwd, s.Agent.CwdPos = s.defaultCwd(), Pos{} // no cwd key gave one
	} else {
		p.checkCwd(&s.Agent)
	}
	if s.Workspace == nil {
		for _, k := range p.unchanged {
			p.Errorf(k, "files.unchanged compares with the workspace's starting copy, and the scenario has no workspace: "+
				"add workspace: DIR (or workspace: {git: REPO}) to the scenario or to the config's defaults")
		}
	}
	p.unchanged = nil
	if s.Agent.McpServers == nil {
		s.Agent.McpServers = json.RawMessage("[]")
	}
	if rootsNode == nil && s.Client.Roots == nil {
		s.Client.Roots = []string{s.Agent.Cwd}
	}
	p.checkSession(s)
	p.checkWorkspaceCwd(s)
	p.enforce(s)
	p.finishGateway(s)
	if s.Expect.Pos == (Pos{}) {
		s.Expect.Pos = s.Pos
	}
	switch d := p.turnTimeoutFlag; {
	case s.Timeout == 0:
	case d > 0: // it replaces the file's turn timeouts
		if d > s.Timeout {
			p.warnf(timeoutPos, "--turn-timeout %s is longer than the scenario timeout %s", d, s.Timeout)
		}
	default:
		if _, own := m.has["turnTimeout"]; !own && p.cfg != nil && s.TurnTimeout > 0 { // the config's
			turnTimeouts = append(turnTimeouts, durationAt{p.defaultPos("turnTimeout", s.Pos), s.TurnTimeout})
		}
		for _, t := range turnTimeouts {
			if t.d > s.Timeout {
				p.warnf(t.pos, "turn timeout %s is longer than the scenario timeout %s", t.d, s.Timeout)
			}
		}
	}
	return s
}

// setting reads the value v of key, one of the keys that a scenario and
// the config's defaults share, into s; for client it returns the roots
// node, if any.
func (p *fileParser) setting(key string, v *yaml.Node, s *Scenario) (roots *yaml.Node) {
	durations := map[string]*time.Duration{"timeout": &s.Timeout, "turnTimeout": &s.TurnTimeout, "idleTimeout": &s.IdleTimeout,
		"cancelGrace": &s.CancelGrace, "killGrace": &s.KillGrace}
	if d, ok := durations[key]; ok {
		*d, _ = p.duration(v)
		return nil
	}
	switch key {
	case "continueAfterCancel":
		s.ContinueAfterCancel, _ = p.boolean(v)
	case "retries":
		s.Retries, _ = p.retries(v)
	case "budget":
		s.Budget = p.usageExpect(v, "budget")
	case "client":
		s.Client.Set = true
		return p.client(v, &s.Client)
	case "permissions":
		// Replace the config's as a whole: its delay and enforce go with its rules.
		s.AnswerDelay, s.Enforce, s.EnforcePos = 0, "", Pos{}
		s.Policy = p.permissions(v, s)
	case "answers":
		s.Answers = p.answers(v)
	case "workspace":
		s.Workspace = p.workspace(v)
	case "sandbox":
		s.Sandbox = p.sandbox(v)
	case "gateway":
		s.Gateway = p.gateway(v)
	case "setup":
		s.Setup = p.commands(v, "setup")
	case "verify":
		s.Verify = p.commands(v, "verify")
	case "teardown":
		s.Teardown = p.commands(v, "teardown")
	case "session":
		s.Session = Session{} // replaces the config's as a whole
		p.session(v, &s.Session)
	}
	return nil
}

// checkCwd reports an agent's (the scenario's, a judge's or a named
// agent's) session cwd that is not a directory, at the cwd value that gave
// it (in the scenario or the config file): the agent could not even be
// started there.
func (p *fileParser) checkCwd(a *Agent) {
	pos := a.CwdPos
	if pos == (Pos{}) {
		if a.Cwd == p.dir {
			return // the file's own directory
		}
		pos = a.Pos // a config agent set up by hand
	}
	fi, err := os.Stat(a.Cwd)
	if err == nil && fi.IsDir() {
		return
	}
	rel := "the directory of the file that gives it"
	if pos.File != "" {
		if dir, err := filepath.Abs(filepath.Dir(pos.File)); err == nil {
			rel = dir
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.errorAt(pos, "agent cwd %s does not exist: create that directory, or change cwd (a relative cwd is relative to %s)", a.Cwd, rel)
	case err != nil:
		p.errorAt(pos, "agent cwd %s: %v", a.Cwd, bareError(err))
	default:
		p.errorAt(pos, "agent cwd %s is not a directory: cwd must name the directory the agent works in (a relative cwd is relative to %s)", a.Cwd, rel)
	}
}

// command reads the agent's argv: a list, or a string split like a shell
// would (see splitCommand). Variables are expanded in each word after
// splitting, so a value with spaces stays one word.
func (p *fileParser) command(n *yaml.Node) []string {
	var argv []string
	first := true    // the program name expanded without a problem
	fromVar := false // the program name holds a variable
	switch {
	case n.Kind == yaml.ScalarNode && !yamlnode.IsNull(n):
		if !p.noNUL(n, n.Value) {
			return []string{}
		}
		words, offs, prob := splitCommand(n.Value)
		if prob != nil {
			p.errorAt(p.posIn(n, prob.off), "%s", prob.msg)
			return nil
		}
		for i, w := range words {
			fromVar = fromVar || i == 0 && strings.Contains(w, "$")
			w, ok := p.interpAt(n, w, offs[i])
			first = first && (ok || i > 0)
			argv = append(argv, w)
		}
	case n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			fromVar = fromVar || i == 0 && strings.Contains(yamlnode.Deref(item).Value, "$")
			w, ok := p.interpArg(item)
			first = first && (ok || i > 0)
			argv = append(argv, w)
		}
	default:
		p.Expected(n, "a command (a list of strings, or a string)")
		return nil
	}
	if len(argv) == 0 {
		p.Errorf(n, "agent command is empty")
	} else if argv[0] == "" && first && !(p.lenient && fromVar) {
		// Checked leniently (a config's agent), a name a variable gives
		// is checked again where a scenario uses the agent.
		p.Errorf(n, "agent command has an empty program name")
	}
	return argv
}

// env reads an agent's environment variables.
func (p *fileParser) env(n *yaml.Node) map[string]string {
	env := map[string]string{}
	if n.Kind != yaml.MappingNode {
		p.Expected(n, "a mapping of variable names to values")
		return env
	}
	pairs, _ := p.pairs(n, "a variable name")
	for _, kv := range pairs {
		switch {
		case strings.IndexByte(kv.Key, 0) >= 0:
			p.noNUL(kv.K, kv.Key)
		case kv.Key == "" || strings.Contains(kv.Key, "="):
			p.Errorf(kv.K, "bad environment variable name %q", kv.Key)
		}
		if val, ok := p.secretValue(kv.V); ok {
			env[kv.Key] = val
		}
	}
	return env
}

// toJSON writes n as JSON, variables expanded in its strings: the _meta
// objects of agent.mcpServers (see mcpServer).
func (p *fileParser) toJSON(buf *bytes.Buffer, n *yaml.Node, depth int, budget *int) bool {
	const exhausted = math.MinInt / 2
	n = yamlnode.Deref(n)
	*budget--
	if depth > 64 || *budget < 0 {
		if *budget > exhausted {
			p.Errorf(n, "mcpServers is nested too deeply or repeats too many aliases")
			*budget = exhausted // report once, convert no more
		}
		return false
	}
	ok := true
	switch n.Kind {
	case yaml.MappingNode:
		errs := len(p.Errs)
		pairs, _ := p.pairs(n, "a key name")
		ok = len(p.Errs) == errs
		buf.WriteByte('{')
		for i, kv := range pairs {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSON(buf, kv.Key)
			buf.WriteByte(':')
			ok = p.toJSON(buf, kv.V, depth+1, budget) && ok
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			ok = p.toJSON(buf, item, depth+1, budget) && ok
		}
		buf.WriteByte(']')
	case yaml.ScalarNode:
		var v any
		switch n.ShortTag() {
		case "!!null":
		case "!!bool", "!!int", "!!float":
			if err := n.Decode(&v); err != nil {
				p.Errorf(n, "bad value %q: %v", n.Value, err)
				return false
			}
			if f, isFloat := v.(float64); isFloat && (math.IsInf(f, 0) || math.IsNaN(f)) {
				p.Errorf(n, "%s cannot be written in JSON", n.Value)
				return false
			}
		default:
			s, good := p.interpAt(n, n.Value, nil)
			if !good || !p.noNUL(n, s) {
				return false
			}
			v = s
		}
		b, err := json.Marshal(v)
		if err != nil {
			p.Errorf(n, "bad value %q: %v", n.Value, err)
			return false
		}
		buf.Write(b)
	default:
		p.Errorf(n, "unexpected %s", yamlnode.Describe(n))
		return false
	}
	return ok
}

// client reads the client key; it returns the roots node, if any.
func (p *fileParser) client(n *yaml.Node, c *Client) (roots *yaml.Node) {
	m, ok := p.mapping(n, clientKeys, nil)
	if !ok {
		return nil
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "fs":
			c.FS, _ = p.boolean(kv.V)
		case "terminal":
			c.Terminal, _ = p.boolean(kv.V)
		case "readOnly":
			c.ReadOnly, _ = p.boolean(kv.V)
		case "roots":
			c.Roots, c.RootPos = nil, nil // replaces the config's
			roots = yamlnode.Deref(kv.V)
			c.RootsPos = p.pos(roots)
			nodes, ok := p.strNodes(roots, false, false)
			if !ok {
				continue
			}
			if len(nodes) == 0 {
				p.Errorf(roots, "roots is empty: list at least one directory, or leave roots out to use the session cwd")
				continue
			}
			for _, r := range nodes {
				if dir, ok := p.interpArg(r); ok {
					if dir == "" {
						p.Errorf(r, "root is empty")
						continue
					}
					c.Roots, c.RootPos = append(c.Roots, p.abs(dir)), append(c.RootPos, p.pos(r))
				}
			}
		}
	}
	return roots
}

// abs resolves a path relative to the scenario file's directory.
func (p *fileParser) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.dir, path)
}

// turn reads one turn; it also returns its timeout node, if any.
func (p *fileParser) turn(n *yaml.Node) (Turn, *yaml.Node) {
	n = yamlnode.Deref(n)
	t := Turn{Pos: p.pos(n)}
	var timeout *yaml.Node
	m, ok := p.mapping(n, turnKeys, expectHint(true))
	if !ok {
		return t, nil
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "prompt":
			t.Prompt = p.prompt(yamlnode.Deref(kv.V))
		case "timeout":
			if d, ok := p.duration(kv.V); ok {
				t.Timeout, timeout = d, kv.V
			}
		case "budget":
			t.Budget = p.usageExpect(kv.V, "budget")
		case "answers":
			t.Answers = p.answers(kv.V)
		case "expect":
			t.Expect = p.expect(kv.V, true)
		}
	}
	p.require(m, "prompt")
	if t.Expect.Pos == (Pos{}) {
		t.Expect.Pos = t.Pos
	}
	if t.Expect.StopReasons == nil {
		t.Expect.StopReasons = []string{"end_turn"}
	}
	return t, timeout
}

// prompt reads a prompt: a string, a mapping {file: PATH} whose file
// holds the text (see promptFile), or a list of parts. Prompts are not
// interpolated.
func (p *fileParser) prompt(n *yaml.Node) []Part {
	switch {
	case n.Kind == yaml.MappingNode:
		return p.promptFile(n)
	case n.Kind == yaml.ScalarNode && !yamlnode.IsNull(n):
		switch {
		case n.Value == "":
			p.Errorf(n, "prompt is empty")
		case strings.TrimSpace(n.Value) == "":
			p.Errorf(n, "prompt is only white space: give the text to send")
		}
		return []Part{{Pos: p.pos(n), Text: n.Value}}
	case n.Kind == yaml.SequenceNode:
		if len(n.Content) == 0 {
			p.Errorf(n, "prompt is empty: give a string or a list of text, file and image parts")
		}
		var parts []Part
		var attached int64 // as sent
		reported := false  // that attached is too much, once
		for _, item := range n.Content {
			part, ok := p.part(yamlnode.Deref(item))
			if !ok {
				continue
			}
			limit := int64(MaxAttachmentBytes)
			if !reported {
				limit -= attached
			}
			size, atLeast, ok := p.attachment(&part, limit)
			if ok && !reported {
				if attached += size; attached > MaxAttachmentBytes {
					p.attachedTooMuch(part, attached, atLeast)
					reported = true
				}
			}
			parts = append(parts, part)
		}
		return parts
	}
	p.Expected(n, "a prompt (a string, {file: PATH}, or a list of text, file and image parts)")
	return nil
}

func (p *fileParser) part(n *yaml.Node) (Part, bool) {
	part := Part{Pos: p.pos(n)}
	m, ok := p.mapping(n, partKeys, nil)
	if !ok {
		return part, false
	}
	if len(m.pairs) == 0 {
		if m.empty() {
			p.Errorf(n, "a prompt part needs one of text, file or image")
		}
		return part, false
	}
	for _, kv := range m.pairs[1:] {
		p.Errorf(kv.K, "a prompt part has only one of text, file or image: put %s in a part of its own", kv.Key)
	}
	kv := m.pairs[0]
	s, ok := p.str(kv.V)
	if !ok {
		return part, false
	}
	v := yamlnode.Deref(kv.V)
	part.Pos = p.pos(v)
	switch kv.Key {
	case "text":
		if s == "" {
			p.Errorf(v, "text is empty")
		}
		part.Text = s
	case "file":
		part.File, ok = p.existingFile(v, "prompt file", s, -1) // its size: see prompt
	case "image":
		part.Image, ok = p.existingFile(v, "image", s, -1) // its type and size: see attachment
	}
	return part, ok
}

// MaxAttachmentBytes bounds the files and images a turn's prompt attaches
// (prompt: [{file: PATH}, {image: PATH}]), together, as sent: they travel
// in one message to the agent, a file as JSON-escaped text or base64 (as
// attach.File decides), an image base64, and the Go ACP SDK drops a
// message over 10 MiB.
const MaxAttachmentBytes = 6 << 20

// attachment returns the size a file or image part takes in the prompt's
// message (attach.File's form for a file, base64 for an image), reading
// it when its size on disk is at most limit; a larger one is not read,
// and its size on disk is returned with atLeast set (the size as sent is
// no smaller). It sets an image's mime type from its bytes: one that is
// not a PNG, JPEG, GIF or WEBP image is an error at its position. ok is
// false for a text part, a part that could not be read (the run reads it
// again, and says why) and an image that is none of these.
func (p *fileParser) attachment(part *Part, limit int64) (size int64, atLeast, ok bool) {
	path := cmp.Or(part.File, part.Image)
	if path == "" {
		return 0, false, false
	}
	fi, err := inputfile.Stat(path)
	if err != nil {
		return 0, false, false // part checked it a moment ago
	}
	if fi.Size() > limit {
		return fi.Size(), true, true
	}
	data, err := inputfile.Read(path, limit)
	if err != nil {
		return 0, false, false
	}
	if part.File != "" {
		return int64(attach.File(path, data).Size(data)), false, true
	}
	if part.MimeType = attach.Image(data); part.MimeType == "" {
		p.errorAt(part.Pos, "image %q is not a PNG, JPEG, GIF or WEBP image (by its first bytes)", filepath.Base(path))
		return 0, false, false
	}
	return int64(attach.Form{MimeType: part.MimeType}.Size(data)), false, true // a blob
}

// attachedTooMuch reports, at part, that the prompt's attachments take
// attached bytes as sent (at least, when atLeast), more than
// MaxAttachmentBytes.
func (p *fileParser) attachedTooMuch(part Part, attached int64, atLeast bool) {
	size := fmt.Sprintf("%.1f MiB", float64(attached)/(1<<20))
	if attached < MaxAttachmentBytes+(1<<20)/10 {
		size = fmt.Sprintf("%d bytes", attached) // not "6.0 MiB, more than 6 MiB"
	}
	if atLeast {
		size = "at least " + size
	}
	p.errorAt(part.Pos, "%s: the files and images of this prompt take %s in its message, more than the %s a prompt may attach (text goes JSON-escaped, an image or a binary file base64, and agents built on the Go ACP SDK drop a message over 10 MiB): give the agent the file's path in a text part for it to read, or attach less",
		filepath.Base(cmp.Or(part.File, part.Image)), size, inputfile.Size(MaxAttachmentBytes))
}

// existingFile resolves path against the file's directory and checks that
// it is a regular file (after symbolic links) of at most limit bytes
// (limit < 0: any size). The run reads it then, and checks again.
func (p *fileParser) existingFile(n *yaml.Node, what, path string, limit int64) (string, bool) {
	if path == "" {
		p.Errorf(n, "%s path is empty", what)
		return "", false
	}
	if !p.noNUL(n, path) {
		return "", false
	}
	abs := p.abs(path)
	err := inputfile.Check(abs, limit)
	switch {
	case err == nil:
		return abs, true
	case errors.Is(err, fs.ErrNotExist):
		p.Errorf(n, "%s %q does not exist", what, path)
	case errors.Is(err, inputfile.ErrNotRegular), errors.Is(err, inputfile.ErrTooLarge):
		p.Errorf(n, "%s %q is %v", what, path, bareError(err))
	default:
		p.Errorf(n, "%s %q: %v", what, path, bareError(err))
	}
	return abs, false
}

// expectHint is the hint for an unknown key of a turn (turn true) or a
// scenario that is a key of an expect: it says which one.
func expectHint(turn bool) func(string) string {
	return func(k string) string {
		inTurn, inScenario := slices.Contains(turnExpectKeys, k), slices.Contains(scenarioExpectKeys, k)
		switch {
		case turn && inTurn:
			return k + " belongs in the turn's expect"
		case inScenario:
			return k + " belongs in the scenario's expect"
		case inTurn:
			return k + " belongs in a turn's expect"
		}
		return ""
	}
}

// expect reads a turn's expect (turn true) or the scenario's.
func (p *fileParser) expect(n *yaml.Node, turn bool) Expect {
	n = yamlnode.Deref(n)
	e := Expect{Pos: p.pos(n)}
	keys, hint := turnExpectKeys, func(k string) string {
		switch k {
		case "agent":
			return "agent belongs in the scenario's expect: it is about the agent the whole scenario runs against"
		case "passRate":
			return "passRate belongs in the scenario's expect (the share of its attempts that must pass)"
		}
		return ""
	}
	if !turn {
		keys = scenarioExpectKeys
		hint = func(k string) string {
			if k == "stopReason" || k == "cancelCause" || k == "text" {
				return k + " belongs in a turn's expect"
			}
			return ""
		}
	}
	m, ok := p.mapping(n, keys, hint)
	if !ok {
		return e
	}
	for _, kv := range m.pairs {
		switch kv.Key {
		case "stopReason":
			e.StopReasonSet, e.StopReasonPos = true, p.pos(yamlnode.Deref(kv.V))
			nodes, _ := p.strNodes(kv.V, true, true)
			for _, r := range nodes {
				if s, ok := p.stopReason(r); ok {
					e.StopReasons = append(e.StopReasons, s)
				}
			}
		case "cancelCause":
			e.CancelCausePos = p.pos(yamlnode.Deref(kv.V))
			nodes, _ := p.strNodes(kv.V, true, true)
			for _, c := range nodes {
				switch {
				case slices.Contains(CancelCauses, c.Value):
					e.CancelCauses = append(e.CancelCauses, c.Value)
				case slices.Contains(runCancelCauses, c.Value):
					p.Errorf(c, "cancelCause %s is not the scenario's: a cancel for an interrupt, the run's --timeout or --fail-fast meets no expectation (name one of %s)",
						c.Value, strings.Join(CancelCauses, ", "))
				default:
					p.Errorf(c, "%s", unknownMsg("cancel cause", c.Value, CancelCauses, "cancel causes"))
				}
			}
		case "text":
			p.textExpect(kv.V, &e)
		case "denied":
			e.Denied, _ = p.count(kv.V)
			e.DeniedPos = p.pos(yamlnode.Deref(kv.V))
		case "maxDenied":
			e.MaxDenied, _ = p.count(kv.V)
			e.MaxDeniedPos = p.pos(yamlnode.Deref(kv.V))
		case "toolCalls":
			e.ToolCalls = p.toolCallsExpect(kv.V)
		case "files":
			e.Files = p.filesExpect(kv.V)
		case "permissions":
			e.Permissions = p.permissionsExpect(kv.V)
		case "usage":
			e.Usage = p.usageExpect(kv.V, "usage")
		case "judge":
			e.Judge = p.judge(kv.V)
		case "agent":
			e.Agent = p.agentExpect(kv.V)
		case "notices":
			e.Notices = p.noticesExpect(kv.V)
		case "passRate":
			e.PassRate, e.PassRatePos = p.passRate(kv.V)
		}
	}
	if k, ok := m.has["maxDenied"]; ok && m.has["denied"] != nil {
		p.Errorf(k, "use either denied (exact) or maxDenied (at most), not both")
	}
	if k, ok := m.has["cancelCause"]; ok && m.has["stopReason"] == nil {
		p.Errorf(k, "cancelCause needs stopReason: list the stop reasons the cancelled turn may end with (stopReason: cancelled)")
	}
	return e
}

func (p *fileParser) textExpect(n *yaml.Node, e *Expect) {
	m, ok := p.mapping(n, textKeys, nil)
	if !ok {
		return
	}
	e.TextContains, e.TextMatches = p.wanted(m, "reply")
	e.TextNotContains, e.TextNotMatches = p.forbidden(m, "reply")
	if m.empty() {
		p.Errorf(m.n, "text needs %s", joinWords(textKeys, "or"))
	}
}

// tags reads a scenario's tags. --tag selects by a whole tag, and splits
// its value at commas, so an empty tag and one with a comma could never be
// selected; list shows the tags separated by spaces, where a tag with
// white space would read as several: each is an error at the tag.
func (p *fileParser) tags(n *yaml.Node) []string {
	nodes, _ := p.strNodes(n, true, false)
	var tags []string
	for _, t := range nodes {
		not := NotAWord(t.Value)
		switch {
		case t.Value == "":
			p.Errorf(t, "tag is empty: --tag could never select it")
		case strings.TrimSpace(t.Value) == "":
			p.Errorf(t, "tag %q is blank: a tag is a word that --tag selects", t.Value)
		case strings.Contains(t.Value, ","):
			p.Errorf(t, "tag %q has a comma, where --tag splits its value, so --tag could never select it: write one tag for each part, [%s]",
				t.Value, strings.Join(strings.Split(t.Value, ","), ", "))
		case not != "":
			p.Errorf(t, "tag %q %s: a tag is one word, without white space, control or format characters (write several tags, [%s])",
				t.Value, not, strings.Join(strings.FieldsFunc(t.Value, notInWord), ", "))
		default:
			tags = append(tags, t.Value)
		}
	}
	return tags
}

// NotAWord says why s could not be a tag, nor so one word of --tag or
// --agent (no agent name holds such a character either): "holds a space",
// or another character that notInWord refuses, named as describeChar
// names it. It is "" when s holds none.
func NotAWord(s string) string {
	i := strings.IndexFunc(s, notInWord)
	if i < 0 {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return "holds " + describeChar(r)
}

// notInWord reports whether r may not be in a tag: white space, a control
// or a format character (a bidi control, a zero-width joiner).
func notInWord(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf)
}

// unprintableChar returns the first character of s that termtext escapes
// (termtext.Unprintable: a control character, a line or paragraph
// separator, a bidi control) and whether it has one. A scenario's name,
// and so every value of vars, which the expanded names show, is printed on
// lines of its own and in CI annotations: a line break, an escape sequence
// or a bidi override in it would forge, hide or disguise output.
func unprintableChar(s string) (rune, bool) {
	i := strings.IndexFunc(s, termtext.Unprintable)
	if i < 0 {
		return 0, false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r, true
}

// describeChar names the character r, which a name or a tag may not hold,
// escaped as termtext escapes it: "the control character \x09".
func describeChar(r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case unicode.IsControl(r):
		return fmt.Sprintf(`the control character \x%02x`, r)
	case r == '\u2028':
		return `the line separator \u2028`
	case r == '\u2029':
		return `the paragraph separator \u2029`
	case unicode.Is(unicode.Bidi_Control, r):
		return fmt.Sprintf(`the bidi control character \u%04x`, r)
	case unicode.IsSpace(r):
		return fmt.Sprintf(`the space character \u%04x`, r)
	}
	return fmt.Sprintf(`the format character \u%04x`, r)
}
