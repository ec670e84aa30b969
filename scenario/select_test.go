package scenario_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/scenario"
)

// TestSelect: the filters apply in order (--run, --tag, shard, matrix),
// keep the scenarios' order, and an empty result names the filter that
// emptied it.
func TestSelect(t *testing.T) {
	cfg := loadConfig(t, `agents:
  alpha: {command: [alpha-agent]}
  beta: {command: [beta-agent]}
`)
	five := func() []*scenario.Scenario {
		return []*scenario.Scenario{
			{Name: "a1", Tags: []string{"fast"}},
			{Name: "a2", Tags: []string{"slow"}},
			{Name: "b1", Tags: []string{"fast", "net"}},
			{Name: "b2"},
			{Name: "c1", Tags: []string{"net"}},
		}
	}
	tests := []struct {
		name string
		scs  []*scenario.Scenario // nil: five()
		sel  scenario.Selection
		want []string // name@agent of each selected scenario
		err  string   // the error, "" for none
		none bool     // the error is a *NoneSelectedError
	}{
		{name: "no filter keeps all, in order", want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "run", sel: scenario.Selection{Run: "^b"}, want: []string{"b1", "b2"}},
		{name: "run matches anywhere", sel: scenario.Selection{Run: "1"}, want: []string{"a1", "b1", "c1"}},
		{name: "tags: any of them", sel: scenario.Selection{Tags: []string{"slow", "net"}}, want: []string{"a2", "b1", "c1"}},
		{name: "run then tag", sel: scenario.Selection{Run: "^[ab]", Tags: []string{"fast"}}, want: []string{"a1", "b1"}},
		{name: "shard 1/2", sel: scenario.Selection{Shard: "1/2"}, want: []string{"a1", "b1", "c1"}},
		{name: "shard 2/2", sel: scenario.Selection{Shard: "2/2"}, want: []string{"a2", "b2"}},
		{name: "shard 1/1", sel: scenario.Selection{Shard: "1/1"}, want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "shards of the filtered selection", sel: scenario.Selection{Tags: []string{"fast", "net"}, Shard: "2/2"}, want: []string{"b1"}},
		{name: "job index", sel: scenario.Selection{JobIndex: "1", Shards: 3}, want: []string{"a2", "c1"}},
		{name: "shard beats job index", sel: scenario.Selection{Shard: "1/3", JobIndex: "1", Shards: 3}, want: []string{"a1", "b2"}},
		{name: "job index without shards does not shard", sel: scenario.Selection{JobIndex: "4"}, want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "--shards 1 without an index", sel: scenario.Selection{Shards: 1}, want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "GitLab's node index is 1-based", sel: scenario.Selection{CINodeIndex: "2", CINodeTotal: "3"}, want: []string{"a2", "c1"}},
		{name: "GitLab's last node", sel: scenario.Selection{CINodeIndex: "3", CINodeTotal: "3"}, want: []string{"b1"}},
		{name: "CI_NODE_TOTAL=1 alone (every GitLab job) does not shard", sel: scenario.Selection{CINodeTotal: "1"}, want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "shard beats GitLab's node", sel: scenario.Selection{Shard: "1/1", CINodeIndex: "2", CINodeTotal: "3"}, want: []string{"a1", "a2", "b1", "b2", "c1"}},
		{name: "job index with shards beats GitLab's node", sel: scenario.Selection{JobIndex: "0", Shards: 2, CINodeIndex: "2", CINodeTotal: "3"}, want: []string{"a1", "b1", "c1"}},
		{name: "job index without shards leaves it to GitLab's node", sel: scenario.Selection{JobIndex: "0", CINodeIndex: "2", CINodeTotal: "2"}, want: []string{"a2", "b2"}},
		{
			name: "matrix: each scenario against each agent, scenario order",
			sel:  scenario.Selection{Run: "^a", Agents: []string{"beta", "alpha"}},
			want: []string{"a1@beta", "a1@alpha", "a2@beta", "a2@alpha"},
		},
		{name: "an agent given twice runs once", sel: scenario.Selection{Run: "^a", Agents: []string{"beta", "alpha", "beta", "alpha"}}, want: []string{"a1@beta", "a1@alpha", "a2@beta", "a2@alpha"}},
		{name: "matrix after the shard", sel: scenario.Selection{Shard: "2/2", Agents: []string{"alpha"}}, want: []string{"a2@alpha", "b2@alpha"}},

		{name: "bad regex", sel: scenario.Selection{Run: "("}, err: "--run: error parsing regexp: missing closing ): `(`"},
		{name: "bad regex beats a bad shard", sel: scenario.Selection{Run: "(", Shard: "x"}, err: "--run: error parsing regexp: missing closing ): `(`"},
		{name: "shard not I/N", sel: scenario.Selection{Shard: "2"}, err: `--shard "2": want I/N with 1 ≤ I ≤ N, e.g. 2/3`},
		{name: "shard 0", sel: scenario.Selection{Shard: "0/3"}, err: `--shard "0/3": want I/N with 1 ≤ I ≤ N, e.g. 2/3`},
		{name: "shard past N", sel: scenario.Selection{Shard: "4/3"}, err: `--shard "4/3": want I/N with 1 ≤ I ≤ N, e.g. 2/3`},
		{name: "shards without an index", sel: scenario.Selection{Shards: 3}, err: "--shards 3 needs JOB_COMPLETION_INDEX or --shard I/N"},
		{name: "negative shards", sel: scenario.Selection{JobIndex: "1", Shards: -1}, err: "--shards -1: want the number of shards, 1 or more"},
		{name: "job index past shards", sel: scenario.Selection{JobIndex: "3", Shards: 3}, err: `JOB_COMPLETION_INDEX="3": want 0 ≤ index < --shards 3`},
		{name: "job index not a number", sel: scenario.Selection{JobIndex: "x", Shards: 2}, err: `JOB_COMPLETION_INDEX="x": want 0 ≤ index < --shards 2`},
		{name: "node index 0", sel: scenario.Selection{CINodeIndex: "0", CINodeTotal: "3"}, err: `CI_NODE_INDEX="0": want 1 ≤ index ≤ CI_NODE_TOTAL=3 (it is 1-based); or choose the shard with --shard I/N`},
		{name: "node index past total", sel: scenario.Selection{CINodeIndex: "4", CINodeTotal: "3"}, err: `CI_NODE_INDEX="4": want 1 ≤ index ≤ CI_NODE_TOTAL=3`},
		{name: "node index not a number", sel: scenario.Selection{CINodeIndex: "two", CINodeTotal: "3"}, err: `CI_NODE_INDEX="two": want 1 ≤ index ≤ CI_NODE_TOTAL=3`},
		{name: "node total not a number", sel: scenario.Selection{CINodeIndex: "1", CINodeTotal: "x"}, err: `CI_NODE_TOTAL="x": want the number of parallel jobs, 1 or more`},
		{name: "node total 0", sel: scenario.Selection{CINodeIndex: "1", CINodeTotal: "0"}, err: `CI_NODE_TOTAL="0": want the number of parallel jobs, 1 or more`},
		{name: "node index without total", sel: scenario.Selection{CINodeIndex: "1"}, err: `CI_NODE_INDEX="1" is set but CI_NODE_TOTAL is not: set both`},
		{name: "node total without index", sel: scenario.Selection{CINodeTotal: "3"}, err: `CI_NODE_TOTAL=3 is set but CI_NODE_INDEX is not: set both`},
		{
			name: "--shards with GitLab's variables and no job index", sel: scenario.Selection{Shards: 3, CINodeIndex: "1", CINodeTotal: "3"},
			err: "--shards 3 needs JOB_COMPLETION_INDEX or --shard I/N (GitLab's CI_NODE_INDEX and CI_NODE_TOTAL shard without --shards)",
		},
		{name: "unknown agent", sel: scenario.Selection{Agents: []string{"alpha", "nosuch"}}, err: "--agent nosuch: unknown agent"},

		{
			name: "no files", scs: []*scenario.Scenario{}, sel: scenario.Selection{Paths: []string{"dir"}, Run: "(", Shard: "x"}, none: true,
			err: "no scenarios selected: dir holds no scenario files (--allow-empty accepts an empty run)",
		},
		{
			name: "no files, several paths", scs: []*scenario.Scenario{}, sel: scenario.Selection{Paths: []string{"a dir", "b"}}, none: true,
			err: "no scenarios selected: 'a dir' b hold no scenario files (--allow-empty accepts an empty run)",
		},
		{name: "run matched none", sel: scenario.Selection{Run: "^z"}, none: true, err: "no scenarios selected: --run ^z matched none of 5 scenarios"},
		// A parametrised name copied from acprun list: its [ ] make a
		// class of the regular expression, which matches none of it.
		{
			name: "run of a name as written", scs: []*scenario.Scenario{{Name: "port[lang=go]"}, {Name: "port[lang=rust]"}},
			sel: scenario.Selection{Run: "port[lang=go]"}, none: true,
			err: `no scenarios selected: --run 'port[lang=go]' matched none of 2 scenarios; --run takes a regular expression (RE2), in which [ ] . ( ) and the like are special: to select port[lang=go] write --run '^port\[lang=go\]$'`,
		},
		{
			name: "run of the start of a name as written", scs: []*scenario.Scenario{{Name: "port[lang=go]"}, {Name: "port[lang=rust]"}},
			sel: scenario.Selection{Run: "^port[lang"},
			err: "--run: error parsing regexp: missing closing ]: `[lang`; --run takes a regular expression (RE2), in which [ ] . ( ) and the like are special: to select port[lang=go] write --run '^port\\[lang'",
		},
		// The name of a scenario with vars, anchored: each of its names
		// goes on with its values, so the hint names a pattern that
		// selects them, not the one that matched none.
		{
			name: "run of the name before the values", scs: []*scenario.Scenario{
				{Name: "c[v=1]", Vars: []scenario.Var{{Name: "v", Value: "1"}}}, {Name: "c[v=2]", Vars: []scenario.Var{{Name: "v", Value: "2"}}}, {Name: "cat"},
			},
			sel: scenario.Selection{Run: "^c$"}, none: true,
			err: `no scenarios selected: --run '^c$' matched none of 3 scenarios; c has vars, and its names go on with their values (c[v=1], …): to select every one write --run '^c\['`,
		},
		// A literal that only a longer name holds: no pattern is offered
		// that would match none again.
		{
			name: "run of a part of a name, anchored", scs: []*scenario.Scenario{{Name: "ab.c"}},
			sel: scenario.Selection{Run: "^b.c$"}, none: true,
			err: "no scenarios selected: --run '^b.c$' matched none of 1 scenario (--allow-empty",
		},
		{
			name: "tags matched none of the run's", sel: scenario.Selection{Run: "a|b", Tags: []string{"x y", "z"}}, none: true,
			err: "no scenarios selected: --tag 'x y' --tag z matched none of the 4 scenarios selected by --run 'a|b'",
		},
		{name: "tag matched none", sel: scenario.Selection{Tags: []string{"z"}}, none: true, err: "no scenarios selected: --tag z matched none of 5 scenarios"},
		{
			name: "one scenario", scs: []*scenario.Scenario{{Name: "a"}}, sel: scenario.Selection{Tags: []string{"z"}}, none: true,
			err: "no scenarios selected: --tag z matched none of 1 scenario",
		},
		{
			name: "empty shard", sel: scenario.Selection{Tags: []string{"net"}, Shard: "3/3"}, none: true,
			err: "no scenarios selected: shard 3/3 is empty: the selection has 2 scenarios for 3 shards",
		},
		{
			name: "empty job shard", sel: scenario.Selection{Tags: []string{"slow"}, JobIndex: "1", Shards: 2}, none: true,
			err: "no scenarios selected: shard JOB_COMPLETION_INDEX=1 of --shards 2 is empty: the selection has 1 scenario for 2 shards",
		},
		{
			name: "empty GitLab shard", sel: scenario.Selection{Tags: []string{"slow"}, CINodeIndex: "2", CINodeTotal: "2"}, none: true,
			err: "no scenarios selected: shard CI_NODE_INDEX=2 of CI_NODE_TOTAL=2 is empty: the selection has 1 scenario for 2 shards",
		},
		{name: "an empty match is no error with AllowEmpty", sel: scenario.Selection{Tags: []string{"z"}, AllowEmpty: true}, want: nil},
		{name: "no files is no error with AllowEmpty", scs: []*scenario.Scenario{}, sel: scenario.Selection{AllowEmpty: true}, want: nil},
		{
			name: "AllowEmpty still checks the agents", sel: scenario.Selection{Tags: []string{"z"}, Agents: []string{"nosuch"}, AllowEmpty: true},
			err: "--agent nosuch: unknown agent",
		},
		{
			name: "an empty selection is reported before the agents", sel: scenario.Selection{Tags: []string{"z"}, Agents: []string{"nosuch"}}, none: true,
			err: "no scenarios selected: --tag z matched none of 5 scenarios",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scs := tt.scs
			if scs == nil {
				scs = five()
			}
			o := opts
			o.Config = cfg
			got, err := scenario.Select(scs, tt.sel, o)
			var none *scenario.NoneSelectedError
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tt.err != "" && err == nil:
				t.Fatalf("no error, want %q", tt.err)
			case tt.err != "" && !strings.HasPrefix(err.Error(), tt.err):
				t.Fatalf("error:\n%v\nwant it to start with\n%s", err, tt.err)
			case errors.As(err, &none) != tt.none:
				t.Fatalf("error %v: NoneSelectedError is %t, want %t", err, !tt.none, tt.none)
			}
			if err != nil {
				if got != nil {
					t.Errorf("scenarios %v with the error", got)
				}
				return
			}
			var names []string
			for _, sc := range got {
				n := sc.Name
				if sc.Agent.Name != "" {
					n += "@" + sc.Agent.Name
				}
				names = append(names, n)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("selected (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelectLeavesItsInputAlone: filtering makes new slices and the
// matrix new scenarios; the loaded ones are as they were.
func TestSelectLeavesItsInputAlone(t *testing.T) {
	cfg := loadConfig(t, "agents:\n  alpha: {command: [alpha-agent]}\n")
	scs := []*scenario.Scenario{{Name: "a", Tags: []string{"x"}}, {Name: "b"}, {Name: "c", Tags: []string{"x"}}}
	o := opts
	o.Config = cfg
	if _, err := scenario.Select(scs, scenario.Selection{Tags: []string{"x"}, Agents: []string{"alpha"}}, o); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sc := range scs {
		got = append(got, sc.Name+"@"+sc.Agent.Name)
	}
	if diff := cmp.Diff([]string{"a@", "b@", "c@"}, got); diff != "" {
		t.Errorf("input after Select (-want +got):\n%s", diff)
	}
}

// TestPick: a name picks its scenario, no name the only one; otherwise
// the error lists the names to choose from, the first ten of a file of
// more (a vars matrix may give a thousand).
func TestPick(t *testing.T) {
	a, b := &scenario.Scenario{Name: "a"}, &scenario.Scenario{Name: "b"}
	var many []*scenario.Scenario
	for i := range 12 {
		many = append(many, &scenario.Scenario{Name: fmt.Sprintf("s%d", i), File: "m x.yaml"})
	}
	tests := []struct {
		scs     []*scenario.Scenario
		name    string
		want    *scenario.Scenario
		wantErr string
	}{
		{[]*scenario.Scenario{a}, "", a, ""},
		{[]*scenario.Scenario{a, b}, "b", b, ""},
		{[]*scenario.Scenario{a}, "a", a, ""},
		{[]*scenario.Scenario{a, b}, "", nil, "the file holds 2 scenarios; choose one with --scenario (a, b)"},
		{[]*scenario.Scenario{a, b}, "c", nil, `no scenario "c" (the file has: a, b)`},
		{many, "", nil, "the file holds 12 scenarios; choose one with --scenario (s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 2 more: acprun list 'm x.yaml' lists them)"},
		{many, "s", nil, `no scenario "s" (the file has: s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 2 more: acprun list 'm x.yaml' lists them)`},
	}
	for _, tt := range tests {
		got, err := scenario.Pick(tt.scs, tt.name)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("Pick(%d scenarios, %q) = %v, %v; want %v, %q", len(tt.scs), tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestUnsharded checks that a selection run in a Kubernetes Indexed Job
// without --shards says that it does not shard, and one that shards (or
// has no index) says nothing.
func TestUnsharded(t *testing.T) {
	for _, tt := range []struct {
		sel  scenario.Selection
		want bool
	}{
		{scenario.Selection{JobIndex: "1"}, true},
		{scenario.Selection{JobIndex: "1", CINodeIndex: "1", CINodeTotal: "2"}, true},
		{scenario.Selection{JobIndex: "1", Shards: 3}, false},
		{scenario.Selection{JobIndex: "1", Shard: "2/3"}, false},
		{scenario.Selection{}, false},
		{scenario.Selection{CINodeIndex: "1", CINodeTotal: "2"}, false},
	} {
		got := tt.sel.Unsharded()
		if (got != "") != tt.want || tt.want && !strings.Contains(got, "JOB_COMPLETION_INDEX=1") {
			t.Errorf("%+v: Unsharded() = %q; want a warning naming JOB_COMPLETION_INDEX=1: %v", tt.sel, got, tt.want)
		}
	}
}

// TestNotAWord: a word of --tag or --agent is refused as a tag in a file
// is, for white space, a control or a format character, and said why.
func TestNotAWord(t *testing.T) {
	for s, want := range map[string]string{
		"nightly":   "",
		"fix-1.2_x": "",
		"":          "",
		" nightly":  "holds a space",
		"a\tb":      `holds the control character \x09`,
		"a\u00a0b":  `holds the space character \u00a0`,
		"a\u202eb":  `holds the bidi control character \u202e`,
		"a\u200db":  `holds the format character \u200d`,
	} {
		if got := scenario.NotAWord(s); got != want {
			t.Errorf("NotAWord(%q) = %q, want %q", s, got, want)
		}
	}
}
