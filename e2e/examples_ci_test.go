package e2e_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The recipes of examples/ci: each is parsed, and every acprun command
// line in it is checked with the built binary: acprun run with the
// recipe's flags and environment plus --dry-run on the examples (from the
// checkout's root, where the recipes run), validate and list as they are,
// merge and report on shard results made for the test.

// ciDir is where the recipes are.
var ciDir = filepath.Join(root, "examples", "ci")

// recipeCommand is one acprun command line of a recipe.
type recipeCommand struct {
	where string   // file and what in it, for messages
	argv  []string // from acprun on, quotes removed, variables substituted
	env   []string // the environment the recipe gives it
}

// TestRecipeGitHubActions: the workflow is a matrix of --shard i/N over
// every shard, balanced by the durations of the last run on main (kept in
// the cache by the merge job on main, restored once by a durations job
// and handed to every shard as an artifact), uploads each shard's
// results, and a merge job downloads and merges them; every acprun line
// is valid.
func TestRecipeGitHubActions(t *testing.T) {
	t.Parallel()
	file := filepath.Join(ciDir, ".github", "workflows", "acprun.yml")
	type step struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		If   string            `yaml:"if"`
		With map[string]string `yaml:"with"`
	}
	var wf struct {
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Needs    any `yaml:"needs"`
			Strategy struct {
				Matrix struct {
					Shard []int `yaml:"shard"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []step `yaml:"steps"`
		} `yaml:"jobs"`
	}
	recipeYAML(t, file, &wf)
	shards, err := strconv.Atoi(wf.Env["SHARDS"])
	if err != nil {
		t.Fatalf("%s: env.SHARDS = %q, want a number", file, wf.Env["SHARDS"])
	}
	shard, merge := wf.Jobs["shard"], wf.Jobs["merge"]
	var want []int
	for i := 1; i <= shards; i++ {
		want = append(want, i)
	}
	if !slices.Equal(shard.Strategy.Matrix.Shard, want) {
		t.Errorf("%s: matrix.shard = %v, want 1…SHARDS = %v", file, shard.Strategy.Matrix.Shard, want)
	}
	if merge.Needs != "shard" {
		t.Errorf("%s: the merge job needs %v, want shard", file, merge.Needs)
	}
	uses := func(steps []step, action string) bool {
		return slices.ContainsFunc(steps, func(s step) bool { return strings.HasPrefix(s.Uses, action+"@") })
	}
	if !uses(shard.Steps, "actions/upload-artifact") || !uses(merge.Steps, "actions/download-artifact") {
		t.Errorf("%s: the shards must upload their results and the merge job download them", file)
	}
	durations := wf.Jobs["durations"]
	if shard.Needs != "durations" || !uses(durations.Steps, "actions/cache/restore") || !uses(durations.Steps, "actions/upload-artifact") {
		t.Errorf("%s: a durations job must restore the last results from the cache and hand them to the shards, which need it", file)
	}
	balanceFrom := ""
	for _, st := range shard.Steps {
		if strings.HasPrefix(st.Uses, "actions/download-artifact@") {
			balanceFrom = st.With["path"] + "/" + "acprun-results.json"
		}
	}
	saved := slices.ContainsFunc(merge.Steps, func(st step) bool {
		return strings.HasPrefix(st.Uses, "actions/cache/save@") && strings.Contains(st.If, "refs/heads/main") && st.With["path"] == "acprun-results.json"
	})
	if !saved {
		t.Errorf("%s: the merge job must keep the merged results of main in the cache", file)
	}

	var cmds []recipeCommand
	for _, job := range []string{"shard", "merge"} {
		for i, step := range wf.Jobs[job].Steps {
			if step.Run == "" {
				continue
			}
			for shardIndex := 1; shardIndex <= shards; shardIndex++ {
				exprs := map[string]string{"matrix.shard": strconv.Itoa(shardIndex), "env.SHARDS": wf.Env["SHARDS"]}
				run, err := githubExpressions(step.Run, exprs)
				if err != nil {
					t.Errorf("%s: jobs.%s.steps[%d]: %v", file, job, i, err)
					continue
				}
				cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s: jobs.%s.steps[%d].run", file, job, i), run, nil, nil)...)
				if !strings.Contains(step.Run, "matrix.shard") {
					break
				}
			}
		}
	}
	recipeCheckCommands(t, file, cmds, []string{"run", "merge", "report"})
	for _, c := range cmds {
		if c.argv[1] == "run" && !slices.Contains(c.argv, "--shard") {
			t.Errorf("%s: %s: acprun run without --shard", c.where, strings.Join(c.argv, " "))
		}
		if c.argv[1] == "run" && (balanceFrom == "" || recipeFlag(c.argv, "--balance-from") != balanceFrom) {
			t.Errorf("%s: %s: acprun run must balance from the downloaded durations (%s)", c.where, strings.Join(c.argv, " "), balanceFrom)
		}
	}
}

// TestRecipeGitLab: the job runs parallel: N with no --shard (GitLab's
// CI_NODE_INDEX and CI_NODE_TOTAL pick the shard), balanced by the
// durations a job before it fetched once, and the merge job needs it;
// every acprun line is valid in every shard's environment.
func TestRecipeGitLab(t *testing.T) {
	t.Parallel()
	file := filepath.Join(ciDir, ".gitlab-ci.yml")
	var pipeline struct {
		Default struct {
			BeforeScript []string `yaml:"before_script"`
		} `yaml:"default"`
		Shards struct {
			Parallel int      `yaml:"parallel"`
			Needs    []string `yaml:"needs"`
			Script   []string `yaml:"script"`
		} `yaml:"acprun"`
		Durations struct {
			Artifacts struct {
				Paths []string `yaml:"paths"`
			} `yaml:"artifacts"`
		} `yaml:"acprun-durations"`
		Merge struct {
			Needs       []string `yaml:"needs"`
			Script      []string `yaml:"script"`
			AfterScript []string `yaml:"after_script"`
		} `yaml:"acprun-merge"`
	}
	recipeYAML(t, file, &pipeline)
	n := pipeline.Shards.Parallel
	if n < 2 {
		t.Fatalf("%s: acprun.parallel = %d, want a number of shards", file, n)
	}
	if !slices.Equal(pipeline.Merge.Needs, []string{"acprun"}) {
		t.Errorf("%s: acprun-merge.needs = %v, want [acprun]", file, pipeline.Merge.Needs)
	}
	var cmds []recipeCommand
	for i := 1; i <= n; i++ {
		env := []string{fmt.Sprintf("CI_NODE_INDEX=%d", i), fmt.Sprintf("CI_NODE_TOTAL=%d", n)}
		for j, line := range pipeline.Shards.Script {
			cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s: acprun.script[%d] (CI_NODE_INDEX=%d)", file, j, i), line, env, env)...)
		}
	}
	for _, part := range []struct {
		name  string
		lines []string
	}{{"default.before_script", pipeline.Default.BeforeScript}, {"acprun-merge.script", pipeline.Merge.Script}, {"acprun-merge.after_script", pipeline.Merge.AfterScript}} {
		for j, line := range part.lines {
			cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s: %s[%d]", file, part.name, j), line, nil, nil)...)
		}
	}
	if !slices.Equal(pipeline.Shards.Needs, []string{"acprun-durations"}) || len(pipeline.Durations.Artifacts.Paths) != 1 {
		t.Errorf("%s: acprun.needs = %v, want [acprun-durations], which keeps its file as an artifact", file, pipeline.Shards.Needs)
	}
	recipeCheckCommands(t, file, cmds, []string{"run", "merge", "report"})
	for _, c := range cmds {
		if c.argv[1] == "run" && slices.ContainsFunc(c.argv, func(a string) bool { return strings.HasPrefix(a, "--shard") }) {
			t.Errorf("%s: %s: GitLab's variables pick the shard; --shard would override them", c.where, strings.Join(c.argv, " "))
		}
		if c.argv[1] == "run" && (len(pipeline.Durations.Artifacts.Paths) == 0 || recipeFlag(c.argv, "--balance-from") != pipeline.Durations.Artifacts.Paths[0]) {
			t.Errorf("%s: %s: acprun run must balance from the file acprun-durations keeps", c.where, strings.Join(c.argv, " "))
		}
	}
}

// TestRecipeKubernetes: an Indexed Job whose completions equal acprun's
// --shards, writing to a shared volume, and a merge Job reading it; every
// acprun line is valid for every JOB_COMPLETION_INDEX.
func TestRecipeKubernetes(t *testing.T) {
	t.Parallel()
	type container struct {
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
	}
	type manifest struct {
		Kind string `yaml:"kind"`
		Spec struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int    `yaml:"completions"`
			Template       struct {
				Spec struct {
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	var cmds []recipeCommand
	var kinds []string
	for _, name := range []string{"shards.yaml", "merge.yaml"} {
		file := filepath.Join(ciDir, "_kubernetes", name)
		for i, doc := range recipeYAMLDocs[manifest](t, file) {
			kinds = append(kinds, doc.Kind)
			if doc.Kind != "Job" {
				continue
			}
			var env []string
			indexes := []int{-1}
			if doc.Spec.CompletionMode == "Indexed" {
				indexes = nil
				for k := range doc.Spec.Completions {
					indexes = append(indexes, k)
				}
			}
			for _, k := range indexes {
				if k >= 0 {
					env = []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k)}
				}
				for _, c := range doc.Spec.Template.Spec.Containers {
					argv := append(slices.Clone(c.Command), c.Args...)
					where := fmt.Sprintf("%s: document %d", file, i+1)
					if k >= 0 {
						where += fmt.Sprintf(" (JOB_COMPLETION_INDEX=%d)", k)
					}
					if len(argv) == 3 && argv[0] == "/bin/sh" && argv[1] == "-c" {
						found := recipeShellAcprun(t, where, argv[2], env, env)
						cmds = append(cmds, found...)
						for _, f := range found {
							if f.argv[1] == "run" && recipeFlag(f.argv, "--shards") != strconv.Itoa(doc.Spec.Completions) {
								t.Errorf("%s: %s: --shards must equal completions %d", where, strings.Join(f.argv, " "), doc.Spec.Completions)
							}
						}
						continue
					}
					t.Errorf("%s: command %q: the recipe's containers run /bin/sh -c LINE", where, argv)
				}
			}
		}
	}
	if want := []string{"PersistentVolumeClaim", "Job", "Job"}; !slices.Equal(kinds, want) {
		t.Errorf("manifests are %v, want %v", kinds, want)
	}
	recipeCheckCommands(t, filepath.Join(ciDir, "_kubernetes"), cmds, []string{"run", "merge", "report"})
}

// TestRecipeSystemdAndCron: the service runs acprun once (oneshot) with
// --lock fail, the timer starts it; the crontab lines have a schedule and
// no unescaped % (cron's newline); their acprun lines are valid.
func TestRecipeSystemdAndCron(t *testing.T) {
	t.Parallel()
	service := filepath.Join(ciDir, "systemd", "acprun-nightly.service")
	units := map[string]map[string][]string{}
	for _, f := range []string{service, filepath.Join(ciDir, "systemd", "acprun-nightly.timer")} {
		units[filepath.Base(f)] = recipeUnit(t, f)
	}
	svc, timer := units["acprun-nightly.service"], units["acprun-nightly.timer"]
	if !slices.Equal(svc["Service.Type"], []string{"oneshot"}) || len(svc["Service.ExecStart"]) != 1 {
		t.Errorf("%s: want Type=oneshot and one ExecStart, got %v", service, svc)
	}
	if len(timer["Timer.OnCalendar"]) == 0 || !slices.Equal(timer["Install.WantedBy"], []string{"timers.target"}) {
		t.Errorf("acprun-nightly.timer: want OnCalendar= and WantedBy=timers.target, got %v", timer)
	}
	var cmds []recipeCommand
	for _, line := range svc["Service.ExecStart"] {
		line = strings.ReplaceAll(line, "%h", "/home/user") // the only specifier used
		cmds = append(cmds, recipeShellAcprun(t, service+": ExecStart", line, nil, nil)...)
	}

	crontab := filepath.Join(ciDir, "cron", "crontab")
	lines := 0
	for i, line := range recipeLines(t, crontab) {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		lines++
		fields := strings.Fields(line)
		if len(fields) < 6 {
			t.Errorf("%s:%d: want five schedule fields and a command: %s", crontab, i+1, line)
			continue
		}
		command := strings.Join(fields[5:], " ")
		if strings.Contains(strings.ReplaceAll(command, `\%`, ""), "%") {
			t.Errorf("%s:%d: unescaped %% (cron turns it into a newline): %s", crontab, i+1, command)
		}
		cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s:%d", crontab, i+1), command, nil, nil)...)
	}
	if lines == 0 {
		t.Errorf("%s: no crontab line", crontab)
	}
	recipeCheckCommands(t, filepath.Join(ciDir, "systemd+cron"), cmds, []string{"run"})
	for _, c := range cmds {
		if recipeFlag(c.argv, "--lock") != "fail" {
			t.Errorf("%s: %s: nightly runs use --lock fail", c.where, strings.Join(c.argv, " "))
		}
	}
}

// TestRecipeDockerfileAndREADME: the image builds acprun from the
// checkout (go build, nothing downloaded) and validates the examples; the
// shell snippets of the README are valid.
func TestRecipeDockerfileAndREADME(t *testing.T) {
	t.Parallel()
	dockerfile := filepath.Join(ciDir, "Dockerfile")
	var cmds []recipeCommand
	built := false
	runs := 0
	for _, line := range recipeJoinLines(recipeLines(t, dockerfile)) {
		if rest, ok := strings.CutPrefix(line, "RUN "); ok {
			runs++
			built = built || strings.Contains(rest, "go build")
			cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s: RUN #%d", dockerfile, runs), rest, nil, nil)...)
		}
	}
	if !built {
		t.Errorf("%s: no RUN go build: the image must build acprun from the checkout", dockerfile)
	}
	readme := filepath.Join(ciDir, "README.md")
	inBlock := false
	var block []string
	for _, line := range recipeLines(t, readme) {
		switch {
		case !inBlock && (line == "```sh" || line == "```console"):
			inBlock, block = true, nil
		case inBlock && line == "```":
			inBlock = false
			for j, l := range recipeJoinLines(block) {
				if strings.HasPrefix(strings.TrimSpace(l), "#") {
					continue
				}
				cmds = append(cmds, recipeShellAcprun(t, fmt.Sprintf("%s: sh block line %d", readme, j+1), l, nil, nil)...)
			}
		case inBlock:
			block = append(block, line)
		}
	}
	recipeCheckCommands(t, ciDir, cmds, []string{"run", "merge", "report", "validate", "list"})
	for _, f := range append(recipeLines(t, readme), recipeLines(t, dockerfile)...) {
		if regexp.MustCompile(`(curl|wget) [^|]*acprun|releases/download`).MatchString(f) {
			t.Errorf("a recipe downloads acprun: %s", f)
		}
	}
}

// recipeCheckCommands checks each command with the built binary; subcommands
// must be among allowed and at least one must be found.
func recipeCheckCommands(t *testing.T, recipe string, cmds []recipeCommand, allowed []string) {
	t.Helper()
	if len(cmds) == 0 {
		t.Errorf("%s: no acprun command line found", recipe)
		return
	}
	var fixtures []string // shard results for merge and report, made once
	if slices.ContainsFunc(cmds, func(c recipeCommand) bool { return len(c.argv) > 1 && (c.argv[1] == "merge" || c.argv[1] == "report") }) {
		fixtures = recipeShardFixtures(t)
	}
	for _, c := range cmds {
		t.Run(c.where+": "+strings.Join(c.argv, " "), func(t *testing.T) {
			if unknown := slices.IndexFunc(c.argv, func(a string) bool { return strings.Contains(a, "$") }); unknown >= 0 {
				t.Fatalf("%q: a variable the test does not know", c.argv[unknown])
			}
			if len(c.argv) < 2 || !slices.Contains(allowed, c.argv[1]) {
				t.Fatalf("not a command this recipe should run (want one of %v)", allowed)
			}
			switch c.argv[1] {
			case "run":
				recipeDryRun(t, c)
			case "validate", "list":
				res := acprunEnv(t, root, shardEnv(c.env...), c.argv[1:]...)
				recipeNotHelp(t, res)
				if res.code != exitOK {
					t.Errorf("exit %d\n%s", res.code, res.stderr)
				}
			case "merge", "report":
				recipeOnFixtures(t, c, fixtures)
			}
		})
	}
}

// recipeNotHelp fails the test when the line asks for help or the version:
// acprun prints them and exits 0 without doing the line's job. (A line
// acprun's flags do not parse exits 2, which every check refuses.)
func recipeNotHelp(t *testing.T, res result) {
	t.Helper()
	if strings.HasPrefix(res.stdout, "Usage: acprun") || versionLine.MatchString(res.stdout) {
		t.Errorf("the line asks for help or the version:\n%s", res.stdout)
	}
}

// recipeDryRun runs the line with --dry-run from the checkout's root, in
// the recipe's environment; --prompt - gets a prompt on stdin.
func recipeDryRun(t *testing.T, c recipeCommand) {
	t.Helper()
	args := append(slices.Clone(c.argv[1:]), "--dry-run")
	var res result
	if recipeFlag(c.argv, "--prompt") == "-" {
		res = promptWithStdinEnv(t, root, "a prompt from the recipe test\n", shardEnv(c.env...), args...)
		if !strings.Contains(res.stdout, "a prompt from the recipe test") {
			t.Errorf("--prompt -: the plan lacks the prompt from stdin:\n%s", res.stdout)
		}
	} else {
		res = acprunEnv(t, root, shardEnv(c.env...), args...)
	}
	recipeNotHelp(t, res)
	if res.code != exitOK || !strings.Contains(res.stdout, "turn 1:") {
		t.Errorf("acprun %s: exit %d, want 0 and a plan\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
}

// recipeShardFixtures runs a two-scenario suite in two shards and returns the
// two results files and the transcripts directory, for merge and report.
func recipeShardFixtures(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agent.mock.yaml": "turns:\n  - steps: [{text: done}]\n",
		"s.yaml": "name: one\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n---\n" +
			"name: two\nagent: {command: [acprun, mock-agent, agent.mock.yaml]}\npermissions: {default: deny}\nturns: [{prompt: hi}]\n",
	})
	var files []string
	for i := 1; i <= 2; i++ {
		f := filepath.Join(dir, fmt.Sprintf("fixture-%d.json", i))
		res := acprunEnv(t, dir, noShardEnv, "run", "s.yaml", "--shard", fmt.Sprintf("%d/2", i), "-q", "-o", f, "--transcripts", "transcripts")
		if res.code != exitOK {
			t.Fatalf("fixture shard %d: exit %d\n%s", i, res.code, res.stderr)
		}
		files = append(files, f)
	}
	return append(files, filepath.Join(dir, "transcripts"))
}

// recipeOnFixtures runs a merge or report line in a new directory where
// its results files are the fixtures (a glob matches both shards, files
// named one by one take them in turn), its
// --transcripts directory holds theirs and its absolute paths are moved
// under the directory; it must exit 0 and write its -o.
func recipeOnFixtures(t *testing.T, c recipeCommand, fixtures []string) {
	t.Helper()
	dir := t.TempDir()
	rel := func(p string) string { return strings.TrimPrefix(p, "/") } // absolute paths move under dir
	place := func(p string) string { return filepath.Join(dir, p) }
	var args []string
	files := 0 // results files named one by one so far
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i]
		switch {
		case a == "-o" || a == "--output" || a == "--transcripts":
			i++
			v := rel(c.argv[i])
			if a == "--transcripts" {
				recipeCopyDir(t, fixtures[2], place(v))
			}
			args = append(args, a, v)
		case i == 1 || strings.HasPrefix(a, "-"):
			args = append(args, a)
		case strings.Contains(a, "*"):
			for k, f := range fixtures[:2] {
				p := rel(strings.Replace(a, "*", strconv.Itoa(k+1), 1))
				recipeCopyFile(t, f, place(p))
				args = append(args, p)
			}
		default: // one shard's results, or the merged results of an earlier line
			recipeCopyFile(t, fixtures[files%2], place(rel(a)))
			files++
			args = append(args, rel(a))
		}
	}
	res := acprunEnv(t, dir, noShardEnv, args...)
	recipeNotHelp(t, res)
	if res.code != exitOK {
		t.Fatalf("acprun %s on fixture shards: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	if out := recipeFlag(args, "-o"); out != "" {
		if _, err := os.Stat(place(out)); err != nil {
			t.Errorf("acprun %s wrote no %s: %v", strings.Join(args, " "), out, err)
		}
	}
}

// recipeShellAcprun returns the acprun commands of a shell line (or of several
// lines): every simple command whose program is acprun (any directory).
// vars are NAME=value pairs the line's $NAME and ${NAME} stand for; a
// variable not among them is left as written, for recipeCheckCommands to report.
func recipeShellAcprun(t *testing.T, where, script string, vars, env []string) []recipeCommand {
	t.Helper()
	lookup := func(name string) (string, bool) {
		for _, kv := range vars {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	var out []recipeCommand
	for _, line := range recipeJoinLines(strings.Split(script, "\n")) {
		cmds, err := recipeShellCommands(line, lookup)
		if err != nil {
			t.Errorf("%s: %v: %s", where, err, line)
			continue
		}
		for _, argv := range cmds {
			if len(argv) > 0 && filepath.Base(argv[0]) == "acprun" {
				out = append(out, recipeCommand{where: where, argv: append([]string{"acprun"}, argv[1:]...), env: env})
			}
		}
	}
	return out
}

// recipeShellCommands splits one shell line into its simple commands (split at
// unquoted | & ; ( ) and the words { and }), each a list of words with the
// quotes removed and variables looked up; redirections and their targets
// are dropped, and so is a comment.
func recipeShellCommands(line string, lookup func(string) (string, bool)) ([][]string, error) {
	var (
		cmds     [][]string
		cur      []string
		word     strings.Builder
		inWord   bool
		redirect bool // the next word is a redirection's target
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch {
		case redirect:
			redirect = false
		case (w == "{" || w == "}") && len(cur) == 0:
		default:
			cur = append(cur, w)
		}
	}
	endCmd := func() {
		endWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	expand := func(s string, i int) int { // s[i] == '$'; returns the index after the reference
		j := i + 1
		var name string
		switch {
		case j < len(s) && s[j] == '{':
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				word.WriteString(s[i:])
				return len(s)
			}
			name, j = s[j+1:j+end], j+end+1
		case j < len(s) && (s[j] == '?' || s[j] == '$'):
			name, j = s[j:j+1], j+1
		default:
			for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			name = s[i+1 : j]
		}
		if v, ok := lookup(name); ok {
			word.WriteString(v)
		} else {
			word.WriteString(s[i:j])
		}
		inWord = true
		return j
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
			i++
		case c == '#' && !inWord:
			i = len(line)
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated '")
			}
			word.WriteString(line[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case c == '"':
			inWord = true
			i++
			for {
				if i >= len(line) {
					return nil, fmt.Errorf(`unterminated "`)
				}
				if line[i] == '"' {
					i++
					break
				}
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					word.WriteByte(line[i+1])
					i += 2
					continue
				}
				if line[i] == '$' {
					i = expand(line, i)
					continue
				}
				word.WriteByte(line[i])
				i++
			}
		case c == '\\' && i+1 < len(line):
			word.WriteByte(line[i+1])
			inWord = true
			i += 2
		case c == '$':
			i = expand(line, i)
		case c == '>' || c == '<':
			if w := word.String(); inWord && strings.Trim(w, "0123456789") == "" {
				word.Reset() // the 2 of 2>
				inWord = false
			}
			endWord()
			i++
			for i < len(line) && (line[i] == '>' || line[i] == '&') {
				i++
			}
			redirect = true
		case strings.IndexByte("|&;()", c) >= 0:
			endCmd()
			i++
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCmd()
	return cmds, nil
}

// TestRecipeShellReader: the test's shell reader finds the commands of the
// lines the recipes use.
func TestRecipeShellReader(t *testing.T) {
	t.Parallel()
	lookup := func(name string) (string, bool) {
		if name == "I" {
			return "2", true
		}
		return "", false
	}
	tests := []struct {
		line string
		want [][]string
	}{
		{`acprun run examples --shard $I/3 -o "results/shard-${I}.json"`, [][]string{{"acprun", "run", "examples", "--shard", "2/3", "-o", "results/shard-2.json"}}},
		{`cd "$HOME/src" && mkdir -p x && "$HOME/go/bin/acprun" run a -o x/n.json >> x/n.log 2>&1`,
			[][]string{{"cd", "$HOME/src"}, {"mkdir", "-p", "x"}, {"$HOME/go/bin/acprun", "run", "a", "-o", "x/n.json"}}},
		{`{ cat a.md; git log --oneline; } | acprun run n --prompt - # why`, [][]string{{"cat", "a.md"}, {"git", "log", "--oneline"}, {"acprun", "run", "n", "--prompt", "-"}}},
		{`acprun merge s/*.json -o r.json 2> m.txt || status=$?`, [][]string{{"acprun", "merge", "s/*.json", "-o", "r.json"}, {"status=$?"}}},
		{`{ echo '### x'; echo '` + "```" + `'; } >> "$GITHUB_STEP_SUMMARY"`, [][]string{{"echo", "### x"}, {"echo", "```"}}},
	}
	for _, tt := range tests {
		got, err := recipeShellCommands(tt.line, lookup)
		if err != nil || !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("recipeShellCommands(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

// githubExpressions replaces the ${{ … }} expressions of s with exprs.
func githubExpressions(s string, exprs map[string]string) (string, error) {
	var bad error
	out := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`).ReplaceAllStringFunc(s, func(m string) string {
		name := strings.TrimSpace(m[3 : len(m)-2])
		if v, ok := exprs[name]; ok {
			return v
		}
		bad = fmt.Errorf("expression %s: unknown to the test", m)
		return m
	})
	return out, bad
}

// recipeFlag is the value of flag in argv ("--flag value" or
// "--flag=value"), "" when absent.
func recipeFlag(argv []string, flag string) string {
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			return argv[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// recipeUnit reads a systemd unit file into Section.Key → values.
func recipeUnit(t *testing.T, file string) map[string][]string {
	t.Helper()
	unit := map[string][]string{}
	section := ""
	for i, line := range recipeJoinLines(recipeLines(t, file)) {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Errorf("%s: line %d: not Key=value in a section: %s", file, i+1, line)
				continue
			}
			unit[section+"."+strings.TrimSpace(k)] = append(unit[section+"."+strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return unit
}

// recipeJoinLines joins lines ending in a backslash with the next.
func recipeJoinLines(lines []string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range lines {
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur.WriteString(s)
			continue
		}
		cur.WriteString(l)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func recipeLines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// recipeYAML decodes the one YAML document of file into v.
func recipeYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// recipeYAMLDocs decodes every YAML document of file.
func recipeYAMLDocs[T any](t *testing.T, file string) []T {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var docs []T
	for {
		var doc T
		err := dec.Decode(&doc)
		if err == io.EOF {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", file, len(docs)+1, err)
		}
		docs = append(docs, doc)
	}
}

func recipeCopyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func recipeCopyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}
