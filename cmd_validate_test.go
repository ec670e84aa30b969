package main

import (
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
