package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/pathtext"
	"github.com/acprun/acprun/internal/srcerr"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/yamlnode"
	json "github.com/go-json-experiment/json/v1"
	"go.yaml.in/yaml/v3"
)

// LoadOptions configures Load and LoadBytes.
type LoadOptions struct {
	// LookupEnv looks up variables for ${VAR} interpolation; nil means
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)

	// Config gives defaults and named agents (see LoadConfig); nil means
	// no defaults and the built-in agents only.
	Config *Config

	// DeferUnset makes an unset variable in a scenario no error of Load:
	// each scenario keeps its own (Scenario.Unset), for the caller to
	// check for the scenarios it selects (UnsetErrors) and to warn about
	// for the others (UnsetWarnings). A CI job that has one provider's
	// key can then run the scenarios that need only that one.
	DeferUnset bool

	// Gateway, when set (run --gateway MODE: record, replay or meter),
	// gives every scenario a gateway in that mode: those without one get
	// the defaults, those with one get this mode. GatewayTiming (run
	// --gateway-timing) replays at the recorded pace.
	Gateway       string
	GatewayTiming bool

	// TurnTimeout, when set (run --turn-timeout), replaces every turn's
	// timeout: the warning about a turn timeout longer than its
	// scenario's timeout is then about it, not about the files' own.
	TurnTimeout time.Duration
}

// lookupEnv is LookupEnv, os.LookupEnv when it is nil.
func (o LoadOptions) lookupEnv() func(string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv
	}
	return os.LookupEnv
}

// loader collects the scenarios, errors and warnings of every file.
type loader struct {
	opts  LoadOptions
	scens []*Scenario
	errs  Errors
	warns []Warning
	names map[string]Pos
	named map[string]bool // files named explicitly, by fileKey
	// about holds the scenarios each warning positioned in another file
	// (the config's defaults) is about, which that warning, given once,
	// names.
	about map[Warning][]string
}

func newLoader(opts LoadOptions) *loader {
	opts.LookupEnv = opts.lookupEnv()
	return &loader{opts: opts, names: map[string]Pos{}, named: map[string]bool{}, about: map[Warning][]string{}}
}

// Load reads the scenario files named by paths: files, directories and
// globs. A directory is walked recursively for *.yaml and *.yml files,
// skipping hidden files and directories, directories whose name starts with
// "_" (such as examples/_real-agents), testdata directories and mock agent
// scripts (*.mock.yaml, *.mock.yml). A file named explicitly is
// always loaded. A path that does not exist but contains * ? or [ is a
// glob: it may use * ? [...] within a path element and ** for
// any number of directories; what it matches is treated as if named, except
// that files other than scenario files are skipped. A glob that matches
// nothing is an error, as a path that does not exist is.
//
// Load reports every problem of every file at once: the error is then an
// Errors (errors.As finds it), sorted by file, line and column, and no
// scenarios are returned; the scenarios it read, for the secrets the
// problems' source lines may repeat, are ReadScenarios of the error.
// Warnings are returned in either case.
//
// A file that a directory walk or a glob found inside the workspace source
// of a scenario loaded with it (a fixture's own YAML files) is not a
// scenario file, and is skipped; a source that holds the scenario's own
// file is the suite's repository, not a fixture.
func Load(paths []string, opts LoadOptions) ([]*Scenario, []Warning, error) {
	l := newLoader(opts)
	var parsed []*parsedFile
	for _, file := range l.files(paths) {
		data, err := inputfile.Read(file, MaxFileBytes)
		if errors.Is(err, inputfile.ErrTooLarge) {
			size := int64(MaxFileBytes + 1) // it grew while read
			if fi, err := os.Stat(file); err == nil && fi.Size() > size {
				size = fi.Size()
			}
			l.errorf(file, "%s", tooLarge(size))
			continue
		}
		if err != nil {
			l.fileError(file, err)
			continue
		}
		if what := jsonKind(data).instead("scenarios"); what != "" {
			l.errorf(file, "%s", what)
			continue
		}
		pf := l.parse(file, data)
		if len(pf.p.Errs) > 0 { // checked only then: it parses the file again
			if what := keysKind(data).instead("scenarios"); what != "" {
				l.errorf(file, "%s", what)
				continue
			}
		}
		parsed = append(parsed, pf)
	}
	sources := workspaceSources(parsed)
	for _, pf := range parsed {
		if !l.named[fileKey(pf.file)] && insideAny(pf.abs, sources) {
			continue
		}
		l.add(pf)
	}
	return l.result()
}

// A fileKind is one of acprun's own files, other than scenarios: what it
// is and what to do with it, for the message of a file given where it does
// not go.
type fileKind struct{ what, use string }

// The kinds of acprun's files that are not scenarios.
var (
	transcriptKind = &fileKind{"a transcript of a run (run --transcripts)", "a scenario plays it back with agent: {replay: FILE}, " +
		"and acprun explain SCENARIO --transcript FILE --tool-call ID explains a permission request it holds"}
	resultsKind  = &fileKind{"the results of a run (run -o)", "acprun report FILE shows them, and acprun run --rerun-failed FILE runs again what did not pass"}
	cassetteKind = &fileKind{"a model gateway cassette", "a scenario whose gateway replays answers its agent's model requests from it (gateway: {mode: replay, dir: DIR})"}
	configKind   = &fileKind{"acprun's config file (defaults, named agents, prices)", "acprun reads acprun.yaml in the working directory by itself; give another with --config FILE"}
	mockKind     = &fileKind{"a mock agent script", "a scenario's agent plays it, agent: {name: mock, args: [FILE]} (acprun mock-agent --help describes it)"}
)

// instead says, of a file of kind k given as what it is not (scenarios,
// the config file), what it is and what to do with it; "" for a nil k.
func (k *fileKind) instead(of string) string {
	if k == nil {
		return ""
	}
	return k.what + ", not " + of + ": " + k.use
}

// jsonKind is the kind of acprun's JSON files data is: a transcript of a
// run (its first line is one, with "dir" and "msg"), a run's results (a
// JSON object with "schemaVersion" and "scenarios") or a gateway cassette
// ("version" and "exchanges"); nil otherwise. As YAML each would be a
// scenario with every key unknown (so would the config file and a mock
// agent script: see keysKind).
func jsonKind(data []byte) *fileKind {
	var doc struct {
		Dir           *string         `json:"dir"`
		Msg           json.RawMessage `json:"msg"`
		SchemaVersion *int            `json:"schemaVersion"`
		Scenarios     json.RawMessage `json:"scenarios"`
		Version       *int            `json:"version"`
		Exchanges     json.RawMessage `json:"exchanges"`
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	switch {
	case json.Unmarshal(first, &doc) == nil && doc.Dir != nil && doc.Msg != nil:
		return transcriptKind
	case json.Unmarshal(data, &doc) == nil && doc.SchemaVersion != nil && doc.Scenarios != nil:
		return resultsKind
	case doc.Version != nil && doc.Exchanges != nil: // as the cases above decoded it
		return cassetteKind
	}
	return nil
}

// keysKind is the kind of a file whose first YAML document is a mapping
// without a name, by its keys: those of the config file (defaults, agents,
// prices, currency), or of a mock agent script (agentInfo,
// agentCapabilities, or turns or a default turn of steps); nil otherwise.
func keysKind(data []byte) *fileKind {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	top := doc.Content[0].Content
	var keys []string
	steps := false // a turn of steps, as a mock script plays
	for i := 0; i+1 < len(top); i += 2 {
		k, v := top[i].Value, top[i+1]
		keys = append(keys, k)
		switch {
		case k == "turns" && v.Kind == yaml.SequenceNode:
			for _, t := range v.Content {
				steps = steps || topValue(t, "steps") != nil
			}
		case k == "default":
			steps = steps || topValue(v, "steps") != nil
		}
	}
	switch {
	case len(keys) == 0 || slices.Contains(keys, "name"):
		return nil
	case !slices.ContainsFunc(keys, func(k string) bool { return !slices.Contains(configKeys, k) }):
		return configKind
	case steps || slices.Contains(keys, "agentInfo") || slices.Contains(keys, "agentCapabilities"):
		return mockKind
	}
	return nil
}

// parsedFile is one file's scenarios and problems, before they are added
// to the loader's.
type parsedFile struct {
	file, abs string
	p         *fileParser
	scens     []*Scenario
}

// workspaceSources lists the absolute workspace sources of the parsed
// scenarios that hold fixtures: not one that holds the scenario's own file
// (the repository the suite lives in), whose YAML files are the suite's.
func workspaceSources(parsed []*parsedFile) []string {
	var out []string
	for _, pf := range parsed {
		for _, s := range pf.scens {
			if s.Workspace == nil || s.Workspace.Source() == "" {
				continue
			}
			if src := filepath.Clean(s.Workspace.Source()); !insideAny(pf.abs, []string{src}) {
				out = append(out, src)
			}
		}
	}
	return out
}

// insideAny reports whether path lies inside one of dirs.
func insideAny(path string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool {
		rel, err := filepath.Rel(d, path)
		return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	})
}

// LoadBytes is Load for one file's contents; relative paths in it resolve
// against filepath.Dir(file). With problems, what it read is ReadScenarios
// of its error too.
func LoadBytes(file string, data []byte, opts LoadOptions) ([]*Scenario, []Warning, error) {
	l := newLoader(opts)
	l.add(l.parse(file, data))
	return l.result()
}

// parse parses one file.
func (l *loader) parse(file string, data []byte) *parsedFile {
	p := &fileParser{Reader: yamlnode.Reader{Name: file, Src: data, Templates: true}, dir: absOr(filepath.Dir(file)), lookup: l.opts.LookupEnv, cfg: l.opts.Config, deferUnset: l.opts.DeferUnset,
		gatewayFlag: l.opts.Gateway, gatewayTiming: l.opts.GatewayTiming, turnTimeoutFlag: l.opts.TurnTimeout}
	return &parsedFile{file: file, abs: absOr(file), p: p, scens: p.parseFile()}
}

// absOr is the absolute path of path; path itself when there is none (the
// working directory is gone).
func absOr(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// add adds a parsed file's scenarios and problems, checking that scenario
// names are unique across files.
func (l *loader) add(pf *parsedFile) {
	p := pf.p
	for _, s := range pf.scens {
		if s.Name != "" {
			if first, dup := l.names[s.Name]; dup {
				p.errorAt(s.Pos, "duplicate scenario name %q (first at %s)", s.Name, first)
			} else {
				l.names[s.Name] = s.Pos
			}
		}
		l.scens = append(l.scens, s)
	}
	l.errs = append(l.errs, p.Errs...)
	for i, w := range p.warns {
		name, ok := p.about[i]
		if !ok {
			l.warns = append(l.warns, w)
			continue
		}
		if _, seen := l.about[w]; !seen {
			l.warns = append(l.warns, w)
		}
		if !slices.Contains(l.about[w], name) {
			l.about[w] = append(l.about[w], name)
		}
	}
}

func (l *loader) result() ([]*Scenario, []Warning, error) {
	for i, w := range l.warns {
		if names := l.about[w]; len(names) > 0 {
			l.warns[i].Msg += " (" + scenariosNamed(names) + ")"
		}
	}
	l.warns = SortWarnings(l.warns)
	if len(l.errs) > 0 {
		return nil, l.warns, &loadErrors{Errors: sorted(l.errs), read: l.scens}
	}
	return l.scens, l.warns, nil
}

// sorted returns errs sorted by file, line and column, without repeats (a
// node reached through several aliases, or a config file's agent used by
// several scenarios, is checked each time); nil when there are none.
func sorted(errs Errors) Errors {
	if len(errs) == 0 {
		return nil
	}
	errs = srcerr.Unique(errs)
	slices.SortStableFunc(errs, srcerr.Compare)
	return errs
}

func (l *loader) errorf(path, format string, args ...any) {
	l.errs = append(l.errs, &srcerr.Error{File: path, Msg: termtext.Printable(fmt.Sprintf(format, args...))})
}

// warnf records a warning about a path: a directory or glob that holds no
// scenario is an empty selection, which the caller decides about.
func (l *loader) warnf(path, format string, args ...any) {
	l.warns = append(l.warns, Warning{Pos: Pos{File: path}, Msg: fmt.Sprintf(format, args...)})
}

// fileError records err about path, without repeating the path.
func (l *loader) fileError(path string, err error) {
	l.errorf(path, "%v", bareError(err))
}

// files expands paths into the sorted list of scenario files to load. A
// file whose path is not valid UTF-8 is an error, not loaded: results,
// --rerun-failed and reports name scenarios by their files' paths, and
// JSON holds UTF-8 text only (encoding/json would write U+FFFD for each
// bad byte, a name no file has).
func (l *loader) files(paths []string) []string {
	seen := map[string]bool{}
	var files []string
	add := func(f string) {
		if !utf8.ValidString(f) {
			l.errorf(f, "the path is not valid UTF-8, which results (JSON) cannot record: rename %s", pathtext.NotUTF8(f))
			return
		}
		if key := fileKey(f); !seen[key] {
			seen[key] = true
			files = append(files, f)
		}
	}
	for _, path := range paths {
		if _, err := os.Lstat(path); err != nil && strings.ContainsAny(path, "*?[") {
			matches, err := glob(path)
			if errors.Is(err, filepath.ErrBadPattern) && strings.Contains(path, "[") {
				err = errBadClass
			}
			if err != nil {
				l.errorf(path, "bad pattern: %v", err)
				continue
			}
			if len(matches) == 0 {
				// As a path that does not exist: a typo, or the wrong
				// working directory; the shell's braces have their own hint.
				hint := braceHint(path)
				if hint == "" {
					hint = ": give a pattern that matches scenario files, or directories that hold some"
				}
				l.errorf(path, "no file or directory matches the pattern%s", hint)
				continue
			}
			found, errs := 0, len(l.errs)
			for _, m := range matches {
				fi, err := inputfile.Stat(m)
				switch {
				case err != nil:
					l.fileError(m, err)
				case fi.IsDir():
					for _, f := range l.walk(m) {
						add(f)
						found++
					}
				case isScenarioFile(filepath.Base(m)):
					add(m)
					found++
				}
			}
			if found == 0 && len(l.errs) == errs { // else the errors say why
				l.warnf(path, "no scenario files match")
			}
			continue
		}
		fi, err := inputfile.Stat(path)
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist) && braceHint(path) != "":
			l.errorf(path, "%v%s", bareError(err), braceHint(path))
		case errors.Is(err, fs.ErrNotExist) && path != "-" && !isLink(err): // "-" says what to give; a link, where it leads
			l.errorf(path, "%v: give the path of a scenario file, or of a directory that holds some", bareError(err))
		case err != nil:
			l.fileError(path, err)
		case fi.IsDir():
			errs := len(l.errs)
			walked := l.walk(path)
			if len(walked) == 0 && len(l.errs) == errs { // else the errors say why
				l.warnf(path, "no scenario files (*.yaml, *.yml) in directory")
			}
			for _, f := range walked {
				add(f)
			}
		default:
			add(path)
			l.named[fileKey(path)] = true
		}
	}
	slices.Sort(files)
	return files
}

// isLink reports whether err, of inputfile, is about a symbolic link
// that leads nowhere or in a loop (see inputfile.Stat).
func isLink(err error) bool {
	e, ok := errors.AsType[*inputfile.Error](err)
	return ok && e.Link != ""
}

// fileKey identifies a file however it is named: relative or absolute,
// through a symlink or a hard link, one file is loaded once. It is the
// file's device and inode, or its cleaned absolute path when it cannot be
// read (the error is reported when it is loaded).
func fileKey(path string) string {
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return fmt.Sprintf("inode %d:%d", st.Dev, st.Ino)
		}
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// walkRoot is dir as the root of a filepath.WalkDir that enters it even
// when it is a symbolic link to a directory: a path named on the command
// line (or matched by a glob) that is a directory is walked as one, while
// the links the walk meets are not followed. With a trailing separator,
// the system resolves the link; the walk's paths keep dir's spelling
// (link/x.yaml), as results, reruns and reports name the files.
func walkRoot(dir string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir
	}
	return dir + string(filepath.Separator)
}

// walk returns the scenario files under dir.
func (l *loader) walk(dir string) []string {
	var files []string
	root := walkRoot(dir)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if path == root {
			path = dir
		}
		if err != nil {
			l.fileError(path, err)
			if d != nil && d.IsDir() && path != dir {
				return fs.SkipDir
			}
			return nil
		}
		if path == dir {
			return nil
		}
		if d.IsDir() {
			if skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !isScenarioFile(d.Name()) || d.Type().IsRegular() {
			if isScenarioFile(d.Name()) {
				files = append(files, path)
			}
			return nil
		}
		// A symbolic link, FIFO, socket or device named as a scenario
		// file: loading it says what is wrong with it, as when it is
		// named, rather than skipping a scenario file the user wrote. A
		// link to a directory is a directory, which the walk does not
		// follow.
		fi, err := inputfile.Stat(path)
		switch {
		case err != nil: // a link that leads nowhere, or in a loop
			l.fileError(path, err)
		case !fi.IsDir():
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		l.fileError(dir, err)
	}
	return files
}

// skipDir reports whether a directory walk skips the directory name.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata"
}

// isScenarioFile reports whether a walk or glob picks up the file name.
func isScenarioFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	lower := strings.ToLower(name)
	if lower == ConfigFile || lower == ConfigFileYML {
		return false
	}
	for _, ext := range []string{".yaml", ".yml"} {
		if strings.HasSuffix(lower, ext) {
			return !strings.HasSuffix(lower, ".mock"+ext)
		}
	}
	return false
}

// errBadClass is the error of a path glob whose [...] class is not
// closed (or is empty), which filepath.Match calls a syntax error.
var errBadClass = errors.New("malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [")

// braceHint says, of a path that holds the shell's {a,b}, which reached
// acprun as written (quoted), that acprun does not expand it; "" for
// another path.
func braceHint(path string) string {
	if !shellBraces(path) {
		return ""
	}
	return " ({a,b} is the shell's, which acprun does not expand: give each path, or a glob of * ? [...] and **)"
}

// shellBraces reports whether s holds what reads as the shell's {a,b}: a
// { followed by a comma and a }.
func shellBraces(s string) bool {
	open := strings.Index(s, "{")
	return open >= 0 && strings.Contains(s[open:], ",") && strings.Contains(s[open:], "}")
}

// glob is filepath.Glob with ** matching any number of directories (none
// included). Under **, hidden and testdata directories are skipped as in a
// directory walk.
func glob(pattern string) ([]string, error) {
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	for _, s := range segs {
		if _, err := filepath.Match(s, ""); err != nil {
			return nil, err
		}
	}
	if !slices.Contains(segs, "**") {
		return filepath.Glob(pattern)
	}
	// The walk starts at the longest leading run of plain elements.
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[") {
		i++
	}
	root := filepath.FromSlash(strings.Join(segs[:i], "/"))
	if i == 0 {
		root = "."
	} else if root == "" {
		root = string(filepath.Separator) // pattern starts with /
	}
	rest := segs[i:]
	var out []string
	err := filepath.WalkDir(walkRoot(root), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts of the tree just don't match
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		// A pattern that names a skipped directory, such as
		// "**/testdata/*.yaml", may enter it.
		if d.IsDir() && skipDir(d.Name()) && !slices.Contains(rest, d.Name()) {
			return fs.SkipDir
		}
		if approve.MatchPath(strings.Join(rest, "/"), rel) {
			out = append(out, filepath.Join(root, rel))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}
