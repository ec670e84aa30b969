package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestEveryValueFlagRefusesAnEmptyValue parses, for every command, each
// flag whose placeholder says it names a file or a directory, selects
// scenarios, or names a model, a mode or an auth method with an empty value, and checks that
// emptyFlag refuses it: a flag added later is covered as soon as it has
// such a placeholder.
func TestEveryValueFlagRefusesAnEmptyValue(t *testing.T) {
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	checked := 0
	eachCommandFlag(t, func(words []string, f *kong.Flag) {
		kind := f.Target.Kind()
		if _, ok := emptyPlaceholders[f.PlaceHolder]; !ok || f.Enum != "" || kind != reflect.String && kind != reflect.Slice { // kong checks an enum, a type its own values
			return
		}
		checked++
		args := append(words, "--"+f.Name+"=")
		p, err := newParser(context.Background(), &cli{}, g, g.Stdout, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		kctx, err := p.Parse(args)
		if err != nil {
			t.Errorf("%q: %v", args, err)
			return
		}
		if err := emptyFlag(kctx); err == nil || !strings.Contains(err.Error(), "--"+f.Name+` ""`) {
			t.Errorf("%q: emptyFlag = %v; want the flag refused", args, err)
		}
		args[len(args)-1] = "--" + f.Name + "=x"
		if kctx, err := p.Parse(args); err == nil {
			if err := emptyFlag(kctx); err != nil {
				t.Errorf("%q: emptyFlag = %v; want nil", args, err)
			}
		}
	})
	if checked < 22 { // run --prompt takes a text too: see TestRunUsageErrors
		t.Errorf("checked %d flags; want every one (at least 22: 18 paths, run's --model, --mode and --auth, probe's --auth)", checked)
	}
}

// TestGatewayFlags: --gateway takes record, replay or meter and gives
// every scenario a gateway, one-shot runs included; --gateway-timing goes
// with replay only; an agent acprun cannot point is a usage error (exit 2)
// saying what to write, before anything runs.
func TestGatewayFlags(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "")
	dir := t.TempDir()
	config := filepath.Join(dir, "acprun.yaml") // none of the working directory's
	scenarioFile := filepath.Join(dir, "s.yaml")
	for file, content := range map[string]string{
		config:       "",
		scenarioFile: "name: s\nagent: {command: [my-agent]}\nturns: [{prompt: x}]\n",
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"run", scenarioFile, "--gateway", "replauy"}, `--gateway: "replauy": want record (call the providers and keep their answers in cassettes), replay (answer from the cassettes, no network, no key) or meter`},
		{[]string{"run", scenarioFile, "--gateway", "meter", "--gateway-timing"}, "--gateway-timing paces replays, and --gateway meter does not replay: leave one of them out"},
		{[]string{"run", scenarioFile, "--gateway", "record"}, scenarioFile + ":2:8: acprun does not know how to point this agent at its gateway"},
	}
	for _, tt := range usage {
		var stdout, stderr bytes.Buffer
		code := run(append(tt.args, "--config", config), strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--agent", "claude", "--prompt", "hi", "--gateway", "replay", "--gateway-timing", "--dry-run", "--config", config}, strings.NewReader(""), &stdout, &stderr)
	cwd, _ := os.Getwd()
	for _, want := range []string{
		"  gateway:  replay: answers from the cassettes under " + filepath.Join(cwd, "cassettes") + " with no network and a dummy key, at the recorded pace\n",
		"    ANTHROPIC_BASE_URL (key ANTHROPIC_API_KEY)\n",
	} {
		if code != exitOK || !strings.Contains(stdout.String(), want) {
			t.Errorf("one-shot --gateway replay --dry-run: exit %d, stdout:\n%s\nstderr:\n%s\nwant %q", code, stdout.String(), stderr.String(), want)
		}
	}
}

// TestGatewayFlagsOfValidateListExplain: validate, list and explain take
// run's --gateway and --gateway-timing and load the scenarios as run does
// with them: a budget's maxRequests, which needs a gateway, is valid under
// --gateway meter; --gateway-timing goes with replay only.
func TestGatewayFlagsOfValidateListExplain(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "")
	dir := t.TempDir()
	config := filepath.Join(dir, "acprun.yaml") // none of the working directory's
	scenarioFile := filepath.Join(dir, "s.yaml")
	for file, content := range map[string]string{
		config:       "",
		scenarioFile: "name: s\nagent: claude\npermissions: {default: deny, allow: [{kind: read}]}\nbudget: {maxRequests: 3}\nturns: [{prompt: x}]\n",
	} {
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	needsGateway := scenarioFile + ":4:23: budget maxRequests counts the agent's model requests through acprun's gateway, and this scenario has none"
	tests := []struct {
		args []string
		code int
		want string // in stdout when the code is 0, else in stderr
	}{
		{[]string{"validate", scenarioFile}, exitUsage, needsGateway},
		{[]string{"validate", scenarioFile, "--gateway", "meter"}, exitOK, "1 scenario"},
		{[]string{"validate", scenarioFile, "--gateway", "meter", "--gateway-timing"}, exitUsage, "--gateway-timing paces replays, and --gateway meter does not replay: leave one of them out"},
		{[]string{"validate", scenarioFile, "--gateway", "metre"}, exitUsage, `--gateway: "metre": want record`},
		{[]string{"list", scenarioFile}, exitUsage, needsGateway},
		{[]string{"list", scenarioFile, "--gateway", "meter"}, exitOK, "s.yaml:1"},
		{[]string{"list", scenarioFile, "--gateway", "record", "--gateway-timing"}, exitUsage, "--gateway-timing paces replays, and --gateway record does not replay"},
		{[]string{"explain", scenarioFile, "--kind", "read"}, exitUsage, needsGateway},
		{[]string{"explain", scenarioFile, "--kind", "read", "--gateway", "meter"}, exitOK, "decision: ALLOW by allow rule " + scenarioFile + ":3"},
		{[]string{"explain", scenarioFile, "--kind", "read", "--gateway", "meter", "--gateway-timing"}, exitUsage, "--gateway-timing paces replays, and --gateway meter does not replay"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(append(tt.args, "--config", config), strings.NewReader(""), &stdout, &stderr)
		out := stderr.String()
		if tt.code == exitOK {
			out = stdout.String()
		}
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("%q: exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d and %q", tt.args, code, stdout.String(), stderr.String(), tt.code, tt.want)
		}
	}
}

// TestNegativeFlagValues: a negative value of -j, --repeat or a duration
// is refused with what the flag wants, not with kong's suggestion of
// --flag="-1", which fails as well; a duration too large gives the most it
// may be.
func TestNegativeFlagValues(t *testing.T) {
	for args, want := range map[string]string{
		"-j -1":              `--jobs: "-1": want how many scenarios run at once, 1 or more`,
		"-j=-1":              `--jobs: "-1": want how many scenarios run at once, 1 or more`,
		"--repeat -1":        "--repeat -1: want at least 1 attempt per scenario",
		"--turn-timeout -1s": `--turn-timeout: "-1s" is not a positive duration`,
		"--shards -1":        `--shards: "-1": want the number of shards, 1 or more`,
		"--max-failures -1":  `--max-failures: "-1": want how many failures stop the run, 1 or more`,
		"--gateway -1":       `--gateway: "-1": want record`,
		"--timeout 3000000h": `--timeout: "3000000h" is too large: the most it may be is 2562047h47m16.854775807s`,
	} {
		var stderr bytes.Buffer
		code := run(append([]string{"run", "x.yaml"}, strings.Fields(args)...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "perhaps try") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestCountFlagsTakeOneOrMore: --shards and --max-failures given 0 are
// refused as given less than 0 are, rather than read as left out (the
// whole suite in every pod, no stop at all); with JOB_COMPLETION_INDEX set
// too, --shards 0 does not pass for --shards missing.
func TestCountFlagsTakeOneOrMore(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	for args, want := range map[string]string{
		"--shards=0":        "acprun: --shards: \"0\": want the number of shards, 1 or more (leave --shards out not to shard by JOB_COMPLETION_INDEX)\n",
		"--shards 0":        "acprun: --shards: \"0\": want the number of shards, 1 or more (leave --shards out not to shard by JOB_COMPLETION_INDEX)\n",
		"--shards=-1":       "acprun: --shards: \"-1\": want the number of shards, 1 or more (leave --shards out not to shard by JOB_COMPLETION_INDEX)\n",
		"--max-failures=0":  "acprun: --max-failures: \"0\": want how many failures stop the run, 1 or more (leave --max-failures out to run every scenario)\n",
		"--max-failures -1": "acprun: --max-failures: \"-1\": want how many failures stop the run, 1 or more (leave --max-failures out to run every scenario)\n",
	} {
		for _, cmd := range []string{"run", "list"} {
			if cmd == "list" && strings.HasPrefix(args, "--max-failures") {
				continue
			}
			var stderr bytes.Buffer
			code := run(append([]string{cmd, "x.yaml"}, strings.Fields(args)...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
			if first, _, _ := strings.Cut(stderr.String(), "see '"); code != exitUsage || first != want {
				t.Errorf("%s %s: exit %d, stderr %q; want %d and %q", cmd, args, code, stderr.String(), exitUsage, want)
			}
		}
	}
}

// TestExplainIndexFromOne: explain's --index counts from 1, and given 0
// is refused as given less than 0 is, rather than read as left out (the
// first request explained, for an index the user did not mean); one too
// large for a number says what it wants too.
func TestExplainIndexFromOne(t *testing.T) {
	const want = "acprun: --index: %q: want which of the tool call's permission requests to explain, 1 or more (leave --index out for the first)\n"
	for _, v := range []string{"0", "-1", "99999999999999999999"} {
		for _, args := range [][]string{{"--index", v}, {"--index=" + v}} {
			var stderr bytes.Buffer
			args = append([]string{"explain", "s.yaml", "--transcript", "t.jsonl", "--tool-call", "t1"}, args...)
			code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
			if first, _, _ := strings.Cut(stderr.String(), "see '"); code != exitUsage || first != fmt.Sprintf(want, v) {
				t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, fmt.Sprintf(want, v))
			}
		}
	}
}

// TestPathFlagGivenTwice: a flag that names a file or a directory given
// twice, by any of its names, is refused: only the last would count, and
// the output named first would silently not be written.
func TestPathFlagGivenTwice(t *testing.T) {
	for args, want := range map[string]string{
		"run x.yaml -o a.json --json b.json":                                      "acprun: -o/--output (or --json) given 2 times: it takes a file, and only the last would count; give it once\n",
		"run x.yaml --output=a.json -o a.json":                                    "acprun: -o/--output (or --json) given 2 times: it takes a file, and only the last would count; give it once\n",
		"run x.yaml --junit a.xml --junit b.xml":                                  "acprun: --junit given 2 times: it takes a file, and only the last would count; give it once\n",
		"run x.yaml --transcripts t --transcripts u":                              "acprun: --transcripts given 2 times: it takes a directory, and only the last would count; give it once\n",
		"merge r.json -o a -o b -o c":                                             "acprun: -o/--output given 3 times: it takes a file, and only the last would count; give it once\n",
		"explain s.yaml --transcript a.jsonl --transcript=b.jsonl --tool-call t1": "acprun: --transcript given 2 times: it takes a file, and only the last would count; give it once\n",
		"explain s.yaml --request a.json --request b.json":                        "acprun: --request given 2 times: it takes a file, and only the last would count; give it once\n",
	} {
		var stderr bytes.Buffer
		code := run(strings.Fields(args), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || stderr.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestEmptySelectorRefused: each flag of run and list that selects
// scenarios, given an empty value in either form (--run "" or --run=,
// as "$ONLY" gives it when the variable is unset), is refused rather
// than taken as no filter, which would select every scenario.
func TestEmptySelectorRefused(t *testing.T) {
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	for _, cmd := range []string{"run", "list"} {
		for _, flag := range []string{"--run", "--tag", "--shard", "--agent"} {
			for _, args := range [][]string{{cmd, "x", flag, ""}, {cmd, "x", flag + "="}} {
				p, err := newParser(context.Background(), &cli{}, g, g.Stdout, func(int) {})
				if err != nil {
					t.Fatal(err)
				}
				kctx, err := p.Parse(args)
				if err != nil {
					t.Errorf("%q: %v", args, err)
					continue
				}
				want := flag + ` "": the `
				if err := emptyFlag(kctx); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(is the variable that gives it unset?)") {
					t.Errorf("%q: emptyFlag = %v; want %q", args, err, want)
				}
			}
		}
	}
}

// TestWordListFlags: --tag and --agent take words, several in a value
// separated by commas. A value with an empty word ("smoke," as
// "$A,$B" gives it with B unset) or a word with white space ("smoke,
// nightly"), which no tag or agent name can equal, is refused before
// anything runs instead of selecting less than was asked for; one whose
// every word is empty ("," or "") is an empty flag.
func TestWordListFlags(t *testing.T) {
	const emptyTag = `: the tag is empty (is the variable that gives it unset?): give a tag, or leave the flag out`
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tag", "smoke, nightly"}, `--tag "smoke, nightly": tag " nightly" holds a space: a tag is one word; separate tags with commas and no spaces, or repeat --tag`},
		{[]string{"--tag", "nightly "}, `--tag "nightly ": tag "nightly " holds a space: a tag is one word; separate tags with commas and no spaces, or repeat --tag`},
		{[]string{"--tag", "a\tb"}, `--tag "a\tb": tag "a\tb" holds the control character \x09: a tag is one word; separate tags with commas and no spaces, or repeat --tag`},
		{[]string{"--tag", "smoke", "--tag", "a b"}, `--tag "a b": tag "a b" holds a space`},
		{[]string{"--tag", ","}, `--tag ","` + emptyTag},
		{[]string{"--tag=,,"}, `--tag ",,"` + emptyTag},
		{[]string{"--tag", "smoke", "--tag", ""}, `--tag ""` + emptyTag},
		{[]string{"--tag", "smoke,"}, `--tag "smoke,": a tag in it is empty (is a variable that gives it unset?): give a tag between every two commas, with none before the first or after the last`},
		{[]string{"--tag", ",smoke"}, `--tag ",smoke": a tag in it is empty`},
		{[]string{"--tag", "smoke,,nightly"}, `--tag "smoke,,nightly": a tag in it is empty`},
		{[]string{"--agent", "m1, m2"}, `--agent "m1, m2": name " m2" holds a space: a name is one word; separate names with commas and no spaces, or repeat --agent`},
		{[]string{"--agent", "m1,"}, `--agent "m1,": a name in it is empty (is a variable that gives it unset?): give a name between every two commas, with none before the first or after the last`},
		{[]string{"--agent", ","}, `--agent ",": the name is empty (is the variable that gives it unset?): give a name, or leave the flag out`},
		{[]string{"--agent", "m1", "--agent", ""}, `--agent "": the name is empty`},
	} {
		for _, cmd := range []string{"run", "list"} {
			args := append([]string{cmd, "x.yaml"}, tt.args...)
			var stderr bytes.Buffer
			code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
			if code != exitUsage || !strings.HasPrefix(stderr.String(), "acprun: "+tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("%q: exit %d, stderr %q; want %d and one line starting %q", args, code, stderr.String(), exitUsage, "acprun: "+tt.want)
			}
		}
	}
}

// TestWordListFlagsSplit: each value of --tag and --agent lists words
// separated by commas, and the flags may be repeated: the selection gets
// every word, in order.
func TestWordListFlagsSplit(t *testing.T) {
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	root := &cli{}
	p, err := newParser(context.Background(), root, g, g.Stdout, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	kctx, err := p.Parse([]string{"run", "x.yaml", "--tag", "smoke,nightly", "--tag=slow", "--agent", "m1,m2", "--agent", "m3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkFlags(kctx); err != nil {
		t.Fatal(err)
	}
	if got, want := words(root.Run.Tag), []string{"smoke", "nightly", "slow"}; !slices.Equal(got, want) {
		t.Errorf("tags %q, want %q", got, want)
	}
	if got, want := words(root.Run.Agent), []string{"m1", "m2", "m3"}; !slices.Equal(got, want) {
		t.Errorf("agents %q, want %q", got, want)
	}
}

// TestOneValueSelectionFlagGivenTwice: --run and --shard select by one
// value, and given twice only the last would count: --run a --run b,
// which reads as selecting both as --tag a --tag b does, would run b
// alone. They are refused, as are explain's --scenario and --tool-call,
// which select one, and the flags of its made-up request that give its
// one kind, tool, title or command; --timeout, --repeat and
// --min-pass-rate stay last-wins, so that a later flag overrides one set
// before it.
func TestOneValueSelectionFlagGivenTwice(t *testing.T) {
	for args, want := range map[string]string{
		"run x.yaml --run smoke --run nightly":                            "acprun: --run given 2 times: it takes one regular expression (RE2), and only the last would count; give it once, with | between the patterns to select several: --run 'smoke|nightly'\n",
		"list x.yaml --run=a --run b --run c":                             "acprun: --run given 3 times: it takes one regular expression (RE2), and only the last would count; give it once, with | between the patterns to select several: --run 'smoke|nightly'\n",
		"run x.yaml --shard 1/2 --shard 2/2":                              "acprun: --shard given 2 times: it takes one shard such as 2/4, and only the last would count; give it once\n",
		"list x.yaml --shard=1/3 --shard=1/3":                             "acprun: --shard given 2 times: it takes one shard such as 2/4, and only the last would count; give it once\n",
		"explain x.yaml --scenario a --scenario b --kind read":            "acprun: --scenario given 2 times: it takes one scenario's name, and only the last would count; give it once\n",
		"explain x.yaml --transcript t.jsonl --tool-call a --tool-call=b": "acprun: --tool-call given 2 times: it takes one tool call's id, and only the last would count; give it once\n",
		"explain x.yaml --kind read --kind edit":                          "acprun: --kind given 2 times: it takes the one kind of the made-up request, and only the last would count; give it once\n",
		"explain x.yaml --command ls --command pwd":                       "acprun: --command given 2 times: it takes the one shell command of the made-up request, and only the last would count; give it once\n",
	} {
		var stderr bytes.Buffer
		code := run(strings.Fields(args), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || stderr.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	for _, args := range []string{
		"run x.yaml --timeout 1m --timeout 2m",
		"run x.yaml --repeat 2 --repeat 3",
		"run x.yaml --repeat 4 --min-pass-rate 0.5 --min-pass-rate 0.75",
	} {
		p, err := newParser(context.Background(), &cli{}, g, g.Stdout, func(int) {})
		if err != nil {
			t.Fatal(err)
		}
		kctx, err := p.Parse(strings.Fields(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		if err := checkFlags(kctx); err != nil {
			t.Errorf("%s: %v; want the last value to count", args, err)
		}
	}
}

// TestFlagWithoutItsValue: a flag given without its value, at the end of
// the command line or before another flag (-o $OUT --junit j.xml with OUT
// empty), is a usage error (exit 2) that names the flag as it was typed,
// says what value it needs and what came instead, and never offers a flag
// as the value (--output="--junit" would write a file named --junit).
func TestFlagWithoutItsValue(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"run x.yaml -o", `acprun: -o needs a file name, but the command line ends after it (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --json", `acprun: --json needs a file name, but the command line ends after it (an empty variable? quote it: --json "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --output --junit j.xml", `acprun: --output needs a file name, but the next word is the flag --junit (an empty variable? quote it: --output "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml -o --junit j.xml", `acprun: -o needs a file name, but the next word is the flag --junit (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml -qo", `acprun: -o needs a file name, but the command line ends after it (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --timeout", `acprun: --timeout needs a duration (e.g. 5m), but the command line ends after it (an empty variable? quote it: --timeout "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml -j -q", `acprun: -j needs a number, but the next word is the flag -q (an empty variable? quote it: -j "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --color --junit=j.xml", `acprun: --color needs one of auto, always or never, but the next word is the flag --junit=j.xml (an empty variable? quote it: --color "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --run -smoke", `acprun: --run needs a regular expression, but the next word, -smoke, starts with "-": if it is the value, write --run=-smoke` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml -o -x.json", `acprun: -o needs a file name, but the next word, -x.json, starts with "-": if it is the value, write --output=-x.json` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --run -1", `acprun: --run needs a regular expression, but the next word, -1, starts with "-": if it is the value, write --run=-1` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml --json --help", `acprun: --json needs a file name, but the next word is the flag --help (an empty variable? quote it: --json "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run -o -- x.yaml", `acprun: -o needs a file name, but the next word is --, which ends the flags (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"run x.yaml -o -out.json", `acprun: -o needs a file name, but the next word is the flag -out.json (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun run --help'\n"},
		{"list x.yaml --shard", `acprun: --shard needs a shard (e.g. 2/4), but the command line ends after it (an empty variable? quote it: --shard "$VAR")` + "\nsee 'acprun list --help'\n"},
		{"merge a.json -o --color never", `acprun: -o needs a file name, but the next word is the flag --color (an empty variable? quote it: -o "$VAR")` + "\nsee 'acprun merge --help'\n"},
		{"report r.json --transcripts", `acprun: --transcripts needs a directory, but the command line ends after it (an empty variable? quote it: --transcripts "$VAR")` + "\nsee 'acprun report --help'\n"},
	} {
		var stderr bytes.Buffer
		code := run(strings.Fields(tt.args), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || stderr.String() != tt.want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %d and:\n%s", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}

// TestEveryValueFlagSaysWhatItNeeds gives, for every command, each flag
// that takes a value, by each of its names, without the value, and checks
// that the error names the flag as given and what its value is: a flag
// added later is covered as soon as it is added.
func TestEveryValueFlagSaysWhatItNeeds(t *testing.T) {
	checked := 0
	eachCommandFlag(t, func(words []string, f *kong.Flag) {
		if f.IsBool() || f.IsCounter() {
			return
		}
		names := []string{"--" + f.Name}
		if f.Short != 0 {
			names = append(names, "-"+string(f.Short))
		}
		for _, a := range f.Aliases {
			names = append(names, aliasName(a))
		}
		for _, name := range names {
			checked++
			args := append(words, name)
			var stderr bytes.Buffer
			code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
			first, _, _ := strings.Cut(stderr.String(), "\n")
			kind, _, ok := strings.Cut(strings.TrimPrefix(first, "acprun: "+name+" needs "), ", but the command line ends after it")
			if code != exitUsage || !ok || kind == "" || kind == "a value" {
				t.Errorf("%q: exit %d, stderr %q; want %d and what %s needs", args, code, stderr.String(), exitUsage, name)
			}
		}
	})
	if checked < 60 {
		t.Errorf("checked %d flag names; want every one (at least 60)", checked)
	}
}

// eachCommandFlag calls fn for every flag of every command, with the words
// that give the command (its required arguments x), which fn may append to.
func eachCommandFlag(t *testing.T, fn func(words []string, f *kong.Flag)) {
	t.Helper()
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	parser, err := newParser(context.Background(), &cli{}, g, g.Stdout, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range parser.Model.Leaves(false) {
		words := strings.Fields(cmd.Path())
		for _, p := range cmd.Positional {
			if p.Required {
				words = append(words, "x")
			}
		}
		for _, flags := range cmd.AllFlags(false) {
			for _, f := range flags {
				fn(slices.Clip(words), f)
			}
		}
	}
}

// TestShortFlagValueAfterEquals: -o=out.json gives -o the value out.json,
// as --output=out.json and -j=2 do, not "=out.json" (a file of that name,
// and a file named "=" for -o=$OUT with OUT unset); -o= is then the
// empty path, refused as --output= is.
func TestShortFlagValueAfterEquals(t *testing.T) {
	var out bytes.Buffer
	g := &globals{Stdout: &out, Stderr: &out}
	root := &cli{}
	p, err := newParser(context.Background(), root, g, g.Stdout, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse([]string{"run", "x.yaml", "-o=out.json", "--junit=j.xml"}); err != nil {
		t.Fatal(err)
	}
	if got := root.Run.JSON; got != "out.json" {
		t.Errorf("-o=out.json: output %q, want out.json", got)
	}
	for _, args := range [][]string{{"run", "x.yaml", "-o="}, {"merge", "r.json", "-o="}} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if want := `acprun: -o/--output "": the path is empty`; code != exitUsage || !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestMinPassRateNotANumber: --min-pass-rate given what is no number
// says what it wants, as the other flags that take a number do, not
// kong's "expected a float".
func TestMinPassRateNotANumber(t *testing.T) {
	const want = "acprun: --min-pass-rate: %q: want a share of the attempts above 0 and at most 1, e.g. 0.8\n"
	for _, v := range []string{"abc", "80%", "1e999", ""} {
		var stderr bytes.Buffer
		args := []string{"run", "x.yaml", "--min-pass-rate=" + v}
		code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if first, _, _ := strings.Cut(stderr.String(), "see '"); code != exitUsage || first != fmt.Sprintf(want, v) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, fmt.Sprintf(want, v))
		}
	}
}

// TestEmptyChoiceFlags: a flag that takes one of a few values given an
// empty one, as --format "$FMT" gives it with FMT unset, in either form,
// is refused as the other empty flags are, saying the value is empty and
// what to give, where kong's own error said only which values it wants.
func TestEmptyChoiceFlags(t *testing.T) {
	const unset = `: the value is empty (is the variable that gives it unset?): give `
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "x.yaml", "--format="}, `--format ""` + unset + "one of lines, dots or quiet, or leave the flag out"},
		{[]string{"run", "x.yaml", "--format", ""}, `--format ""` + unset + "one of lines, dots or quiet, or leave the flag out"},
		{[]string{"run", "x.yaml", "--lock="}, `--lock ""` + unset + "one of wait or fail, or leave the flag out"},
		{[]string{"--color=", "run", "x.yaml"}, `--color ""` + unset + "one of auto, always or never, or leave the flag out"},
		{[]string{"run", "x.yaml", "--gateway="}, `--gateway ""` + unset + "a mode (record, replay or meter), or leave the flag out"},
		{[]string{"validate", "x.yaml", "--gateway", ""}, `--gateway ""` + unset + "a mode (record, replay or meter), or leave the flag out"},
		{[]string{"run", "x.yaml", "--fail-fast="}, `--fail-fast=` + unset + "finish or cancel (--fail-fast=cancel), or --fail-fast alone for finish"},
	} {
		var stderr bytes.Buffer
		code := run(tt.args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if first, _, _ := strings.Cut(stderr.String(), "\n"); code != exitUsage || first != "acprun: "+tt.want {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}

// TestExplainEmptyFlags: explain's flags given an empty value, as
// --command "$CMD" gives it with CMD unset, are refused as the other
// commands' are, rather than read as left out (a made-up request without
// its command explained, or an error about another flag).
func TestExplainEmptyFlags(t *testing.T) {
	for args, want := range map[string]string{
		"--request=":                        `--request "": the path is empty`,
		"--transcript= --tool-call t1":      `--transcript "": the path is empty`,
		"--transcript t.jsonl --tool-call=": `--tool-call "": the tool call id is empty`,
		"--kind execute --command=":         `--command "": the command is empty`,
		"--kind read --title=":              `--title "": the title is empty`,
		"--kind= --command ls":              `--kind "": the kind is empty`,
	} {
		var stderr bytes.Buffer
		code := run(append([]string{"explain", "s.yaml"}, strings.Fields(args)...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if code != exitUsage || !strings.HasPrefix(stderr.String(), "acprun: "+want+" (is the variable that gives it unset?)") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestEmptyPathArgument: an empty path argument, as acprun run "$SUITE"
// gives it with SUITE unset, is refused naming the argument and saying
// what to give, rather than said as a file named "" that does not exist
// or, for explain's optional scenario file, read as left out (the rules
// of a run without one explained instead of the scenario's).
func TestEmptyPathArgument(t *testing.T) {
	for _, args := range [][]string{
		{"run", "s.yaml", ""},
		{"validate", ""},
		{"list", "", "s.yaml"},
		{"explain", "", "--kind", "read"},
		{"report", "", "-o", "r.html"},
		{"merge", "r.json", "", "-o", "m.json"},
		{"mock-agent", ""},
		{"replay", ""},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		want := `the argument is empty (is the variable that gives it unset?): give a path`
		if code != exitUsage || !strings.HasPrefix(stderr.String(), "acprun: <") || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		}
	}
}

// TestFailFastWithMaxFailures: --fail-fast alone stops a run at its first
// failure, so with a --max-failures above 1 one of them would be ignored:
// the two are refused together (exit 2), in either order, naming both.
// --fail-fast=cancel or =finish with --max-failures says what the Nth
// failure does to the running scenarios, and --max-failures 1 agrees with
// --fail-fast: those are taken.
func TestFailFastWithMaxFailures(t *testing.T) {
	const refused = "acprun: --fail-fast stops the run at its first failure, and --max-failures 3 after 3: leave one of them out (--fail-fast=cancel --max-failures 3 cancels the running scenarios then)\n"
	for args, want := range map[string]string{
		"--fail-fast --max-failures 3":        refused,
		"--max-failures=3 --fail-fast":        refused,
		"--fail-fast=cancel --max-failures 3": "",
		"--fail-fast=finish --max-failures 3": "",
		"--fail-fast --max-failures 1":        "",
	} {
		var stderr bytes.Buffer
		code := run(append([]string{"run", "missing.yaml"}, strings.Fields(args)...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		switch first, _, _ := strings.Cut(stderr.String(), "see '"); {
		case want != "" && (code != exitUsage || first != want):
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", args, code, stderr.String(), exitUsage, want)
		case want == "" && strings.Contains(stderr.String(), "--fail-fast stops"):
			t.Errorf("%s: refused, want it taken:\n%s", args, stderr.String())
		}
	}
}
