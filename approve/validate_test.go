package approve_test

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/approve"
	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		rule approve.Rule
		want []string
	}{
		{"valid", approve.Rule{Kind: []string{"execute"}, Tool: []string{"Bash"}, Command: []string{"go test *"}, Path: []string{"src/**"}, Title: []string{"*"}, Input: map[string]string{"a.b": "^x$"}}, nil},
		{"no matcher", approve.Rule{Pos: "f:1", Always: true}, []string{"rule has no matcher: give at least one of kind, tool, title, command, path, input"}},
		{"kinds", approve.Rule{Kind: []string{"exec", "", "switch_mode"}}, []string{
			`kind: unknown tool kind "exec" (want one of read, edit, delete, move, search, execute, think, fetch, switch_mode, other)`,
			"kind: empty value",
		}},
		{"empty patterns", approve.Rule{Tool: []string{""}, Title: []string{""}, Command: []string{" "}, Path: []string{""}}, []string{
			"tool: empty pattern", "title: empty pattern", "command: empty pattern", "path: empty pattern",
		}},
		{"malformed path", approve.Rule{Path: []string{"src/[a"}}, []string{`path: bad pattern "src/[a": malformed [...] class: close it with ] and put characters or ranges in it ([a-z]), or write [[] for a literal [`}},
		{"globs that never match", approve.Rule{Path: []string{"src/{a,b}/**"}, Tool: []string{"["}, Title: []string{"[Bb]ash"}}, []string{
			"tool: bad pattern \"[\": [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character",
			"title: bad pattern \"[Bb]ash\": [...] is not a glob here (only * and ? are): write one pattern for each, or ? for any one character",
			"path: bad pattern \"src/{a,b}/**\": {a,b} is not a glob here: write one pattern for each (or [{] for a literal {)",
		}},
		{"commands are shell lines as written", approve.Rule{Command: []string{"rm [", "[ -f * ]", "mkdir -p {a,b}"}}, nil},
		{"input", approve.Rule{Input: map[string]string{"": "x", "a..b": "y", "c": "("}}, []string{
			`input: bad field path ""`,
			`input: bad field path "a..b"`,
			"input c: bad regex: error parsing regexp: missing closing ): `(`",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.rule.Validate()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckExamples(t *testing.T) {
	goTest := approve.Rule{Kind: []string{"execute"}, Command: []string{"go test *"}}
	rm := approve.Rule{Command: []string{"rm -rf *"}}
	long := strings.Repeat("a", 190)
	tests := []struct {
		name           string
		rule           approve.Rule
		list           approve.Verdict
		match, noMatch []string
		want           []string
	}{
		{"allow passes", goTest, approve.Allow, []string{"go test ./...", "go test -v ./a && go test ./b"}, []string{"go test ./... && rm -rf /", "go vet", "go test $(curl x)"}, nil},
		{"allow unwraps", goTest, approve.Allow, []string{"FOO=1 go test ./...", "bash -lc 'go test ./...'", "env A=b go test ./x"},
			[]string{"bash -lc 'go test ./... && rm -rf /'", "sudo go test ./..."}, nil},
		{"allow names the unit", goTest, approve.Allow, []string{"bash -c 'go test ./... && go vet'"}, nil, []string{
			`example "bash -c 'go test ./... && go vet'" should match but does not ("go vet" matches none of ["go test *"])`,
		}},
		{"deny sees assignments", approve.Rule{Command: []string{"LD_PRELOAD=*"}}, approve.Deny,
			[]string{"A=1 LD_PRELOAD=x make", "env LD_PRELOAD=x make"}, []string{"echo LD_PRELOAD=x"}, nil},
		{"allow should match", goTest, approve.Allow, []string{"go test ./... | tee log"}, nil, []string{
			`example "go test ./... | tee log" should match but does not ("tee log" matches none of ["go test *"])`,
		}},
		{"allow should not match", approve.Rule{Command: []string{"go *"}}, approve.Allow, nil, []string{"go test ./... && go vet"}, []string{
			`example "go test ./... && go vet" should not match but does`,
		}},
		{"deny passes", rm, approve.Deny, []string{"ls && rm -rf /", "sudo rm -rf ~"}, []string{"ls", `echo "rm -rf /"`}, nil},
		{"deny should not match", rm, approve.Deny, nil, []string{"cd x; rm -rf build"}, []string{
			`example "cd x; rm -rf build" should not match but does ("rm -rf build" matches "rm -rf *")`,
		}},
		{"deny should match", rm, approve.Deny, []string{"rm -r /", ""}, nil, []string{
			`example "rm -r /" should match but does not`,
			`example "" should match but does not (it has no command)`,
		}},
		{"no command matcher", approve.Rule{Kind: []string{"read"}}, approve.Allow, []string{"ls"}, nil, []string{
			"examples need a command matcher: they are command lines checked against command",
		}},
		{"no examples", approve.Rule{Kind: []string{"read"}}, approve.Allow, nil, nil, nil},
		{"unresolvable: allow does not match, deny does", approve.Rule{Command: []string{"echo *"}}, approve.Allow,
			[]string{"echo ${!x}"}, nil, []string{
				`example "echo ${!x}" should match but does not ("echo ${!x}" is unresolvable: bash may run a variable's value as code: ${!x} is an indirection)`,
			}},
		// A long command is quoted whole, never cut: a cut would leave the
		// start of a secret it went through, which the redaction of the
		// printed message no longer recognizes.
		{"long command quoted whole", goTest, approve.Allow, []string{"go test ./... && deploy " + long + " --token sk_live_WHOLE0123456789"}, nil, []string{
			`example "go test ./... && deploy ` + long + ` --token sk_live_WHOLE0123456789" should match but does not ("deploy ` + long +
				` --token sk_live_WHOLE0123456789" matches none of ["go test *"])`,
		}},
		{"unresolvable: deny matches", rm, approve.Deny, []string{"echo ${x@P}", "BASH_ENV=x echo hi"}, []string{"echo '${!x}'"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := approve.CheckExamples(tt.rule, tt.list, tt.match, tt.noMatch)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckExamples() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
