package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/testkit"
	"github.com/acprun/acprun/scenario"
)

// TestTranscriptErrors: each replay transcript the agents of the
// scenarios play (a judge's too) is read as acprun replay reads it, and
// one it would refuse is an error at the word that names it, saying what
// replay says after the transcript's name; a good one is none, and the
// agents of a scenario with unset variables are not checked.
func TestTranscriptErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"t":0,"dir":"c2a","msg":{"jsonrpc":"2.0","id":1,"method":"initialize"}}` + "\n"
	files := map[string]string{
		"rec/good.jsonl":  good,
		"rec/bad.jsonl":   good + "not json\n",
		"rec/empty.jsonl": "",
		"s.yaml": "name: good\nagent: {replay: rec/good.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: bad\nagent: {replay: rec/bad.jsonl}\nturns: [{prompt: hi}]\n" +
			"---\nname: judged\nagent: {replay: rec/good.jsonl}\n" +
			"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, replay, rec/empty.jsonl]}, rubric: ok}}}]\n" +
			"---\nname: unset\nagent: {command: [acprun, replay, \"${NOPE:-rec/bad.jsonl}${UNSET_HERE}\"]}\nturns: [{prompt: hi}]\n",
	}
	testkit.WriteFiles(t, dir, files)
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{DeferUnset: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range startErrors(scs) {
		got = append(got, e.Error(), e.Source)
	}
	want := []string{
		"s.yaml:6:17: agent: replay transcript rec/bad.jsonl: line 2, column 1: not a JSON object (a transcript has one JSON object per line); record it again with acprun run --transcripts DIR",
		"agent: {replay: rec/bad.jsonl}",
		"s.yaml:11:73: judge agent: replay transcript rec/empty.jsonl: the transcript is empty; record it again with acprun run --transcripts DIR",
		"turns: [{prompt: hi, expect: {judge: {agent: {command: [acprun, replay, rec/empty.jsonl]}, rubric: ok}}}]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("startErrors (-want +got):\n%s", diff)
	}
}

// TestWorkspaceStrictErrors: validate --strict reports a workspace that
// a run could not make at the value it is about (git for a directory that
// is not a repository, ref for a ref that names no commit); a repository
// and a ref it has are none, and the workspace of a scenario with unset
// variables is not checked (its unset variables are the errors).
func TestWorkspaceStrictErrors(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	for _, args := range [][]string{{"init", "--quiet", repo}, {"-C", repo, "commit", "--quiet", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	rest := "agent: {command: [sh]}\nturns: [{prompt: hi}]\n"
	testkit.WriteFiles(t, dir, map[string]string{
		"plain/f": "x",
		"s.yaml": "name: plain\nworkspace: {git: plain}\n" + rest +
			"---\nname: bad-ref\nworkspace: {git: repo, ref: nope}\n" + rest +
			"---\nname: good\nworkspace: {git: repo, ref: HEAD}\n" + rest +
			"---\nname: unset\nworkspace: {git: repo, ref: \"${UNSET_HERE}\"}\n" + rest,
	})
	t.Chdir(dir)
	scs, _, err := scenario.Load([]string{"s.yaml"}, scenario.LoadOptions{DeferUnset: true, LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range strictErrors(t.Context(), scs) {
		got = append(got, e.Error(), e.Source)
	}
	want := []string{
		"s.yaml:2:18: workspace: git " + filepath.Join(dir, "plain") + ": not a git repository (git rev-parse: fatal: not a git repository",
		"workspace: {git: plain}",
		"s.yaml:7:29: workspace: ref nope: unknown revision in " + repo + ": give a branch, tag or commit of it",
		"workspace: {git: repo, ref: nope}",
		"s.yaml:17:30: environment variable UNSET_HERE is not set (write ${UNSET_HERE:-default} to give a default)",
		`workspace: {git: repo, ref: "${UNSET_HERE}"}`,
	}
	ok := len(got) == len(want) // git words the first error's end
	for i := range min(len(got), len(want)) {
		ok = ok && strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("strictErrors = %q; want, each beginning with, %q", got, want)
	}
}
