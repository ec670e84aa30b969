package mockagent_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/acp"
)

// allowAll serves fs and terminal like fakeFS and allows every permission.
func allowAll(f *fakeFS) serveFunc {
	return func(ctx context.Context, req *acp.Request) (any, error) {
		if req.Method == acp.MethodSessionRequestPermission {
			return acp.Selected("allow"), nil
		}
		return f.serve(ctx, req)
	}
}

// TestExamples plays the example scripts and checks that they do what
// their comments say.
func TestExamples(t *testing.T) {
	load := func(t *testing.T, name string) string {
		t.Helper()
		b, err := os.ReadFile("../examples/agents/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("basic", func(t *testing.T) {
		c, _ := runMock(t, load(t, "basic.mock.yaml"), nil)
		sid := c.start()
		res, err := c.prompt(sid, "What does main.go do?")
		if err != nil || res.StopReason != acp.StopEndTurn || res.Usage == nil {
			t.Fatalf("prompt = %+v, %v; want end_turn with usage", res, err)
		}
		ns := c.drain()
		got := describeAll(ns)
		want := []string{
			"thought:The user wants to know what main.go does. I should read it first.", "plan",
			"tool_call:toolu_01_read:pending", "tool_call_update:toolu_01_read:in_progress", "tool_call_update:toolu_01_read:completed", "plan",
		}
		if len(got) < len(want) || !cmp.Equal(got[:len(want)], want) {
			t.Errorf("updates = %q; want them to start with %q", got, want)
		}
		if text := strings.Join(textsOf(ns), ""); text != "main.go defines a single `main` function that prints **hello**." {
			t.Errorf("text = %q", text)
		}
	})
	t.Run("permissions", func(t *testing.T) {
		for _, answer := range []string{"allow", "reject"} {
			c, _ := runMock(t, load(t, "permissions.mock.yaml"), func(ctx context.Context, req *acp.Request) (any, error) {
				return acp.Selected(answer), nil
			})
			sid := c.start()
			if res, err := c.prompt(sid, "fix it"); err != nil || res.StopReason != acp.StopEndTurn {
				t.Fatalf("prompt = %+v, %v", res, err)
			}
			want := "I'll fix the greeting, clean the build and run the tests.edit: applied. rm: done. test+upload: done."
			if answer == "reject" {
				want = "I'll fix the greeting, clean the build and run the tests.edit: skipped. rm: skipped. test+upload: skipped."
			}
			if got := strings.Join(textsOf(c.drain()), ""); got != want {
				t.Errorf("%s: text = %q; want %q", answer, got, want)
			}
		}
	})
	t.Run("stops", func(t *testing.T) {
		c, _ := runMock(t, load(t, "stops.mock.yaml"), nil)
		sid := c.start()
		for _, want := range []acp.StopReason{acp.StopMaxTokens, acp.StopRefusal, acp.StopMaxTurnRequests} {
			if res, err := c.prompt(sid, "go on"); err != nil || res.StopReason != want {
				t.Errorf("prompt = %+v, %v; want %s", res, err, want)
			}
		}
		if _, err := c.prompt(sid, "go on"); codeOf(err) != acp.CodeInternalError {
			t.Errorf("fourth prompt = %v; want error -32603", err)
		}
		for prompt, want := range map[string]acp.StopReason{"please refuse": acp.StopRefusal, "end_turn now": acp.StopEndTurn, "hit max_tokens": acp.StopMaxTokens} {
			if res, err := c.prompt(sid, prompt); err != nil || res.StopReason != want {
				t.Errorf("prompt %q = %+v, %v; want %s", prompt, res, err, want)
			}
		}
	})
	t.Run("slow", func(t *testing.T) {
		c, _ := runMock(t, load(t, "slow.mock.yaml"), nil)
		sid := c.start()
		ctx := testCtx(t)
		call := c.conn.Call(ctx, acp.MethodSessionPrompt, promptReq(sid, "run the suite"))
		c.waitText("Running the full integration suite, this takes a while…")
		if got := describe(c.next().Update); got != "tool_call:toolu_slow_1:in_progress" {
			t.Fatalf("second update = %s; want the tool call", got)
		}
		if err := c.conn.Notify(ctx, acp.MethodSessionCancel, acp.CancelNotification{SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		var res acp.PromptResponse
		if err := call.Await(ctx, &res); err != nil || res.StopReason != acp.StopCancelled {
			t.Fatalf("prompt = %+v, %v; want cancelled", res, err)
		}
		if got := describeAll(c.drain()); !cmp.Equal(got, []string{"tool_call_update:toolu_slow_1:failed"}) {
			t.Errorf("updates = %q", got)
		}
	})
	t.Run("fs-terminal", func(t *testing.T) {
		c, _ := runMock(t, load(t, "fs-terminal.mock.yaml"), allowAll(&fakeFS{}))
		sid := c.start()
		if res, err := c.prompt(sid, "edit hello.txt"); err != nil || res.StopReason != acp.StopEndTurn {
			t.Fatalf("prompt = %+v, %v", res, err)
		}
		want := []string{
			"read: contents of /work/hello.txt", "write: ok", "terminal: term_1", "exit: 0",
			"output (truncated), exit 0: ok\n", "release: ok", "Done.",
		}
		if diff := cmp.Diff(textsOf(c.drain()), want); diff != "" {
			t.Errorf("texts (-got +want):\n%s", diff)
		}
	})
}
