package scenario

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/suggest"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// fileParser walks the yaml.Node trees of one file and records every
// problem with its position (in Errs, see yamlnode.Reader).
type fileParser struct {
	yamlnode.Reader
	dir      string // absolute directory of the file
	lookup   func(string) (string, bool)
	cfg      *Config // named agents and defaults; nil for none
	lenient  bool    // unset variables are not errors (see leniently)
	inConfig bool    // the file is a config file
	// unchanged holds the files.unchanged keys of the scenario being read:
	// they need a workspace, which may be given after them.
	unchanged []*yaml.Node
	// prompts holds the text of each prompt file read (prompt: {file:
	// PATH}) by absolute path, so that a file named by many turns is read
	// once; promptBytes is their total size.
	prompts     map[string]string
	promptBytes int
	warns       []Warning
	// about maps the index in warns of a warning positioned in another
	// file (the config's defaults) to the scenario it is about.
	about map[int]string
	// deferUnset sends the problems of unset variables to unset instead
	// of Errs (LoadOptions.DeferUnset); the scenario being read takes them.
	deferUnset bool
	unset      Errors
	// gatewayFlag and gatewayTiming are LoadOptions.Gateway and
	// GatewayTiming (see finishGateway).
	gatewayFlag   string
	gatewayTiming bool
	// turnTimeoutFlag is LoadOptions.TurnTimeout.
	turnTimeoutFlag time.Duration
	// spelled holds the spellings of the secret values read so far (see
	// secretValue), for the agent being read to take (Agent.Spelled).
	spelled []string
}

// pos is where n is: at a copy of what an alias stands for, the alias's
// place, with where it is written.
func (p *fileParser) pos(n *yaml.Node) Pos {
	return Pos{File: p.Name, Line: n.Line, Col: n.Column, Origin: p.Origin(n)}
}

func (p *fileParser) errorAt(pos Pos, format string, args ...any) {
	p.Errs = append(p.Errs, p.newError(pos, fmt.Sprintf(format, args...)))
}

// newError is the error msg at pos, with its source line when pos is in
// the file.
func (p *fileParser) newError(pos Pos, msg string) *srcerr.Error {
	if pos.File != p.Name {
		return &srcerr.Error{File: pos.File, Line: pos.Line, Col: pos.Col, Msg: termtext.Printable(msg), Origin: pos.Origin}
	}
	e := p.At(pos.Line, pos.Col, msg)
	e.Origin = pos.Origin
	return e
}

// sub returns a parser of the config c's text (a named or default agent
// read again) that looks variables up as p does and reports as p does;
// its problems go back to p with absorb.
func (p *fileParser) sub(c *Config) *fileParser {
	cp := c.parser(p.lookup)
	cp.lenient, cp.deferUnset = p.lenient, p.deferUnset
	return cp
}

// absorb takes the problems of cp, a parser made by sub.
func (p *fileParser) absorb(cp *fileParser) {
	p.Errs = append(p.Errs, cp.Errs...)
	p.unset = append(p.unset, cp.unset...)
}

// unsetVars takes copies of the problems of unset variables of another
// parser (the config's defaults): the scenario being read has them when p
// defers them, else they are errors.
func (p *fileParser) unsetVars(probs Errors) {
	for _, e := range probs {
		c := *e // its own: a value set's name may be added to it (see nameValueSets)
		if p.deferUnset {
			p.unset = append(p.unset, &c)
		} else {
			p.Errs = append(p.Errs, &c)
		}
	}
}

// warnf records a warning at pos, its control characters escaped as an
// error's are (see yamlnode.Reader.At), saying where the value is written
// when pos is an alias's.
func (p *fileParser) warnf(pos Pos, format string, args ...any) {
	p.warns = append(p.warns, warning(pos, format, args...))
}

// warning is the warning at pos that format says with args, made
// printable, and noting where the value at pos is written when that is
// elsewhere (Origin).
func warning(pos Pos, format string, args ...any) Warning {
	return Warning{Pos: pos, Msg: termtext.Printable(fmt.Sprintf(format, args...)) + pos.Origin.Note()}
}

// mapping is a checked mapping: its known keys, in order.
type mapping struct {
	n     *yaml.Node
	pairs []yamlnode.Pair
	has   map[string]*yaml.Node // key -> key node

	// suggested holds the keys offered for unknown keys; require does not
	// report them missing, so `promt:` is one error, not two.
	suggested map[string]bool
	// reported is set when a key of the mapping was reported (a list
	// as a key, a duplicate, an unknown key, a bad merge): see empty.
	reported bool
}

// empty reports whether m has no pairs and none of its keys was reported:
// a mapping whose only key is a list is one error, at the key, not also
// "is empty".
func (m *mapping) empty() bool { return len(m.pairs) == 0 && !m.reported }

// duplicateKey reports the second of two equal keys, naming the line
// where the first is written (the anchor's, for one copied by an alias).
func (p *fileParser) duplicateKey(pr yamlnode.Problem) {
	p.Errorf(pr.Node, "duplicate key %q (first at line %d)", pr.Node.Value, cmp.Or(p.Origin(pr.First).Line, pr.First.Line))
}

// pairs returns the pairs of mapping n, merge keys (<<) expanded (keys
// written in the mapping itself win over merged ones), and reports every
// problem; a key that is not a scalar is expected to be key (a key name, a
// variable name). ok is false when n is not a mapping at all.
func (p *fileParser) pairs(n *yaml.Node, key string) ([]yamlnode.Pair, bool) {
	pairs, probs, ok := yamlnode.Pairs(n, yamlnode.Options{Merge: true})
	for _, pr := range probs {
		switch pr.Kind {
		case yamlnode.NotMapping:
			p.Expected(pr.Node, "a mapping")
		case yamlnode.KeyNotName:
			p.Expected(pr.Node, key)
		case yamlnode.DuplicateKey:
			p.duplicateKey(pr)
		case yamlnode.BadMerge:
			p.Errorf(pr.Node, "a merge (<<) takes a mapping or a list of mappings, got %s", yamlnode.Describe(pr.Node))
		case yamlnode.MergeTooMuch:
			p.Errorf(pr.Node, "merge keys (<<) nested too deeply or too many")
		}
	}
	return pairs, ok
}

// mapping checks that n is a mapping whose keys are all in valid (any key
// when valid is nil), with no key twice, and reports every problem. Merge keys (<<) are expanded; keys
// written in the mapping itself win over merged ones. hint, when not nil,
// may add a sentence to the message about an unknown key. ok is false when
// n is not a mapping at all.
func (p *fileParser) mapping(n *yaml.Node, valid []string, hint func(key string) string) (m mapping, ok bool) {
	errs := len(p.Errs)
	pairs, ok := p.pairs(n, "a key name")
	if !ok {
		return m, false
	}
	m = mapping{n: yamlnode.Deref(n), has: map[string]*yaml.Node{}, suggested: map[string]bool{}}
	for _, kv := range pairs {
		m.add(p, kv, valid, hint)
	}
	m.reported = len(p.Errs) > errs
	return m, true
}

// value returns the value of key, or nil.
func (m *mapping) value(key string) *yaml.Node {
	for _, kv := range m.pairs {
		if kv.Key == key {
			return kv.V
		}
	}
	return nil
}

func (m *mapping) add(p *fileParser, kv yamlnode.Pair, valid []string, hint func(string) string) {
	if valid == nil || slices.Contains(valid, kv.Key) {
		m.pairs = append(m.pairs, kv)
		m.has[kv.Key] = kv.K
		return
	}
	if hint != nil {
		if h := hint(kv.Key); h != "" {
			// A key of another place is no typo: no key of this one is
			// suggested for it.
			p.errorAt(p.pos(kv.K), "unknown key %q (valid keys: %s); %s", kv.Key, strings.Join(valid, ", "), h)
			return
		}
	}
	if s, ok := suggest.Closest(kv.Key, valid); ok {
		m.suggested[s] = true
	}
	p.errorAt(p.pos(kv.K), "%s", unknownMsg("key", kv.Key, valid, "keys"))
}

// require reports each key of keys that m lacks, at the mapping.
func (p *fileParser) require(m mapping, keys ...string) {
	for _, k := range keys {
		if _, ok := m.has[k]; !ok && !m.suggested[k] {
			p.Errorf(m.n, "missing required key %q", k)
		}
	}
}

// str returns the text of a scalar. Any scalar but null is accepted, so
// `mode: 1` is the string "1".
func (p *fileParser) str(n *yaml.Node) (string, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.Expected(n, "a string")
		return "", false
	}
	return n.Value, true
}

// oneOf reads a string that must be one of valid: another is an error at
// n (see unknownMsg) that ends with more.
func (p *fileParser) oneOf(n *yaml.Node, noun string, valid []string, plural, more string) (string, bool) {
	s, ok := p.str(n)
	if ok && !slices.Contains(valid, s) {
		p.Errorf(n, "%s%s", unknownMsg(noun, s, valid, plural), more)
		return "", false
	}
	return s, ok
}

// strNodes returns the scalar nodes of a string or a list of strings. A
// single string is accepted when single is true. An empty list is
// reported when nonEmpty is true.
func (p *fileParser) strNodes(n *yaml.Node, single, nonEmpty bool) ([]*yaml.Node, bool) {
	n = yamlnode.Deref(n)
	switch {
	case n.Kind == yaml.ScalarNode && single && n.ShortTag() != "!!null":
		return []*yaml.Node{n}, true
	case n.Kind == yaml.SequenceNode:
		if nonEmpty && len(n.Content) == 0 {
			p.Errorf(n, "expected at least one value, got an empty list")
			return nil, false
		}
		out := make([]*yaml.Node, 0, len(n.Content))
		ok := true
		for _, item := range n.Content {
			if _, good := p.str(item); good {
				out = append(out, yamlnode.Deref(item))
			} else {
				ok = false
			}
		}
		return out, ok
	}
	if single {
		p.Expected(n, "a string or a list of strings")
	} else {
		p.Expected(n, "a list of strings")
	}
	return nil, false
}

// boolean reads true or false. Another value is an error that quotes it
// and, for a YAML 1.1 spelling such as yes, says what to write (see
// yamlnode.NotBoolean).
func (p *fileParser) boolean(n *yaml.Node) (bool, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		p.Errorf(n, "expected true or false, got %s", yamlnode.NotBoolean(n))
		return false, false
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		p.Errorf(n, "expected true or false, got %q", n.Value)
		return false, false
	}
	return b, true
}

// count reads a number of permission requests: an integer >= 0.
func (p *fileParser) count(n *yaml.Node) (*int, bool) {
	i, ok := p.wholeNumber(n, math.MaxInt32)
	if !ok {
		return nil, false
	}
	v := int(i)
	return &v, true
}

// wholeNumber reads a whole number from 0 to max. A number above max, or
// above what an int64 holds, is said to be too large, with the most it may
// be, whether it is written whole (9223372036854775808) or not (1e30).
func (p *fileParser) wholeNumber(n *yaml.Node, max int64) (int64, bool) {
	n = yamlnode.Deref(n)
	tag := n.ShortTag()
	var f float64
	if n.Kind == yaml.ScalarNode && tag == "!!float" && n.Decode(&f) == nil && f > float64(max) {
		p.Errorf(n, "%s is too large: the most it may be is %d", n.Value, max)
		return 0, false
	}
	i, isInt, err := wholeValue(n)
	if !isInt {
		p.Expected(n, "a whole number")
		return 0, false
	}
	switch {
	case err != nil && !strings.HasPrefix(n.Value, "-") || err == nil && i > max: // an !!int that does not fit is too large
		p.Errorf(n, "%s is too large: the most it may be is %d", n.Value, max)
	case err != nil || i < 0:
		p.Errorf(n, "expected a whole number from 0 up, got %s", n.Value)
	default:
		return i, true
	}
	return 0, false
}

// wholeValue returns the whole number scalar n (aliases followed) holds:
// an !!int, or an !!float without a fraction (2.0, 1e3), which JSON Schema,
// and so the schema acprun prints, counts as an integer. isInt is false for
// any other node; err is set for an !!int that an int64 cannot hold.
func wholeValue(n *yaml.Node) (i int64, isInt bool, err error) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode {
		return 0, false, nil
	}
	switch n.ShortTag() {
	case "!!int":
		err = n.Decode(&i)
		return i, true, err
	case "!!float":
		var f float64
		if n.Decode(&f) != nil || f != math.Trunc(f) || math.Abs(f) >= math.MaxInt64 {
			return 0, false, nil
		}
		return int64(f), true, nil
	}
	return 0, false, nil
}

// MaxRetries is the most retries a scenario may ask for.
const MaxRetries = 10

// retries reads a scenario's retries: a whole number from 0 to MaxRetries.
func (p *fileParser) retries(n *yaml.Node) (int, bool) {
	n = yamlnode.Deref(n)
	i, isInt, err := wholeValue(n)
	if !isInt || err != nil || i < 0 || i > MaxRetries {
		got := yamlnode.Describe(n)
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			got = n.Value
		}
		p.Errorf(n, "expected a whole number from 0 to %d (how many times an attempt that errored or was invalid is run again), got %s", MaxRetries, got)
		return 0, false
	}
	return int(i), true
}

// duration reads a positive Go duration such as 90s or 5m.
func (p *fileParser) duration(n *yaml.Node) (time.Duration, bool) {
	return p.parseDuration(n, false)
}

// parseDuration reads a Go duration with its unit, greater than zero or,
// when zero is true, zero or more. A bare number is refused even where
// time.ParseDuration takes it ("0"), as the schema refuses it.
func (p *fileParser) parseDuration(n *yaml.Node, zero bool) (time.Duration, bool) {
	n = yamlnode.Deref(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.ShortTag() == "!!bool" {
		p.Expected(n, "a duration like 90s or 5m")
		return 0, false
	}
	d, err := time.ParseDuration(n.Value)
	_, nerr := strconv.ParseFloat(n.Value, 64)
	bare := nerr == nil
	switch {
	case DurationTooLarge(n.Value, err):
		p.Errorf(n, "bad duration %q: %s", n.Value, errDurationTooLarge)
	case err != nil && strings.HasPrefix(n.Value, "-") && durationSyntax.MatchString(n.Value):
		d, err = -1, nil // negative, and too large besides
		fallthrough
	case d <= 0 && err == nil && !zero:
		p.Errorf(n, "bad duration %q: must be greater than zero", n.Value)
	case d < 0 && err == nil:
		p.Errorf(n, "bad duration %q: must not be negative", n.Value)
	case err != nil || bare:
		hint := ""
		if bare {
			hint = " (a unit is required)"
		}
		p.Errorf(n, "bad duration %q%s: use a Go duration like 90s, 5m or 1h30m", n.Value, hint)
	default:
		return d, true
	}
	return 0, false
}

// durationSyntax is the syntax of time.ParseDuration: its error for a
// value written so but too large to hold says nothing of the size.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|\x{b5}s|\x{3bc}s|ms|s|m|h))+$`)

// errDurationTooLarge says what the most a duration can be is.
var errDurationTooLarge = fmt.Sprintf("too large: the most it may be is %v", time.Duration(math.MaxInt64))

// DurationTooLarge reports whether err, time.ParseDuration's error for s,
// is that s, a positive duration in its syntax, is too large for a
// time.Duration (more than about 292 years).
func DurationTooLarge(s string, err error) bool {
	return err != nil && !strings.HasPrefix(s, "-") && durationSyntax.MatchString(s)
}

// DurationTooLargeError is the error of a duration that DurationTooLarge
// says is too large: it gives the most it may be.
func DurationTooLargeError(s string) error {
	return fmt.Errorf("%q is %s", s, errDurationTooLarge)
}

// regexp compiles an RE2 regular expression.
func (p *fileParser) regexp(n *yaml.Node) (*regexp.Regexp, bool) {
	s, ok := p.str(n)
	if !ok {
		return nil, false
	}
	re, err := regexp.Compile(s)
	if err != nil {
		p.Errorf(n, "bad regular expression: %v", err)
		return nil, false
	}
	return re, true
}

// interp expands variables in a scalar's text (see expand) and reports
// unset variables at the "${" when the scalar's text can be found on its
// line, else at the scalar.
func (p *fileParser) interp(n *yaml.Node) (string, bool) {
	s, ok := p.str(n)
	if !ok {
		return "", false
	}
	return p.interpAt(yamlnode.Deref(n), s, nil)
}

// interpAt expands s, which comes from scalar n; offs maps each byte of s
// to its offset in n.Value (nil: s is n.Value).
func (p *fileParser) interpAt(n *yaml.Node, s string, offs []int) (string, bool) {
	out, probs := expand(s, p.lookup)
	for _, pr := range probs {
		off := pr.off
		if offs != nil {
			off = offs[off]
		}
		if pr.unset && p.deferUnset {
			p.unset = append(p.unset, p.newError(p.posIn(n, off), pr.msg))
			continue
		}
		p.errorAt(p.posIn(n, off), "%s", pr.msg)
	}
	return out, len(probs) == 0
}

// interpArg is interp for a value handed to the operating system: a
// program's argument or environment, or a path. It also refuses a NUL
// byte (see noNUL).
func (p *fileParser) interpArg(n *yaml.Node) (string, bool) {
	s, ok := p.interp(n)
	if !ok || !p.noNUL(n, s) {
		return "", false
	}
	return s, true
}

// secretValue is interpArg for a value that is a secret (an env
// variable's, an MCP server header's): it also keeps how the file writes
// it, where that differs from its value (Agent.Spelled, see written).
func (p *fileParser) secretValue(n *yaml.Node) (string, bool) {
	p.spelled = append(p.spelled, p.written(n)...)
	return p.interpArg(n)
}

// written returns how the file writes the secret value of scalar n where
// that differs from the value, as a line of the file shows it: the value
// as written, before its templates ({{.NAME}}) are rendered and its
// ${VAR} expanded, when it has some, and that text's spelling (see
// yamlnode.Reader.Spelling: escapes, a doubled ', folded lines). A value
// the file gives no text of besides the references ("${API_KEY}",
// "{{.token}}" alone, which a scenario's name shows) has none: its line
// shows no part of the secret, and "${API_KEY}" stays readable in every
// message.
func (p *fileParser) written(n *yaml.Node) []string {
	src := p.Source(n)
	if src == nil || src.Kind != yaml.ScalarNode {
		return nil
	}
	var out []string
	if lit := literalText(src.Value); lit != src.Value {
		if len(redact.New(lit).Values()) == 0 {
			return nil
		}
		out = append(out, src.Value)
	}
	if s := p.Spelling(src); s != "" {
		out = append(out, s)
	}
	return out
}

// literalText is s without its templates ({{.NAME}}; a literal one, such
// as {{"{{"}}, gives its text) and with each ${VAR} empty (a default
// given): the text of a value that the file itself gives.
func literalText(s string) string {
	ts, _ := templates(s)
	vars := make([]Var, 0, len(ts))
	for _, t := range ts {
		vars = append(vars, Var{Name: t.name})
	}
	out, _ := expand(render(s, vars), func(string) (string, bool) { return "", false })
	return out
}

// noNUL reports s, the value of scalar n (as written or expanded), when it
// contains a NUL byte: no program argument, environment variable or file
// name can hold one, so the value would only fail once the run starts.
// The error is at the NUL when it can be placed, else at n.
func (p *fileParser) noNUL(n *yaml.Node, s string) bool {
	if strings.IndexByte(s, 0) < 0 {
		return true
	}
	n = yamlnode.Deref(n)
	p.errorAt(p.posIn(n, strings.IndexByte(n.Value, 0)), "%q contains a NUL byte, which no program can take: remove it", s)
	return false
}

// posIn returns the position of byte off of scalar n's value, where
// yamlnode.Reader.ColIn can place it, else the scalar's. For a copy of
// what an alias stands for, it is the alias's position, and the exact one
// is its Origin's.
func (p *fileParser) posIn(n *yaml.Node, off int) Pos {
	pos := p.pos(n)
	if pos.Origin != (srcerr.Origin{}) {
		pos.Origin.Col = p.ColIn(n, pos.Origin.Line, pos.Origin.Col, off)
	} else {
		pos.Col = p.ColIn(n, pos.Line, pos.Col, off)
	}
	return pos
}
