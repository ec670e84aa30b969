package approve_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acprun/acprun/approve"
)

// TestExcerptHook: a reason or a trace shows the start of a long value of
// the call (cut at 200 bytes) as Request.Excerpt shows it, given the whole
// value, so that the runner can redact the cut knowing what goes on past
// it; without Excerpt the start is shown as it is.
func TestExcerptHook(t *testing.T) {
	long := "echo " + strings.Repeat("x", 190) + " SECRETVALUE123 done"
	shown := func(text string, end int) string { return fmt.Sprintf("<%d of %d>", end, len(text)) }
	deny := &approve.Policy{Deny: []approve.Rule{{Pos: "d:1", Command: []string{"echo *"}}}}
	def := &approve.Policy{Allow: []approve.Rule{{Pos: "a:1", Kind: []string{"execute"}, Command: []string{"ls *"}}}}
	for _, tt := range []struct {
		name string
		p    *approve.Policy
	}{{"deny rule", deny}, {"default", def}} {
		req := execReq(long)
		req.Excerpt = shown
		d, traces := tt.p.Explain(req)
		want := fmt.Sprintf(`"<200 of %d>…"`, len(long))
		if !strings.Contains(d.Reason, want) || strings.Contains(d.Reason, "SECR") {
			t.Errorf("%s: reason %q; want the command shown as %s", tt.name, d.Reason, want)
		}
		var why string
		for _, tr := range traces {
			why += strings.Join(tr.Why, "\n")
		}
		if !strings.Contains(why, want) || strings.Contains(why, "xxxx") {
			t.Errorf("%s: traces %q; want the command shown as %s", tt.name, why, want)
		}
		req.Excerpt = nil
		if d := tt.p.Decide(req); !strings.Contains(d.Reason, `"echo xxx`) || !strings.Contains(d.Reason, ` SECR…"`) {
			t.Errorf("%s: without Excerpt, reason %q; want the start of the command as it is", tt.name, d.Reason)
		}
	}
}

// TestNoteExcerpt: a path source's Note shows the start of a long path
// whose links were resolved (cut at 200 bytes) as the excerpt function
// given shows it, with the whole path, as the reasons do; nil shows the
// start as it is.
func TestNoteExcerpt(t *testing.T) {
	long := "/w/lnk/" + strings.Repeat("p", 190) + "/SECRETVALUE123/x"
	ps := approve.PathSource{Path: "/s/" + strings.Repeat("p", 190) + "/[REDACTED]/x", Via: long}
	shown := func(text string, end int) string { return fmt.Sprintf("<%d of %d>", end, len(text)) }
	if got, want := ps.Note(shown), fmt.Sprintf(`"<200 of %d>…" with its links resolved`, len(long)); got != want {
		t.Errorf("Note(excerpt) = %q, want %q", got, want)
	}
	if got := ps.Note(nil); !strings.HasPrefix(got, `"/w/lnk/ppp`) || !strings.Contains(got, `/SE…" with its links resolved`) {
		t.Errorf("Note(nil) = %q, want the start of the path as it is", got)
	}
}
