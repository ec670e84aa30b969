//go:build linux

package hook_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acprun/acprun/internal/hook"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/testkit"
	"golang.org/x/sys/unix"
)

// TestRunKillsEscapedGrandchild: a grandchild that left the process
// group (setsid) and holds the pipes is killed once the leader exits; it
// carried a mark inside the one of Env.
func TestRunKillsEscapedGrandchild(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	pidFifo, readLine, _ := testkit.FIFO(t)
	goOn, _, sayGo := testkit.FIFO(t)
	parent := reap.New()
	done := make(chan hook.Result, 1)
	go func() {
		// The grandchild tells the leader its pid once it is in its own
		// session; the leader passes it to the test and waits for its go.
		done <- run(t, t.Context(), hook.Command{
			Run: "(setsid sh -c 'echo $$ > " + ready + "; sleep 1000; :' &); read pid < " + ready +
				"; echo $pid > " + pidFifo + "; read x < " + goOn + "; echo hi",
			Env: parent.Set(os.Environ()),
		})
	}()
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
		t.Errorf("the grandchild's mark is %q, want one inside %q", mark, parent)
	}
	sayGo("go")
	res := <-done
	if res.Stdout != "hi\n" || res.Err != nil {
		t.Errorf("Run = %+v, want stdout %q", res, "hi\n")
	}
	if !exited() {
		t.Errorf("grandchild %d still runs %v after Run returned", escaped, testkit.Failsafe)
	}
}
