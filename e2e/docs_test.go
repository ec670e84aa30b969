package e2e_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	json "github.com/go-json-experiment/json/v1"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// The docs (README.md and docs/*.md) say what a fenced block is for with an
// HTML comment on the line before it (blank lines between are allowed):
//
//	<!-- acprun: fragment -->          a ```yaml block that shows some keys of a scenario, not
//	                                   a whole one: the test adds the keys it lacks
//	<!-- acprun: file PATH -->         the block is the file PATH, relative to the repository's
//	                                   root: word for word the repository's file where it has
//	                                   one (every PATH under examples/ must be), and written at
//	                                   PATH for the page's shell blocks otherwise
//	<!-- acprun: runs -->              a ```sh block run by sh -e from the root of a copy of
//	                                   examples/ (and the page's files) with the built acprun
//	                                   first in PATH (`go run .` is that acprun); it exits 0
//	<!-- acprun: runs, exit 1 -->      ... it exits 1 (`exit 0 or 3`: either)
//	<!-- acprun: output -->            a ```text block: what the runs block before it prints
//	                                   (stdout, then stderr), durations aside
//	<!-- acprun: dry-run -->           a ```sh block each of whose lines runs with --dry-run
//	                                   appended, and exits 0; a line that sets VAR and says
//	                                   --agent NAME must name a variable that acprun agents
//	                                   says NAME needs
const (
	fragmentMarker = "<!-- acprun: fragment -->"
	outputMarker   = "<!-- acprun: output -->"
	dryRunMarker   = "<!-- acprun: dry-run -->"
)

// fileMarker and runsMarker match the markers that take an argument.
var (
	fileMarker = regexp.MustCompile(`^<!-- acprun: file (\S+) -->$`)
	runsMarker = regexp.MustCompile(`^<!-- acprun: runs(?:, exit ([0-9]+(?: or [0-9]+)*))? -->$`)
)

// docBlock is one fenced block of a Markdown file of the docs.
type docBlock struct {
	file   string // relative to the module's root
	line   int    // of the block's first line
	lang   string // the first word of the fence's info string: yaml, sh, text
	text   string
	marker string // the <!-- acprun: … --> comment before the block, if any
}

// path is the file the block is, by its file marker, or "".
func (b docBlock) path() string {
	if m := fileMarker.FindStringSubmatch(b.marker); m != nil {
		return m[1]
	}
	return ""
}

// docFiles are the Markdown files of the docs, relative to the module's root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := fs.Glob(os.DirFS(root), "docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append([]string{"README.md"}, docs...)
}

// markdownBlocks returns the fenced blocks of the Markdown file path,
// relative to the module's root.
func markdownBlocks(t *testing.T, path string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	prev := "" // the last line before the block that is not blank
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			lang, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), " ")
			marker := ""
			if strings.HasPrefix(prev, "<!-- acprun:") {
				marker = prev
			}
			cur = &docBlock{file: path, line: n + 1, lang: strings.ToLower(lang), marker: marker}
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
			prev = ""
		case cur != nil:
			cur.text += line + "\n"
		case trimmed != "":
			prev = trimmed
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	for _, b := range blocks {
		if b.marker != "" && b.marker != fragmentMarker && b.marker != outputMarker && b.marker != dryRunMarker &&
			!fileMarker.MatchString(b.marker) && !runsMarker.MatchString(b.marker) {
			t.Errorf("%s:%d: unknown marker %s", b.file, b.line-1, b.marker)
		}
	}
	return blocks
}

// TestDocsYAMLValidates checks that every ```yaml block of README.md and
// of docs/*.md validates, through the built binary and against acprun
// schema: a scenario (a fragment once completed), a config file when its
// first line is "# acprun.yaml", or a mock agent's script when it is a
// file named *.mock.yaml. A scenario that is a file of its page is
// validated with --strict among the page's files and a copy of examples/
// (its mock script and workspace); the others get the files the examples
// name, and the variables they use are set.
func TestDocsYAMLValidates(t *testing.T) {
	t.Parallel()
	var blocks []docBlock
	fences := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		fences += len(regexp.MustCompile("(?m)^\\s*```\\s*ya?ml\\b").FindAll(data, -1))
		for _, b := range markdownBlocks(t, f) {
			if b.lang == "yaml" || b.lang == "yml" {
				blocks = append(blocks, b)
			}
		}
	}
	if len(blocks) < 3 || len(blocks) != fences {
		t.Fatalf("found %d yaml blocks in the docs, of %d yaml fences; want them all, the README's at least", len(blocks), fences)
	}
	scenarioSchema := schemaOf(t, "schema")
	configSchema := schemaOf(t, "schema", "--config")
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			dir := t.TempDir()
			// What the examples name: session cwd and roots, prompt
			// files, workspace sources, golden files.
			writeFiles(t, dir, map[string]string{
				"repo/.keep": "", "NOTES.md": "notes", "shot.png": "\x89PNG\r\n\x1a\n", "fixtures/repo/.keep": "",
				"golden/out.txt": "out", "prompts/nightly.md": "nightly",
			})
			var env []string
			for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(b.text, -1) {
				env = append(env, m[1]+"=fake-"+m[1])
			}
			text := b.text
			if b.marker == fragmentMarker {
				text = completeScenario(t, text)
			}
			args := []string{"validate", "s.yaml"}
			file, sch := "s.yaml", scenarioSchema
			switch {
			case strings.HasSuffix(b.path(), ".mock.yaml"):
				writeFiles(t, dir, map[string]string{
					"agent.mock.yaml": text,
					"s.yaml":          "name: s\nagent: {name: mock, args: [agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
				})
				res := acprunEnv(t, dir, env, "validate", "--strict", "s.yaml")
				if res.code != 0 || res.stderr != "" {
					t.Errorf("the mock script does not parse: exit %d, stderr:\n%s\n%s:\n%s", res.code, res.stderr, b.path(), text)
				}
				return
			case strings.HasPrefix(text, "# acprun.yaml\n"):
				// A scenario with a gateway, which the config's prices (of
				// a block that has some) apply to: validate warns about
				// prices that price nothing.
				writeFiles(t, dir, map[string]string{"m.yaml": "turns: []\n",
					"s.yaml": "name: s\nagent: {command: [acprun, mock-agent, m.yaml]}\ngateway: {mode: meter, env: ANTHROPIC_BASE_URL}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n"})
				args = []string{"validate", "--config", "acprun.yaml", "s.yaml"}
				file, sch = "acprun.yaml", configSchema
			case b.path() != "":
				dir = docTree(t, b.file)
				args = []string{"validate", "--strict", b.path()}
				file = b.path()
			}
			writeFiles(t, dir, map[string]string{file: text})
			res := acprunEnv(t, dir, env, args...)
			if res.code != 0 || res.stderr != "" {
				t.Errorf("acprun %s: exit %d, stderr:\n%s\n%s:\n%s", strings.Join(args, " "), res.code, res.stderr, file, text)
			}
			if err := sch.Validate(schemaInstance(t, text)); err != nil {
				t.Errorf("acprun %s does not take %s: %v", strings.Join(args[:len(args)-1], " "), file, err)
			}
		})
	}
}

// TestDocsFilesAreTheRepositorys checks that a block that says it is a
// file of the repository is that file, word for word, so that what the
// README shows of examples/first/ is what runs.
func TestDocsFilesAreTheRepositorys(t *testing.T) {
	t.Parallel()
	found := 0
	for _, f := range docFiles(t) {
		for _, b := range markdownBlocks(t, f) {
			p := b.path()
			if p == "" {
				continue
			}
			if !filepath.IsLocal(p) {
				t.Errorf("%s:%d: file %s is not a path inside the repository", b.file, b.line, p)
				continue
			}
			data, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				if strings.HasPrefix(p, "examples/") {
					t.Errorf("%s:%d: the docs show %s, which the repository does not have: %v", b.file, b.line, p, err)
				}
				continue
			}
			found++
			if string(data) != b.text {
				t.Errorf("%s:%d: the block differs from %s:\n--- block\n%s--- %s\n%s", b.file, b.line, p, b.text, p, data)
			}
		}
	}
	if found < 3 {
		t.Errorf("%d blocks are files of the repository; want the README's first scenario at least (its scenario, mock script and project)", found)
	}
}

// TestDocsShellBlocksRun runs the ```sh blocks of the docs marked runs or
// dry-run (see the markers above), page by page, in order, each page in a
// copy of examples/ with the page's files, and checks their exit codes and
// the output the docs show.
func TestDocsShellBlocksRun(t *testing.T) {
	t.Parallel()
	outputs := 0
	for _, f := range docFiles(t) {
		blocks := markdownBlocks(t, f)
		if !slices.ContainsFunc(blocks, func(b docBlock) bool { return runsMarker.MatchString(b.marker) || b.marker == dryRunMarker }) {
			continue
		}
		for i, b := range blocks {
			if b.marker == outputMarker {
				outputs++
				if i == 0 || !runsMarker.MatchString(blocks[i-1].marker) {
					t.Errorf("%s:%d: an output block that does not follow a runs block", b.file, b.line)
				}
			}
		}
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			dir := docTree(t, f)
			tmp := t.TempDir() // workspaces kept after a failure go there
			env := []string{
				"PATH=" + filepath.Dir(acprunBin) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"TMPDIR=" + tmp, "GITHUB_ACTIONS=", "GITHUB_STEP_SUMMARY=",
			}
			var agents string
			for i, b := range blocks {
				if b.lang != "sh" && (runsMarker.MatchString(b.marker) || b.marker == dryRunMarker) {
					t.Errorf("%s:%d: a %s block marked %s; want sh", b.file, b.line, b.lang, b.marker)
					continue
				}
				where := fmt.Sprintf("%s:%d", b.file, b.line)
				if m := runsMarker.FindStringSubmatch(b.marker); m != nil {
					want := []int{0}
					if m[1] != "" {
						want = nil
						for _, c := range strings.Split(m[1], " or ") {
							n, _ := strconv.Atoi(c)
							want = append(want, n)
						}
					}
					res, _ := runBinary(t, "sh", dir, env, "-ec", goRunIsAcprun(b.text))
					if !slices.Contains(want, res.code) {
						t.Errorf("%s: exit %d, want %v:\n%s\nstdout:\n%s\nstderr:\n%s", where, res.code, want, b.text, res.stdout, res.stderr)
						continue
					}
					if i+1 < len(blocks) && blocks[i+1].marker == outputMarker {
						got := linesDuration.ReplaceAllString(res.stdout+res.stderr, "DUR")
						shown := linesDuration.ReplaceAllString(blocks[i+1].text, "DUR")
						if got != shown {
							t.Errorf("%s: the docs show (%s:%d), durations aside:\n%s\nit prints:\n%s", where, b.file, blocks[i+1].line, shown, got)
						}
					}
				}
				if b.marker != dryRunMarker {
					continue
				}
				if agents == "" {
					res := acprunEnv(t, dir, nil, "agents")
					if res.code != 0 {
						t.Fatalf("acprun agents: exit %d\n%s", res.code, res.stderr)
					}
					agents = res.stdout
				}
				for _, line := range strings.Split(b.text, "\n") {
					line = strings.TrimSpace(regexp.MustCompile(`\s#\s.*$`).ReplaceAllString(line, ""))
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					res, _ := runBinary(t, "sh", dir, env, "-ec", goRunIsAcprun(line)+" --dry-run")
					if res.code != 0 {
						t.Errorf("%s: %s --dry-run: exit %d\n%s%s", where, line, res.code, res.stdout, res.stderr)
					}
					m := regexp.MustCompile(`^([A-Z_]+)=.* --agent (\S+)`).FindStringSubmatch(line)
					if m == nil {
						continue
					}
					if !strings.Contains(res.stdout, "["+m[2]+"]") {
						t.Errorf("%s: %s --dry-run does not run agent %s:\n%s", where, line, m[2], res.stdout)
					}
					row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[2]) + ` .*$`).FindString(agents)
					if !strings.Contains(row, m[1]) {
						t.Errorf("%s: %s sets %s, which acprun agents does not say %s needs: %q", where, line, m[1], m[2], row)
					}
				}
			}
		})
	}
	if outputs == 0 {
		t.Error("no output block in the docs; want the README's first scenario's")
	}
}

// goRunIsAcprun is the shell text with `go run .` replaced by the built
// acprun (which the tests put first in PATH).
func goRunIsAcprun(text string) string {
	return regexp.MustCompile(`(^|[\s;&|(])go run \. `).ReplaceAllString(text, "${1}acprun ")
}

// docTree is a new directory holding a copy of examples/ and the files that
// the Markdown file page shows (blocks marked file PATH), at their paths.
func docTree(t *testing.T, page string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "examples"), filepath.Join(dir, "examples"))
	files := map[string]string{}
	for _, b := range markdownBlocks(t, page) {
		if p := b.path(); p != "" && filepath.IsLocal(p) {
			files[p] = b.text
		}
	}
	writeFiles(t, dir, files)
	return dir
}

// TestDocsLinksResolve checks the relative links of README.md and
// docs/*.md: each names a file or directory of the repository, and an
// #anchor names a heading of the Markdown file it points into.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	anchors := map[string][]string{} // Markdown file (relative to root) → its headings' anchors
	anchorsOf := func(path string) []string {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = markdownAnchors(string(data))
		return anchors[path]
	}
	links := 0
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		prose := withoutCodeSpans(markdownProse(string(data)))
		for _, m := range link.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				if !filepath.IsLocal(file) {
					t.Errorf("%s: link %s leaves the repository", f, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, file)); err != nil {
					t.Errorf("%s: link %s: %v", f, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s: link %s: an anchor into a file that is not Markdown", f, target)
				continue
			}
			if !slices.Contains(anchorsOf(file), anchor) {
				t.Errorf("%s: link %s: %s has no heading #%s (it has %q)", f, target, file, anchor, anchorsOf(file))
			}
		}
	}
	if links < 13 {
		t.Errorf("%d relative links in the docs; want at least the README's to each page of docs/", links)
	}
}

// markdownProse is the Markdown text without its fenced code blocks.
func markdownProse(text string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// withoutCodeSpans is the Markdown text with its code spans left out: a
// run of backticks up to the next run of as many.
func withoutCodeSpans(text string) string {
	var b strings.Builder
	for {
		start := strings.IndexByte(text, '`')
		if start < 0 {
			return b.String() + text
		}
		n := len(text[start:]) - len(strings.TrimLeft(text[start:], "`"))
		b.WriteString(text[:start])
		rest := text[start+n:]
		end := -1
		for i := 0; i < len(rest); {
			j := strings.IndexByte(rest[i:], '`')
			if j < 0 {
				break
			}
			run := len(rest[i+j:]) - len(strings.TrimLeft(rest[i+j:], "`"))
			if run == n {
				end = i + j
				break
			}
			i += j + run
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(text[start : start+n])
			text = rest
			continue
		}
		text = rest[end+n:]
	}
}

// markdownAnchors returns the anchors GitHub gives the headings of a
// Markdown text: lower case, punctuation dropped, spaces made hyphens, and
// -1, -2… after a repeated one.
func markdownAnchors(text string) []string {
	var anchors []string
	seen := map[string]int{}
	linkText := regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	for _, line := range strings.Split(markdownProse(text), "\n") {
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if hashes == 0 || hashes > 6 || !strings.HasPrefix(line[hashes:], " ") {
			continue
		}
		title := linkText.ReplaceAllString(strings.TrimSpace(line[hashes:]), "$1")
		var a strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				a.WriteRune(r)
			}
		}
		anchor := a.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			seen[anchor] = 1
		}
		anchors = append(anchors, anchor)
	}
	return anchors
}

// completeScenario adds to the scenario fragment text the keys a
// scenario needs that it lacks.
func completeScenario(t *testing.T, text string) string {
	t.Helper()
	var keys map[string]any
	if err := yaml.Unmarshal([]byte(text), &keys); err != nil {
		t.Fatalf("fragment: %v", err)
	}
	for _, k := range []struct{ key, yaml string }{
		{"name", "name: fragment"}, {"agent", "agent: {command: [a]}"},
		{"permissions", "permissions: {default: deny}"}, {"turns", "turns: [{prompt: hi}]"},
	} {
		if _, ok := keys[k.key]; !ok {
			text = k.yaml + "\n" + text
		}
	}
	return text
}

// schemaInstance is the YAML document text as a JSON Schema validates it.
func schemaInstance(t *testing.T, text string) any {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// schemaOf compiles the JSON Schema that acprun prints with args.
func schemaOf(t *testing.T, args ...string) *jsonschema.Schema {
	t.Helper()
	res := acprun(t, t.TempDir(), args...)
	if res.code != 0 {
		t.Fatalf("acprun %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
