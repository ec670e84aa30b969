package redact_test

import (
	"cmp"
	"strconv"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/redact"
)

// agentLine returns a typical agent line of about 1 KiB: a session/update
// with a message chunk whose text is text.
func agentLine(text string) []byte {
	line := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_01J9Z6Q4W3","update":` +
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
	return []byte(line)
}

var benchSecrets = []string{"sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "ghp_0123456789abcdefghijABCDEFGHIJ", "from-scenario-value"}

func BenchmarkJSON(b *testing.B) {
	filler := strings.Repeat("The build passed; moving on to the next step of the plan. ", 15)
	cases := []struct {
		name string
		line []byte
	}{
		{"no secret", agentLine(filler)},
		{"no secret, escapes", agentLine(strings.ReplaceAll(filler, "; ", `;\n\"`))},
		{"secret", agentLine(filler + " token ghp_0123456789abcdefghijABCDEFGHIJ")},
		{"secret escaped", agentLine(filler + ` token \u0067hp_0123456789abcdefghijABCDEFGHIJ`)},
	}
	r := redact.New(benchSecrets...)
	for _, c := range cases {
		if !json.Valid(c.line) || len(c.line) < 900 || len(c.line) > 1200 {
			b.Fatalf("%s: a %d-byte line, valid %v", c.name, len(c.line), json.Valid(c.line))
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.line)))
			b.ReportAllocs()
			for b.Loop() {
				r.JSON(c.line)
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	r := redact.New(benchSecrets...)
	text := strings.Repeat("error: connection reset by peer while reading response body; ", 16)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r.String(text)
	}
}

// BenchmarkCollidingKeys guards against quadratic naming of colliding
// keys: an agent controls the keys.
func BenchmarkCollidingKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"[REDACTED]":0`)
	for i := range 10000 {
		sb.WriteString(`,"[REDACTED]#` + strconv.Itoa(i+2) + `":0`)
	}
	for range 10000 {
		sb.WriteString(`,"ghp_0123456789abcdefghijABCDEFGHIJ":1`)
	}
	sb.WriteString("}")
	raw := []byte(sb.String())
	r := redact.New(benchSecrets...)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		r.JSON(raw)
	}
}

func BenchmarkValue(b *testing.B) {
	r := redact.New(benchSecrets...)
	b.ReportAllocs()
	for b.Loop() {
		v := result{
			Name:         "deploy",
			Tags:         []string{"ci", "slow"},
			Warnings:     []string{"turn 1: token ghp_0123456789abcdefghijABCDEFGHIJ"},
			SetupUpdates: map[string]int{"available_commands_update": 1},
			Turns: []turn{{
				Prompt: "fix the build", Text: strings.Repeat("done. ", 100),
				ToolCalls: []toolCall{{ID: "call_1", Title: "Run make", RawInput: json.RawMessage(`{"command":"make test"}`)}},
				Updates:   map[string]int{"agent_message_chunk": 30, "tool_call": 1},
			}},
		}
		r.Value(&v)
	}
}

// BenchmarkRepeatedSecretQuoted guards against quadratic work on a text
// that holds a secret many times and a pair of single quotes (read as a
// shell reads them too): an agent's tool output under its cwd.
func BenchmarkRepeatedSecretQuoted(b *testing.B) {
	r := redact.New("/tmp/home")
	text := "don't, won't\n" + strings.Repeat("/tmp/home/src/x.go\n", 40000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.String(text)
	}
}

// BenchmarkPieces guards against quadratic redaction of a streamed
// answer's pieces: each holds a secret (the model controls how many), so
// time should double, not quadruple, as the pieces double. Chained: every
// piece ends inside a secret the next one finishes, and the text ends
// with the beginning of one, so that every piece is held.
func BenchmarkPieces(b *testing.B) {
	r := redact.New(benchSecrets...)
	for _, c := range []struct{ name, first, piece string }{
		{"whole", "", "token ghp_0123456789abcdefghijABCDEFGHIJ, "},
		{"chained", "token ghp_0123456789abcdefghij", "ABCDEFGHIJ, token ghp_0123456789abcdefghij"},
	} {
		for _, n := range []int{1000, 2000, 4000, 8000} {
			pieces := make([]string, n)
			for i := range pieces {
				pieces[i] = c.piece
			}
			pieces[0] = cmp.Or(c.first, c.piece)
			b.Run(c.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.SetBytes(int64(len(strings.Join(pieces, ""))))
				for b.Loop() {
					r.Pieces(pieces)
				}
			})
		}
	}
}
