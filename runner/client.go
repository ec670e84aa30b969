package runner

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/attach"
	"github.com/acprun/acprun/internal/jail"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/sandbox"
	"github.com/acprun/acprun/internal/terminal"
	"github.com/acprun/acprun/report"
)

// ClientConfig says what acprun serves the agent as a client.
type ClientConfig struct {
	FS, Terminal, ReadOnly bool
	// Roots are where the agent's requests are served besides Cwd,
	// always a root as ACP's cwd is (absolute).
	Roots  []string
	Cwd    string // session cwd, absolute
	Policy *approve.Policy
	Env    []string // base environment of terminals
	// Hidden lists the paths the sandbox hides (absolute): refused inside
	// the roots as paths outside them are.
	Hidden []string
	// Writable lists, with a sandbox, the paths it lets the agent write
	// (absolute): fs/write_text_file writes only there (and in the roots),
	// since acprun writes from outside the sandbox what the agent asks.
	// nil without a sandbox: every root is writable.
	Writable []string
	// Elicitation advertises form elicitation: the scenario scripts
	// answers to the agent's questions.
	Elicitation bool
	// Attached are the files the scenario's prompts have given the agent
	// so far, by their absolute path as the prompt's resource_link has
	// it: fs/read_text_file serves them, read-only, outside the roots and
	// in hidden paths too, as the prompt gave them. nil: none.
	Attached *Attachments
	// Redact shows a cut of the agent's text in what the client says
	// (the reason of a refused command) knowing the whole text (see
	// policyExcerpt). nil: the cut is shown as it is.
	Redact *redact.Redactor
}

// Attachments are the files a session's prompts have given the agent
// (ClientConfig.Attached). A file is given when the prompt that attaches
// it is built, and served as it was then: one changed since is refused,
// not served as it is now, and one a later turn attaches is not served
// before that turn.
type Attachments struct {
	read  func(path string) ([]byte, error)
	mu    sync.Mutex
	given map[string][sha256.Size]byte
}

// NewAttachments returns the Attachments of a session whose files are
// read with read.
func NewAttachments(read func(path string) ([]byte, error)) *Attachments {
	return &Attachments{read: read, given: map[string][sha256.Size]byte{}}
}

// Give records that a prompt gave the agent the file path, holding data;
// on nil Attachments it does nothing.
func (a *Attachments) Give(path string, data []byte) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.given[filepath.Clean(path)] = sha256.Sum256(data)
}

// serve reads the file path as a prompt gave it: given is false when no
// prompt has given it; err says when it cannot be read, or has changed
// since.
func (a *Attachments) serve(path string) (data []byte, given bool, err error) {
	if a == nil {
		return nil, false, nil
	}
	a.mu.Lock()
	sum, given := a.given[filepath.Clean(path)]
	a.mu.Unlock()
	if !given {
		return nil, false, nil
	}
	data, err = a.read(path)
	if err == nil && sha256.Sum256(data) != sum {
		err = errors.New("the attached file has changed since its prompt gave it")
	}
	return data, true, err
}

// maxAnswer bounds the content of an answer: a file fs/read_text_file
// reads, the output terminal/output sends, as sent, escaped in a JSON
// string (a NUL or other control byte takes six bytes, \u0000), so that
// an agent's SDK can read the line (the Go SDK's cap is 10 MiB). A read
// whose answer would be larger is refused and told to read the file in
// parts with line and limit: acprun holds at most this much of a file,
// whatever its size, and so do the results' messages and transcripts.
// Whole source files fit (agents' edit tools read the whole file); agents
// read larger ones in slices. Output is cut at its beginning to fit, as
// it is to fit a terminal's outputByteLimit.
const maxAnswer = 8 << 20

// terminalBudget bounds the output a session's terminals hold in memory,
// until the agent releases them: each counts for its outputByteLimit (its
// output may grow to it) until its exit was reported to the agent (a
// terminal/wait_for_exit answered, a terminal/output whose answer carries
// the exit status), then for the output it kept. A terminal/create that
// could take them past it is refused, and the agent told to release
// terminals or ask for a smaller outputByteLimit: an agent that runs
// chatty commands without end cannot take acprun's memory. Whether a
// terminal/create is refused depends on the agent's messages only, not on
// how fast the commands run: a command that ended unreported counts as
// one running (an agent that sends terminal/create once it has read the
// answer that reported an exit sees it counted so, every run).
const terminalBudget = 64 << 20

// readChunk is the buffer fs/read_text_file reads a file through: longer
// lines are read in parts.
const readChunk = 64 << 10

// clientServer serves the agent's fs/* and terminal/* requests, inside the
// roots: the agent is untrusted. Its methods may be called from many
// goroutines at once.
type clientServer struct {
	cfg     ClientConfig
	jail    *jail.Jail // nil when jailErr is set or nothing is served
	jailErr error
	terms   *terminal.Manager
	// commands are the terminals' command lines, as recorded, by id.
	commands sync.Map
	// exits are, by terminal id, the lines of the answers that can tell
	// that the terminal's command ended (see exitPlace). waits are the
	// terminal/wait_for_exits that found their terminal and wait for its
	// command, in the order they came; killed are the ids of the
	// terminals a cancel killed running, and killTail is closed once the
	// answer to the last wait such a kill ended is out (see killAll).
	// Guarded by exitsMu.
	exits    map[string]*answerLine
	waits    []*waiting
	killed   map[string]bool
	killTail <-chan struct{}
	exitsMu  sync.Mutex
	// sandbox is the agent's sandbox, which its terminals run in too; nil
	// for none.
	sandbox atomic.Pointer[sandbox.Applied]
	// beforeStart, when set (by tests), runs once a terminal's cwd was
	// checked, before its command starts.
	beforeStart func()
	// budgetWarned is set once a terminal/create past terminalBudget was
	// warned of.
	budgetWarned atomic.Bool
}

func newClientServer(cfg ClientConfig) *clientServer {
	c := &clientServer{cfg: cfg, terms: terminal.NewManager(terminalBudget), exits: map[string]*answerLine{}, killed: map[string]bool{}}
	if cfg.FS || cfg.Terminal {
		opts := []jail.Option{jail.WithReadOnly(cfg.ReadOnly), jail.WithHidden(cfg.Hidden)}
		if cfg.Writable != nil {
			opts = append(opts, jail.WithWritable(cfg.Writable))
		}
		c.jail, c.jailErr = jail.New(servedRoots(cfg.Cwd, cfg.Roots), opts...)
	}
	return c
}

// capabilities returns what initialize advertises: fs and terminal as
// configured, form elicitation when there are answers to give, notices and
// compaction updates (which the results record).
// A read-only client still advertises writeTextFile, so that agents route
// their writes through acprun, which refuses them, instead of writing on
// their own.
func (c *clientServer) capabilities() acp.ClientCapabilities {
	caps := acp.ClientCapabilities{
		FS:       acp.FileSystemCapabilities{ReadTextFile: c.cfg.FS, WriteTextFile: c.cfg.FS},
		Terminal: c.cfg.Terminal,
		Session:  &acp.ClientSessionCapabilities{Notices: &acp.Capability{}, Compaction: &acp.Capability{}},
	}
	if c.cfg.Elicitation {
		caps.Elicitation = &acp.ElicitationCapabilities{Form: &acp.Capability{}}
	}
	return caps
}

// clientMethods are the methods a clientServer serves: every fs/* and
// terminal/* method, so that those called without the capability are
// recorded (and answered -32601). fs says the method is one of fs (else of
// terminals); serve serves it.
var clientMethods = map[string]struct {
	fs    bool
	serve func(c *clientServer, ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error)
}{
	acp.MethodFSReadTextFile:      {true, (*clientServer).readTextFile},
	acp.MethodFSWriteTextFile:     {true, (*clientServer).writeTextFile},
	acp.MethodTerminalCreate:      {false, (*clientServer).createTerminal},
	acp.MethodTerminalOutput:      {false, (*clientServer).terminalOutput},
	acp.MethodTerminalWaitForExit: {false, (*clientServer).waitForExit},
	acp.MethodTerminalKill:        {false, (*clientServer).killTerminal},
	acp.MethodTerminalRelease:     {false, (*clientServer).releaseTerminal},
}

// serves reports whether method is one this server answers (clientMethods).
func (c *clientServer) serves(method string) bool {
	_, ok := clientMethods[method]
	return ok
}

// handle serves one request and returns the result, its record, and an error
// (an *acp.Error for refusals).
func (c *clientServer) handle(ctx context.Context, req *acp.Request) (any, report.ClientRequest, error) {
	rec := report.ClientRequest{Method: req.Method}
	m, ok := clientMethods[req.Method]
	switch {
	case !ok:
		return nil, rec, acp.MethodNotFound(req.Method)
	case m.fs && !c.cfg.FS:
		return nil, rec, refuse(&rec, acp.CodeMethodNotFound, "Method not found: %s (the client does not offer fs)", req.Method)
	case !m.fs && !c.cfg.Terminal:
		return nil, rec, refuse(&rec, acp.CodeMethodNotFound, "Method not found: %s (the client does not offer terminals)", req.Method)
	}
	result, err := m.serve(c, ctx, req, &rec)
	return result, rec, err // no result with an error
}

// refuse records and returns a refusal.
func refuse(rec *report.ClientRequest, code int, format string, args ...any) error {
	e := acp.NewError(code, format, args...)
	rec.Refused = e.Message
	return e
}

// fail records and returns a failure of an allowed request.
func fail(rec *report.ClientRequest, code int, format string, args ...any) error {
	e := acp.NewError(code, format, args...)
	rec.Error = e.Message
	return e
}

// decode reads the request's params into v. Params that do not decode
// are refused, recorded with what they name that decodes on its own: the
// path, and a terminal's command (see malformedCommand), so a malformed
// member elsewhere does not lose what the agent asked for.
func decode(req *acp.Request, v any, rec *report.ClientRequest) error {
	if len(req.Params) == 0 {
		return refuse(rec, acp.CodeInvalidParams, "invalid params: none given")
	}
	if err := req.DecodeParams(v); err != nil {
		var named map[string]json.RawMessage
		if req.DecodeParams(&named) == nil {
			var path string
			if json.Unmarshal(named["path"], &path) == nil {
				rec.Path = path
			}
			if req.Method == acp.MethodTerminalCreate {
				rec.Command = malformedCommand(named["command"], named["args"])
			}
		}
		return refuse(rec, acp.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// malformedCommand is the command line of a terminal/create whose params
// do not decode: "" when the command is not a string, else the command
// with its args, each word that is not a string written as the JSON the
// agent sent (args that are not an array, as one such word).
func malformedCommand(command, args json.RawMessage) string {
	var name string
	if json.Unmarshal(command, &name) != nil || name == "" {
		return ""
	}
	var raw []json.RawMessage
	if json.Unmarshal(args, &raw) != nil {
		if len(args) == 0 || string(args) == "null" {
			return name
		}
		return commandLine(name, []string{compactJSON(args)})
	}
	words := make([]string, len(raw))
	for i, r := range raw {
		if json.Unmarshal(r, &words[i]) != nil || r[0] != '"' {
			words[i] = compactJSON(r)
		}
	}
	return commandLine(name, words)
}

// compactJSON is raw JSON without its insignificant spaces.
func compactJSON(r json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return string(r)
	}
	return b.String()
}

// checkPath refuses a path (what names it: "path", "cwd") that has a NUL
// byte or is not absolute.
func checkPath(rec *report.ClientRequest, what, path string) error {
	if strings.ContainsRune(path, 0) {
		return refuse(rec, acp.CodeInvalidParams, "%s contains a NUL byte: %q", what, path)
	}
	if !filepath.IsAbs(path) {
		return refuse(rec, acp.CodeInvalidParams, "%s must be absolute: %q", what, path)
	}
	return nil
}

// jailed checks that the roots could be opened.
func (c *clientServer) jailed(rec *report.ClientRequest) error {
	if c.jailErr != nil {
		return fail(rec, acp.CodeInternalError, "the client's roots are unusable: %v", c.jailErr)
	}
	return nil
}

// jailError turns an error of the jail into the answer and the record.
func (c *clientServer) jailError(rec *report.ClientRequest, path string, err error) error {
	switch {
	case errors.Is(err, jail.ErrOutside):
		return refuse(rec, acp.CodeInvalidParams, "%s is outside the allowed roots (%s)", path, strings.Join(c.jail.Roots(), ", "))
	case errors.Is(err, jail.ErrHidden):
		return refuse(rec, acp.CodeInvalidParams, "%s is hidden by the sandbox (sandbox.hide, or a path every sandbox hides)", path)
	case errors.Is(err, jail.ErrReadOnly):
		return refuse(rec, acp.CodeInvalidParams, "%s: the client is read-only", path)
	case errors.Is(err, jail.ErrNotWritable):
		return refuse(rec, acp.CodeInvalidParams, "%s is read-only in the sandbox: acprun writes for the agent only in the sandbox's write paths (%s)", path, strings.Join(c.cfg.Writable, ", "))
	case errors.Is(err, jail.ErrNotAbsolute):
		return refuse(rec, acp.CodeInvalidParams, "path must be absolute: %q", path)
	case errors.Is(err, jail.ErrChanged):
		return refuse(rec, acp.CodeInvalidParams, "%s changed while acprun opened it (a symlink or a file took the place of a directory on its path): nothing written", path)
	}
	// Where the path stops, when the jail says (see jail.Jail.Resolve).
	var stop *fs.PathError
	if !errors.As(err, &stop) {
		stop = &fs.PathError{Path: path}
	}
	switch {
	case errors.Is(err, jail.ErrNotFound) && stop.Path != path:
		return fail(rec, acp.CodeResourceNotFound, "Resource not found: %s: %s does not exist", path, stop.Path)
	case errors.Is(err, jail.ErrNotFound):
		return fail(rec, acp.CodeResourceNotFound, "Resource not found: %s: file not found", path)
	case errors.Is(err, jail.ErrNotRegular):
		return fail(rec, acp.CodeInvalidParams, "%s is not a regular file", path)
	case errors.Is(err, syscall.ELOOP):
		return fail(rec, acp.CodeInvalidParams, "%s: too many levels of symbolic links (a symlink loop?)", path)
	case errors.Is(err, syscall.ENOTDIR) && stop.Path != path:
		return fail(rec, acp.CodeInvalidParams, "%s: %s is not a directory", path, stop.Path)
	case errors.Is(err, syscall.ENOTDIR):
		return fail(rec, acp.CodeInvalidParams, "%s is not a directory", path)
	}
	return fail(rec, acp.CodeInternalError, "%v", err)
}

// readTextFile serves fs/read_text_file: the lines asked for, streamed
// from the file so that only the answer is held, refused when it would be
// larger than maxAnswer.
func (c *clientServer) readTextFile(ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	var p acp.ReadTextFileRequest
	if err := decode(req, &p, rec); err != nil {
		return nil, err
	}
	rec.Path = p.Path
	if err := checkPath(rec, "path", p.Path); err != nil {
		return nil, err
	}
	if err := c.jailed(rec); err != nil {
		return nil, err
	}
	var f io.Reader
	file, err := c.jail.OpenRead(p.Path)
	switch {
	case err == nil:
		defer file.Close()
		f = file
	case errors.Is(err, jail.ErrOutside) || errors.Is(err, jail.ErrHidden):
		// The scenario gave the agent this file: served wherever it is.
		data, given, aerr := c.cfg.Attached.serve(p.Path)
		if !given {
			return nil, c.jailError(rec, p.Path, err)
		}
		if aerr != nil {
			return nil, refuse(rec, acp.CodeInvalidParams, "%s: %v", p.Path, aerr)
		}
		f = bytes.NewReader(data)
	default:
		return nil, c.jailError(rec, p.Path, err)
	}
	first, limit := 1, -1
	if p.Line != nil && *p.Line > 1 {
		first = *p.Line
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	content, err := readLines(ctx, f, first, limit, maxAnswer)
	var big *answerTooLarge
	switch {
	case errors.As(err, &big):
		return nil, refuse(rec, acp.CodeInvalidParams, "%s: %v", p.Path, big)
	case ctx.Err() != nil:
		return nil, fail(rec, acp.CodeRequestCancelled, "%v", context.Cause(ctx))
	case err != nil:
		return nil, fail(rec, acp.CodeInternalError, "%v", err)
	}
	rec.Bytes = len(content)
	return acp.ReadTextFileResponse{Content: content}, nil
}

// answerTooLarge is the error of readLines when the lines asked for take
// more than its max bytes as JSON.
type answerTooLarge struct {
	max   int
	first int  // the first line asked for
	line  int  // the first line that did not fit
	nul   bool // the lines read hold NUL bytes
}

func (e *answerTooLarge) Error() string {
	msg := fmt.Sprintf("the answer would be larger than %d MiB, the most acprun sends at once (counted as JSON, where a NUL or other control byte takes 6 bytes): ", e.max>>20)
	if e.line == e.first {
		msg += fmt.Sprintf("line %d alone is larger, fs/read_text_file cannot read it", e.line)
	} else {
		msg += fmt.Sprintf("read the file in parts with line and limit (lines %d to %d fit)", e.first, e.line-1)
	}
	if e.nul {
		msg += "; it holds NUL bytes: is it a text file?"
	}
	return msg
}

// readLines reads r to return limit lines from line first (1-based; limit
// < 0: all), line endings kept: the last line may have none. It holds no
// more than the answer: lines before first are read and dropped, and the
// answer may take at most max bytes in a JSON string (attach.JSONSize), else the
// error is an *answerTooLarge. It stops early with ctx's error when ctx
// ends.
func readLines(ctx context.Context, r io.Reader, first, limit, max int) (string, error) {
	br := bufio.NewReaderSize(r, readChunk)
	var buf []byte  // the answer
	size := 0       // of the answer's complete lines, as JSON
	line := 1       // the line being read
	lineStart := 0  // its start in buf
	inLine := false // some of it was read
	for limit < 0 || line-first < limit {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		frag, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return "", err
		}
		inLine = inLine || len(frag) > 0
		if line >= first {
			buf = append(buf, frag...)
			if len(buf) > max {
				return "", &answerTooLarge{max: max, first: first, line: line, nul: bytes.IndexByte(buf, 0) >= 0}
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if inLine && line >= first {
			if size += attach.JSONSize(buf[lineStart:]); size > max {
				return "", &answerTooLarge{max: max, first: first, line: line, nul: bytes.IndexByte(buf, 0) >= 0}
			}
			lineStart = len(buf)
		}
		if inLine {
			line++
			inLine = false
		}
		if err == io.EOF {
			break
		}
	}
	return string(buf), nil
}

// fitTail returns the longest end of s, starting at a character, that
// takes at most max bytes in a JSON string (attach.JSONSize).
func fitTail(s string, max int) string {
	n := attach.JSONSize([]byte(s))
	for n > max {
		_, w := utf8.DecodeRuneInString(s)
		n -= attach.JSONSize([]byte(s[:w]))
		s = s[w:]
	}
	return s
}

func (c *clientServer) writeTextFile(_ context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	var p acp.WriteTextFileRequest
	if err := decode(req, &p, rec); err != nil {
		return nil, err
	}
	rec.Path = p.Path
	rec.Bytes = len(p.Content)
	if err := checkPath(rec, "path", p.Path); err != nil {
		return nil, err
	}
	if c.cfg.ReadOnly {
		return nil, refuse(rec, acp.CodeInvalidParams, "%s: the client is read-only", p.Path)
	}
	if err := c.jailed(rec); err != nil {
		return nil, err
	}
	if err := c.jail.WriteFile(p.Path, []byte(p.Content)); err != nil {
		return nil, c.jailError(rec, p.Path, err)
	}
	return acp.WriteTextFileResponse{}, nil
}

func (c *clientServer) createTerminal(_ context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	var p acp.CreateTerminalRequest
	if err := decode(req, &p, rec); err != nil {
		return nil, err
	}
	rec.Command = commandLine(p.Command, p.Args)
	if strings.TrimSpace(p.Command) == "" {
		return nil, refuse(rec, acp.CodeInvalidParams, "empty command")
	}
	for i, e := range p.Env {
		// The policy sees the variables as assignments written before the
		// command, so a name must read as one: a name with "=" would also
		// set another variable than the one named (INJ=EVIL=x sets INJ),
		// and NUL cannot be passed at all.
		if !shellName(e.Name) || strings.ContainsRune(e.Value, 0) {
			return nil, refuse(rec, acp.CodeInvalidParams,
				"invalid params: env[%d]: bad environment variable %q: a name must be letters, digits and _ (not starting with a digit), a value without NUL", i, e.Name)
		}
	}
	line := envLine(p.Env, rec.Command)
	rec.Command = line
	cwd := cmp.Or(p.Cwd, c.cfg.Cwd)
	if err := checkPath(rec, "cwd", cwd); err != nil {
		return nil, err
	}
	limit := terminal.DefaultOutputLimit
	if n := p.OutputByteLimit; n != nil {
		// 0 keeps none, as the agent asked; more than maxAnswer never
		// fits an answer (a byte takes at least one in JSON).
		limit = int(min(*n, maxAnswer))
	}
	if d := c.decide(line, cwd, rec); d.Verdict != approve.Allow {
		if d.RuleList == approve.ListDeny {
			return nil, refuse(rec, acp.CodeInvalidParams, "command denied by rule %s: %s", d.Rule, line)
		}
		return nil, refuse(rec, acp.CodeInvalidParams, "command denied (%s): %s", d.Reason, line)
	}
	if err := c.jailed(rec); err != nil {
		return nil, err
	}
	// Held open until the command has started in it: a path swapped
	// since the check cannot lead the command elsewhere.
	dir, err := c.jail.OpenDir(cwd)
	switch {
	case errors.Is(err, jail.ErrNotFound):
		return nil, fail(rec, acp.CodeResourceNotFound, "Resource not found: the cwd %s does not exist", cwd)
	case err != nil:
		return nil, c.jailError(rec, cwd, err)
	}
	defer dir.Close()
	env := append([]string(nil), c.cfg.Env...)
	if len(p.Env) > 0 {
		m := make(map[string]string, len(p.Env))
		for _, e := range p.Env {
			m[e.Name] = e.Value
		}
		env = reap.Of(c.cfg.Env).Set(mergeEnv(env, m)) // the agent cannot unmark its terminals
	}
	cfg := terminal.Config{
		Command:     p.Command,
		Args:        p.Args,
		Env:         env,
		Dir:         dir,
		OutputLimit: &limit,
	}
	if a := c.sandbox.Load(); a != nil {
		cfg.Sandbox = a.Wrap
	}
	if c.beforeStart != nil {
		c.beforeStart()
	}
	id, _, err := c.terms.Create(cfg)
	var over *terminal.BudgetError
	switch {
	case errors.As(err, &over):
		return nil, c.overBudget(rec, over)
	case err != nil:
		return nil, fail(rec, acp.CodeInternalError, "%v", err)
	}
	rec.TerminalID = id
	c.commands.Store(id, rec.Command)
	return acp.CreateTerminalResponse{TerminalID: id}, nil
}

// overBudget refuses a terminal/create past terminalBudget, and warns of
// the first such refusal of the session.
func (c *clientServer) overBudget(rec *report.ClientRequest, over *terminal.BudgetError) error {
	err := refuse(rec, acp.CodeInvalidParams, "the session's terminals may hold %s of output (each its outputByteLimit, until its exit was reported by terminal/wait_for_exit or terminal/output, then the output it kept); "+
		"this one's output limit of %s (outputByteLimit, %s by default) would take them past %s, the most acprun keeps for them: "+
		"release the terminals no longer needed (terminal/release), or ask for a smaller outputByteLimit",
		byteSize(over.Held), byteSize(over.Limit), byteSize(terminal.DefaultOutputLimit), byteSize(over.Budget))
	if !c.budgetWarned.CompareAndSwap(false, true) {
		return err
	}
	return &warnedError{err, fmt.Sprintf("terminal/create (%q) refused: the agent's unreleased terminals may hold %s of output, and its output limit of %s would take them past %s, "+
		"the most acprun keeps for a session's terminals; later terminals past it are refused too, without a warning",
		shortCommand(c.cfg.Redact, rec.Command), byteSize(over.Held), byteSize(over.Limit), byteSize(over.Budget))}
}

// warnedError is the error of a client request that the scenario's
// results also warn of.
type warnedError struct {
	error
	warning string
}

func (e *warnedError) Unwrap() error { return e.error }

// byteSize writes n bytes in MiB, or in bytes when less than one.
func byteSize(n int) string {
	switch {
	case n < 1<<20:
		return fmt.Sprintf("%d bytes", n)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// decide puts a command the agent wants to run to the policy, exactly as
// a permission request of kind execute for that command line would be
// (deny rules, then allow rules, then the default; a nil policy denies),
// with relative paths in it resolved against the terminal's cwd, and
// records the decision. The decision's reason is redacted of the parts of
// the secrets the line holds (see splitRedacted).
func (c *clientServer) decide(line, cwd string, rec *report.ClientRequest) approve.Decision {
	raw, _ := json.Marshal(map[string]string{"command": line})
	req := PermissionRequest(acp.ToolCall{Title: line, Kind: acp.KindExecute, RawInput: raw}, nil, cmp.Or(c.cfg.Cwd, cwd))
	req.Dir = cwd
	req.Excerpt = policyExcerpt(c.cfg.Redact)
	d := c.cfg.Policy.Evaluate(req)
	d.Commands, d.Paths, d.Reason = splitRedacted(c.cfg.Redact, req, d)
	rec.Decision, rec.Rule, rec.Reason = string(d.Verdict), d.Rule, decisionReason(c.cfg.Policy, d)
	return d
}

// policyExcerpt is the approve.Request.Excerpt that shows the start of a
// value a decision's reason cuts (a long command) as red redacts it,
// knowing the whole value: no part of a secret the cut goes through is
// shown (redact.Redactor.Excerpt). The reason is redacted again where it
// is written; the cut cannot be, then, for its rest is gone.
func policyExcerpt(red *redact.Redactor) func(text string, end int) string {
	return func(text string, end int) string { return red.Excerpt(text, 0, end, false) }
}

// decisionReason says why the policy decided as it did. It names rules
// but none of the agent's text (the record's Command holds the command),
// so that it needs no redaction.
func decisionReason(p *approve.Policy, d approve.Decision) string {
	switch {
	case p == nil:
		return "no permissions; default deny"
	case d.RuleList == approve.ListDeny:
		return "deny rule " + d.Rule + " matched"
	case d.RuleList == approve.ListAllow:
		return "allow rule " + d.Rule + " matched"
	}
	reason := "no rule matched; default " + string(d.Verdict)
	if p.Source != "" {
		reason += " (" + p.Source + ")"
	}
	return reason
}

// commandLine is the command with its arguments as one shell line: the
// command alone when there are no args (agents send whole shell lines).
func commandLine(command string, args []string) string {
	if len(args) == 0 {
		return command
	}
	return approve.QuoteArgv(append([]string{command}, args...))
}

// envLine is line with the terminal's env variables written before it as
// assignments (NAME=value, the value quoted as the shell needs): what the
// policy sees and the results record, since the command runs with them.
func envLine(env []acp.EnvVariable, line string) string {
	if len(env) == 0 {
		return line
	}
	var b strings.Builder
	for _, e := range env {
		b.WriteString(e.Name + "=" + approve.QuoteWord(e.Value) + " ")
	}
	return b.String() + line
}

// shellName reports whether s is a shell variable name: letters, digits
// and _, not starting with a digit.
func shellName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// terminalRef decodes the params shared by terminal/output, wait_for_exit,
// kill and release, and finds the terminal with find (c.terms.Get, or
// Release).
func terminalRef(req *acp.Request, rec *report.ClientRequest, find func(id string) (*terminal.Terminal, error)) (*terminal.Terminal, error) {
	var p acp.TerminalOutputRequest
	if err := decode(req, &p, rec); err != nil {
		return nil, err
	}
	rec.TerminalID = p.TerminalID
	t, err := find(p.TerminalID)
	if err != nil {
		return nil, fail(rec, acp.CodeResourceNotFound, "Resource not found: unknown terminal %q", p.TerminalID)
	}
	return t, nil
}

// recordExit puts an exit status into the record and returns it in ACP's
// shape.
func recordExit(rec *report.ClientRequest, st terminal.ExitStatus) (*int, *string) {
	var sig *string
	if st.Code != nil {
		code := *st.Code
		rec.ExitCode = &code
	}
	if st.Signal != "" {
		s := st.Signal
		rec.Signal, sig = s, &s
	}
	return rec.ExitCode, sig
}

func (c *clientServer) terminalOutput(ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	t, err := terminalRef(req, rec, c.terms.Get)
	if err != nil {
		return nil, err
	}
	out, truncated, st := t.Output()
	if st != nil {
		// It says the command ended: answered after the waits of the
		// terminal sent before it, which the end woke.
		prev, placed := c.exitPlace(rec.TerminalID, false)
		defer answerInPlace(ctx, prev, placed)
	}
	if fit := fitTail(out, maxAnswer); len(fit) < len(out) {
		out, truncated = fit, true
	}
	rec.Bytes, rec.Truncated = len(out), truncated
	resp := acp.TerminalOutputResponse{Output: out, Truncated: truncated}
	if st != nil {
		code, sig := recordExit(rec, *st)
		resp.ExitStatus = &acp.TerminalExitStatus{ExitCode: code, Signal: sig}
		t.MarkReported() // before the answer is written: see terminalBudget
	}
	return resp, nil
}

// exitPlace takes the place of a terminal/wait_for_exit, kill or release
// of the terminal id, or of a terminal/output that says its command
// ended, in the line of their answers, which are written in the order the
// requests came (answerInPlace): a wait is answered as the command ends,
// and so is the release that ends it or the output that sees it ended, by
// goroutines that the same moment can wake in any order; a kill sent
// after a wait is answered after it, once the command ended. The caller takes it in its
// request's place in the line of client requests (see
// session.lineLocked), so in the order they came; forget, for a release,
// drops the id's line: the id is unknown from then on.
func (c *clientServer) exitPlace(id string, forget bool) (prev <-chan struct{}, out chan struct{}) {
	c.exitsMu.Lock()
	defer c.exitsMu.Unlock()
	l := c.exits[id]
	if l == nil {
		l = &answerLine{}
		c.exits[id] = l
	}
	if forget {
		delete(c.exits, id)
		delete(c.killed, id)
	}
	return l.answerPlace()
}

// waiting is a terminal/wait_for_exit that found its terminal and waits
// for its command.
type waiting struct {
	id  string          // the terminal's
	out <-chan struct{} // closed once its answer is out
	// after is closed once the answer to the wait before it that a kill
	// of killAll ended is out; nil for none. chained says that killAll
	// set it.
	after   <-chan struct{}
	chained bool
}

// startWait starts the wait of a terminal/wait_for_exit of the terminal
// id, whose answer is out once out is closed. One that comes once a
// cancel killed the command is answered after the waits the kill ended
// (see killAll).
func (c *clientServer) startWait(id string, out <-chan struct{}) *waiting {
	c.exitsMu.Lock()
	defer c.exitsMu.Unlock()
	w := &waiting{id: id, out: out}
	if c.killed[id] {
		w.after, w.chained, c.killTail = c.killTail, true, out
	}
	c.waits = append(c.waits, w)
	return w
}

// stopWait ends w's wait, its command ended (or its ctx), and returns
// what its answer waits for (see killAll): nil for nothing.
func (c *clientServer) stopWait(w *waiting) <-chan struct{} {
	c.exitsMu.Lock()
	defer c.exitsMu.Unlock()
	c.waits = slices.DeleteFunc(c.waits, func(x *waiting) bool { return x == w })
	return w.after
}

// exitOf returns how the command of the terminal id ended; false while it
// runs, or for an unknown id.
func (c *clientServer) exitOf(id string) (terminal.ExitStatus, bool) {
	t, err := c.terms.Get(id)
	if err != nil || !isClosed(t.Done()) {
		return terminal.ExitStatus{}, false
	}
	code, sig := t.ExitStatus()
	return terminal.ExitStatus{Code: code, Signal: sig}, true
}

func (c *clientServer) waitForExit(ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	t, err := terminalRef(req, rec, c.terms.Get)
	if err != nil {
		return nil, err
	}
	// Answered after the kills and waits of the terminal sent before it.
	prev, out := c.exitPlace(rec.TerminalID, false)
	defer answerInPlace(ctx, prev, out)
	w := c.startWait(rec.TerminalID, out)
	lookedUp(ctx) // the requests behind it go on while it waits
	st, err := t.Wait(ctx)
	if after := c.stopWait(w); after != nil && !isClosed(after) {
		acp.Async(ctx)
		waitFor(ctx, after) // ended by a cancel's kill with others: answered in their order
	}
	if err != nil {
		return nil, fail(rec, acp.CodeRequestCancelled, "%s", unanswered(ctx))
	}
	code, sig := recordExit(rec, st)
	t.MarkReported() // before the answer is written: see terminalBudget
	return acp.WaitForTerminalExitResponse{ExitCode: code, Signal: sig}, nil
}

// unanswered says why a request whose handler's ctx ended was not
// answered: the connection to the agent closed (the agent stopped, or
// acprun stopped it) while it waited.
func unanswered(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), acp.ErrClosed) {
		return "not answered: the connection to the agent was closed while waiting for the command to exit"
	}
	return fmt.Sprintf("not answered: %v", context.Cause(ctx))
}

func (c *clientServer) killTerminal(ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	t, err := terminalRef(req, rec, c.terms.Get)
	if err != nil {
		return nil, err
	}
	// Answered after the waits of the terminal sent before it, once the
	// command ended and its output was drained, as a release is: a
	// terminal/output sent after it says the command ended, every run.
	prev, out := c.exitPlace(rec.TerminalID, false)
	defer answerInPlace(ctx, prev, out)
	t.Close()
	return acp.KillTerminalResponse{}, nil
}

func (c *clientServer) releaseTerminal(ctx context.Context, req *acp.Request, rec *report.ClientRequest) (any, error) {
	t, err := terminalRef(req, rec, c.terms.Release)
	if err != nil {
		return nil, err
	}
	prev, out := c.exitPlace(rec.TerminalID, true)
	defer answerInPlace(ctx, prev, out) // after the waits sent before it
	// How the command ended (killed by the release, or before it).
	if _, _, st := t.Output(); st != nil {
		recordExit(rec, *st)
	}
	return acp.ReleaseTerminalResponse{}, nil
}

// killAll kills every running terminal (the turn was cancelled) and
// returns the ids of those it killed. The waits of the commands it kills,
// which it wakes at once, are answered in the order they came, every run:
// each after the one before it; and so are the waits for these commands
// that come later, after them.
func (c *clientServer) killAll() []string {
	c.exitsMu.Lock()
	defer c.exitsMu.Unlock()
	killed := c.terms.KillAll()
	for _, id := range killed {
		c.killed[id] = true
	}
	for _, w := range c.waits {
		if c.killed[w.id] && !w.chained {
			w.after, w.chained, c.killTail = c.killTail, true, w.out
		}
	}
	return killed
}

// killAllEnded is killAll, returning once the commands it killed have
// ended and their output was drained (those released meanwhile too).
func (c *clientServer) killAllEnded() {
	for _, id := range c.killAll() {
		if t, err := c.terms.Get(id); err == nil {
			<-t.Done()
		}
	}
}

// closeTerminals kills every terminal and waits for them (the agent's
// part of the scenario ended). It returns a warning for each one the agent
// never released whose command was still running.
func (c *clientServer) closeTerminals() (warnings []string) {
	for _, id := range c.terms.Close() {
		command, _ := c.commands.Load(id)
		line, _ := command.(string)
		warnings = append(warnings, fmt.Sprintf("terminal %s (%q) was still running at the scenario's end and was killed; the agent never released it", id, shortCommand(c.cfg.Redact, line)))
	}
	return warnings
}

// close releases every terminal and waits for them (the scenario ended).
func (c *clientServer) close() {
	c.terms.Close()
	if c.jail != nil {
		c.jail.Close()
	}
}
