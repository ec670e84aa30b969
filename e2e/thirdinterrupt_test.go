package e2e_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestThirdInterruptAfterDots: three interrupts at once (Ctrl-C pressed
// thrice in quick succession) while a line of dots is open on stderr (a
// log: --format dots, stdout a file, as for --print) exit at once with 130,
// saying so on a line of its own. The line was glued to the dots
// ("racprun: interrupted a third time") when the notes of the first two
// still waited to be written; they are left out now, as on a terminal.
// Three runs, for the notes' writer to be caught at more than one point.
func TestThirdInterruptAfterDots(t *testing.T) {
	underRace(t)
	t.Parallel()
	for i := range 3 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{
				"m.mock.yaml": "turns: [{steps: [{text: working}, {waitForCancel: true}]}]\n",
				// The first try's setup fails, and the try runs again: "r".
				"s.yaml": `name: held
agent: {command: [acprun, mock-agent, m.mock.yaml]}
permissions: {default: deny}
retries: 1
setup: ['test -e tried || { touch tried; exit 1; }']
turns: [{prompt: hi}]
`,
			})
			stdout, err := os.Create(filepath.Join(dir, "reply.txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer stdout.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, acprunFor(t), "run", "s.yaml", "--print", "--format", "dots", "-o", "out.json")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
			cmd.Stdout = stdout
			pipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stderr := bufio.NewReader(pipe)
			var seen strings.Builder
			for !strings.Contains(seen.String(), "r") {
				b, err := stderr.ReadByte()
				if err != nil {
					cmd.Wait()
					t.Fatalf("stderr ended before the dot of the retried try: %q", seen.String())
				}
				seen.WriteByte(b)
			}
			for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			rest, _ := io.ReadAll(stderr)
			seen.Write(rest)
			err = cmd.Wait()
			if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != exitInterrupted {
				t.Errorf("acprun: %v; want exit %d\n%s", err, exitInterrupted, seen.String())
			}
			const last = "acprun: interrupted a third time: exiting at once; the outputs not written yet are lost\n"
			if got := seen.String(); !strings.HasSuffix(got, "\n"+last) || !strings.HasPrefix(got, "r") {
				t.Errorf("stderr %q; want the dot, then %q on a line of its own", got, last)
			}
		})
	}
}
