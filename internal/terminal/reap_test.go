//go:build linux

package terminal_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/terminal"
	"github.com/acprun/acprun/internal/testkit"
	"golang.org/x/sys/unix"
)

// TestTerminalEscapedChildIsKilled: a child that left the process group
// (setsid) is killed once the leader exits; it carried a mark inside the
// one of the terminal's Env, so a scenario's Kill would find it too.
func TestTerminalEscapedChildIsKilled(t *testing.T) {
	ready, readLine, _ := testkit.FIFO(t)
	goOn, _, sayGo := testkit.FIFO(t)
	parent := reap.New()
	m := terminal.NewManager(1 << 30)
	t.Cleanup(func() { m.Close() })
	_, term, err := m.Create(terminal.Config{
		Command: "setsid sh -c 'echo $$ > " + ready + "; sleep 1000; :' & read x < " + goOn + "; echo bye",
		Env:     parent.Set(os.Environ()),
	})
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := strconv.Atoi(readLine())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Kill(escaped, unix.SIGKILL) })
	exited := testkit.Watch(t, escaped)
	env, err := testkit.Environ(escaped)
	if err != nil {
		t.Fatal(err)
	}
	if mark := reap.Of(env); !strings.HasPrefix(string(mark), string(parent)+".") {
		t.Errorf("the child's mark is %q, want one inside %q", mark, parent)
	}
	sayGo("go")
	wait(t, term)
	if !exited() {
		t.Errorf("process %d still runs %v after its terminal exited", escaped, testkit.Failsafe)
	}
}
