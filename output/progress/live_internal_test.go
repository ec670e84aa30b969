package progress

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acprun/acprun/internal/cellwidth"
	"github.com/acprun/acprun/internal/vt"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/runner"
)

// liveFixture is a run of 10 scenarios, 2 done (1 failed), with running
// ones started 1s, 2s… before now, the first in its second turn.
func liveFixture(now time.Time, running int) *liveState {
	st := &liveState{total: 10, done: 2, counts: report.Summary{Failed: 1}, started: now.Add(-65 * time.Second)}
	for i := range running {
		ref := runner.Ref{Name: fmt.Sprintf("scenario-%d", i), Turns: 3}
		if i == 1 {
			ref = runner.Ref{Name: "a-much-longer-scenario-name", Agent: "claude", Attempt: 2, Turns: 1}
		}
		j := &runningJob{ref: ref, since: now.Add(-time.Duration(i+1) * time.Second)}
		if i == 0 {
			j.turn = 2
		}
		st.running = append(st.running, j)
	}
	return st
}

// TestLiveLines checks the layout of the live area: a line per running
// scenario shown, the others counted, the bar; names cut first on a narrow
// terminal, fewer shown on a short one.
func TestLiveLines(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name       string
		running    int
		cols, rows int
		want       []string
	}{
		{name: "none", running: 0, cols: 80, rows: 24, want: []string{
			"[=====>                        ] 2/10  0 running  1 failed  1m05s",
		}},
		{name: "two", running: 2, cols: 80, rows: 24, want: []string{
			"  scenario-0  turn 2/3  1s",
			"  a-much-longer-scenario-name@claude #2  starting  2s",
			"[=====>                        ] 2/10  2 running  1 failed  1m05s",
		}},
		{name: "more than fit", running: 11, cols: 80, rows: 24, want: []string{
			"  scenario-0  turn 2/3  1s",
			"  a-much-longer-scenario-name@claude #2  starting  2s",
			"  scenario-2  starting  3s",
			"  scenario-3  starting  4s",
			"  scenario-4  starting  5s",
			"  scenario-5  starting  6s",
			"  scenario-6  starting  7s",
			"  scenario-7  starting  8s",
			"  … +3 more",
			"[=====>                        ] 2/10  11 running  1 failed  1m05s",
		}},
		{name: "short terminal", running: 5, cols: 80, rows: 6, want: []string{
			"  scenario-0  turn 2/3  1s",
			"  a-much-longer-scenario-name@claude #2  starting  2s",
			"  … +3 more",
			"[=====>                        ] 2/10  5 running  1 failed  1m05s",
		}},
		{name: "tiny terminal", running: 2, cols: 80, rows: 3, want: []string{
			"  … +2 more",
			"[=====>                        ] 2/10  2 running  1 failed  1m05s",
		}},
		{name: "narrow", running: 2, cols: 40, rows: 24, want: []string{
			"  scenario-0  turn 2/3  1s",
			"  a-much-longer-scenario…  starting  2s",
			"2/10  2 running  1 failed  1m05s",
		}},
		{name: "very narrow", running: 2, cols: 20, rows: 24, want: []string{
			"  scenario-0  turn…",
			"  a-much-longer-sc…",
			"2/10  2 running  1…",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := liveLines(liveFixture(now, tt.running), now, tt.cols, tt.rows)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("live area at %dx%d (-want +got):\n%s", tt.cols, tt.rows, diff)
			}
		})
	}
}

// TestLiveLinesFit checks that at every width no line of the live area
// takes the last column (where a terminal would wrap it), wide characters
// included.
func TestLiveLinesFit(t *testing.T) {
	now := time.Now()
	st := liveFixture(now, 12)
	st.running[2].ref.Name = "日本語のシナリオ名前-\u0301テスト🎉"
	for cols := 1; cols <= 120; cols++ {
		for _, line := range liveLines(st, now, cols, 24) {
			if w := cellwidth.String(line); w > max(cols-1, 1) {
				t.Fatalf("at %d columns the line %q takes %d cells", cols, line, w)
			}
		}
	}
}

// TestElapsed checks the elapsed times shown.
func TestElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 999 * time.Millisecond: "0s", 59 * time.Second: "59s",
		65 * time.Second: "1m05s", 3725 * time.Second: "1h02m",
	} {
		if got := elapsed(d); got != want {
			t.Errorf("elapsed(%s) = %q; want %q", d, got, want)
		}
	}
}

// TestLiveAreaNarrowed draws the live area on a terminal of 100 columns,
// its running line a name of emoji, then, the window made 33 columns wide
// (the terminal reflows the line, each emoji that does not fit at the end
// of a row whole on the next), draws it again over the first: no row of
// the first is left on the screen.
func TestLiveAreaNarrowed(t *testing.T) {
	scr := vt.NewWide(100, 40, func(r rune) bool { return cellwidth.Rune(r) == 2 })
	cols := 100
	now := time.Now()
	l := &liveArea{
		w:    onlcr{scr, nil},
		size: func() (int, int) { return cols, 40 },
		state: liveState{total: 1, started: now, pending: logLines(), running: []*runningJob{
			{ref: runner.Ref{Name: strings.Repeat("✅", 50), Agent: "mock", Turns: 1}, turn: 1, since: now.Add(-3 * time.Second)},
		}},
	}
	l.state.pending.Add("PASS before\n", false)
	l.draw(false)
	cols = 33
	scr.Resize(cols, 40)
	l.draw(false)
	got := scr.Lines()
	if len(got) != 3 || got[0] != "PASS before" || !strings.HasPrefix(got[1], "  ✅") || !strings.Contains(got[2], "0/1  1 running") {
		t.Errorf("the screen after the redraw is not the line above and the area:\n%s", strings.Join(got, "\n"))
	}
}

// onlcr writes to a screen as a terminal's line discipline does: "\n" as
// "\r\n"; and what it writes to also, when not nil.
type onlcr struct {
	scr  *vt.Screen
	also *bytes.Buffer
}

func (o onlcr) Write(p []byte) (int, error) {
	if o.also != nil {
		o.also.Write(p)
	}
	_, err := o.scr.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n")))
	return len(p), err
}
