package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	json "github.com/go-json-experiment/json/v1"
)

// config says what to measure with.
type config struct {
	acprun, agent, limit string
	quick                bool
	reps                 int
	only                 *regexp.Regexp // the measurements to make; nil: all
}

// row is one line of the table.
type row struct {
	name     string
	acprun   string // acprun's figure
	limit    string // the limit client's, or "" when there is none
	value    string // what is compared with the target
	target   string
	pass     bool
	measured bool // false: the measurement could not be made
}

// printTable prints the rows aligned.
func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measurement\tacprun\tlimit client\tvalue\ttarget\tresult")
	for _, r := range rows {
		res := "MISS"
		switch {
		case !r.measured:
			res = "ERROR"
		case r.pass:
			res = "PASS"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.acprun, cmp.Or(r.limit, "-"), r.value, r.target, res)
	}
	tw.Flush()
}

// got is r measured: its figures, and whether they met its target.
func (r row) got(acprun, limit, value string, pass bool) row {
	r.acprun, r.limit, r.value, r.pass, r.measured = acprun, limit, value, pass, true
	return r
}

// measure is one process run.
type measure struct {
	wall   time.Duration
	cpu    time.Duration // user+system, the process's and its waited children's
	maxRSS int64         // bytes, the largest of the process and its children
	stdout []byte
}

// execute runs argv in dir and measures it. okCodes are the exit codes that
// are not failures (0 always is).
func execute(dir string, argv []string, okCodes ...int) (measure, error) {
	var m measure
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	m.wall = time.Since(start)
	m.stdout = stdout.Bytes()
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			m.maxRSS = int64(ru.Maxrss) * 1024 // int32 on 32-bit Linux
		}
		if slices.Contains(okCodes, ps.ExitCode()) {
			err = nil
		}
	}
	if err != nil {
		return m, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(stderr.String()))
	}
	return m, nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// results is the part of acprun's results the harness checks.
type results struct {
	Scenarios []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Turns  []struct {
			StopReason string         `json:"stopReason"`
			Text       string         `json:"text"`
			Updates    map[string]int `json:"updates"`
		} `json:"turns"`
	} `json:"scenarios"`
}

// readJSON reads the JSON file path as a T.
func readJSON[T any](path string) (T, error) {
	var v T
	data, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	return v, json.Unmarshal(data, &v)
}

// limitCounts is what the limit client writes.
type limitCounts struct {
	Chunks, TextBytes, Permissions int
	StopReason                     string
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile is the nearest-rank p-th percentile of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func secs(d time.Duration) string {
	if d < time.Second {
		return ms(d)
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// bench is one run of the harness.
type bench struct {
	cfg config
	dir string
	log io.Writer
}

// run makes every measurement; a measurement that fails is reported in its
// row and in the error, and the others go on.
func run(cfg config, log io.Writer) ([]row, error) {
	for _, p := range []*string{&cfg.acprun, &cfg.agent, &cfg.limit} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, err
		}
		*p = abs
	}
	dir, err := os.MkdirTemp("", "acprun-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b := &bench{cfg: cfg, dir: dir, log: log}
	b.cfg.reps = b.size(max(1, cfg.reps), 1)
	var rows []row
	var errs []error
	for _, m := range []struct {
		name string
		run  func() ([]row, error)
	}{
		{"flood100k", func() ([]row, error) { return b.flood(b.size(100_000, 2_000)) }},
		{"flood1M", func() ([]row, error) {
			if cfg.quick {
				return nil, nil
			}
			return b.flood(1_000_000)
		}},
		{"permissions", b.permissions},
		{"startup", b.startup},
		{"batch", b.batch},
		{"deadline", b.deadline},
		{"grace", b.grace},
		{"suite", b.suite},
	} {
		if cfg.only == nil || cfg.only.MatchString(m.name) {
			r, err := m.run()
			rows = append(rows, r...)
			errs = append(errs, err)
		}
	}
	return rows, errors.Join(errs...)
}

// size is full, or small in a quick run.
func (b *bench) size(full, small int) int {
	if b.cfg.quick {
		return small
	}
	return full
}

// write writes a file into the bench's directory and returns its path.
func (b *bench) write(name, content string) string {
	path := filepath.Join(b.dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}
	return path
}

// quote is s as a YAML (JSON) string.
func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// agentYAML is the agent: mapping that runs the flood agent with args.
func (b *bench) agentYAML(args ...string) string {
	parts := []string{quote(b.cfg.agent)}
	for _, a := range args {
		parts = append(parts, quote(a))
	}
	return "agent:\n  command: [" + strings.Join(parts, ", ") + "]\n"
}

// shortReps is how many times turn runs a short, noisy measurement
// (a few to a hundred milliseconds, much of it the scheduling of two
// processes that wake each other): more than the default, so that the
// medians hold still between runs.
func (b *bench) shortReps() int { return b.size(max(b.cfg.reps, 4)*5, 2) }

// turn runs acprun and the limit client alternately, reps times each, on
// one turn of the flood agent that asks perms permission requests and
// sends chunks chunks of chunkBytes, and checks that each recorded them.
// The scenario, with keys added, is name.yaml in the bench's directory
// (sc), and acprun's results out.
func (b *bench) turn(name, keys string, reps, chunks, perms int) (sc, out string, a, l []measure, err error) {
	agent := []string{"-chunks", strconv.Itoa(chunks), "-size", strconv.Itoa(chunkBytes), "-perms", strconv.Itoa(perms)}
	sc = b.write(name+".yaml", "name: "+name+"\n"+b.agentYAML(agent...)+"turnTimeout: 10m\n"+keys+"turns:\n  - prompt: go\n")
	out = filepath.Join(b.dir, name+".json")
	lout := filepath.Join(b.dir, name+"-limit.json")
	err = alternate(reps,
		b.timed([]string{b.cfg.acprun, "run", sc, "-q", "-o", out}, &a, checkTurn(out, chunks, chunks*chunkBytes, "end_turn")),
		b.timed(append([]string{b.cfg.limit, "-out", lout, b.cfg.agent}, agent...), &l, checkLimit(lout, chunks, perms)))
	return sc, out, a, l, err
}

// timed is a run of argv in the bench's directory that adds its measure to
// *ms and then checks it with check (nil: no check).
func (b *bench) timed(argv []string, ms *[]measure, check func() error) func() error {
	return func() error {
		m, err := execute(b.dir, argv)
		if err == nil && check != nil {
			err = check()
		}
		*ms = append(*ms, m)
		return err
	}
}

// alternate makes reps rounds of runs, each round starting one run later
// than the one before, and stops at the first error.
func alternate(reps int, runs ...func() error) error {
	for i := range reps {
		for j := range runs {
			if err := runs[(i+j)%len(runs)](); err != nil {
				return err
			}
		}
	}
	return nil
}

func walls(ms []measure) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = m.wall
	}
	return out
}

func peak(ms []measure) int64 {
	var p int64
	for _, m := range ms {
		p = max(p, m.maxRSS)
	}
	return p
}

// ratioTarget is the target of a row whose ratio must be at most limit.
func ratioTarget(limit float64) string { return fmt.Sprintf("≤ %.2f×", limit) }

// ratioRow compares the median wall times.
func ratioRow(name string, a, l []measure, limit float64) row {
	ma, ml := median(walls(a)), median(walls(l))
	ratio := float64(ma) / float64(ml)
	return row{name: name, target: ratioTarget(limit)}.got(secs(ma), secs(ml), fmt.Sprintf("%.2f×", ratio), ratio <= limit)
}

// checkTurn checks that acprun recorded chunks chunks and textBytes bytes
// of text in its only turn, which stopped with stop. The results are read
// by a child process: once the harness's own memory grew, every process it
// starts would report at least that as its peak (Linux counts the memory
// the parent shared with the child before exec).
func checkTurn(path string, chunks, textBytes int, stop string) func() error {
	return func() error {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		_, err = execute(filepath.Dir(path), []string{self, "-check", path, "-chunks", strconv.Itoa(chunks), "-text", strconv.Itoa(textBytes), "-stop", stop})
		return err
	}
}

// check is the child process of checkTurn.
func check(path string, chunks, textBytes int, stop string) error {
	r, err := readJSON[results](path)
	if err != nil {
		return err
	}
	if len(r.Scenarios) != 1 || len(r.Scenarios[0].Turns) != 1 {
		return fmt.Errorf("%s: want one scenario of one turn", path)
	}
	t := r.Scenarios[0].Turns[0]
	if got := t.Updates["agent_message_chunk"]; got != chunks || len(t.Text) != textBytes || t.StopReason != stop {
		return fmt.Errorf("acprun recorded %d chunks, %d bytes of text, stop %q; want %d, %d, %q", got, len(t.Text), t.StopReason, chunks, textBytes, stop)
	}
	return nil
}

func checkLimit(path string, chunks, perms int) func() error {
	return func() error {
		c, err := readJSON[limitCounts](path)
		if err != nil {
			return err
		}
		if c.Chunks != chunks || c.Permissions != perms || c.StopReason != "end_turn" {
			return fmt.Errorf("the limit client counted %+v; want %d chunks, %d permissions, end_turn", c, chunks, perms)
		}
		return nil
	}
}

const chunkBytes = 64

// flood measures n chunks of 64 bytes in one turn.
func (b *bench) flood(n int) ([]row, error) {
	label := fmt.Sprintf("update flood %s×64 B", count(n))
	fmt.Fprintf(b.log, "%s…\n", label)
	wall := label + " wall (all recorded)"
	rss := row{name: label + " peak RSS", target: "≤ 128 MiB"}
	noText := row{name: label + " peak RSS --no-text", target: "≤ 40 MiB"}
	sc, out, a, l, err := b.turn("flood", "", b.cfg.reps, n, 0)
	if err != nil {
		return []row{{name: wall, target: ratioTarget(2)}, rss, noText}, err
	}
	p := peak(a)
	rows := []row{ratioRow(wall, a, l, 2), rss.got(mib(p), mib(peak(l)), mib(p), p <= 128<<20)}
	// The same flood with the text not kept: the peak must not grow with n.
	var nt []measure
	if err := b.timed([]string{b.cfg.acprun, "run", sc, "-q", "-o", out, "--no-text"}, &nt, checkTurn(out, n, 0, "end_turn"))(); err != nil {
		return append(rows, noText), err
	}
	ntRSS := nt[0].maxRSS
	return append(rows, noText.got(mib(ntRSS), "", mib(ntRSS), ntRSS <= 40<<20)), nil
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// permissions measures n permission round trips in one turn (2000; 50 in
// a quick run).
func (b *bench) permissions() ([]row, error) {
	n := b.size(2000, 50)
	label := fmt.Sprintf("%d permission round trips", n)
	fmt.Fprintf(b.log, "%s…\n", label)
	run := func(perms int) (a, l []measure, err error) {
		_, _, a, l, err = b.turn(fmt.Sprintf("perms%d", perms), "permissions: {default: allow}\n", b.shortReps(), 1, perms)
		return a, l, err
	}
	a, l, err := run(n)
	if err != nil {
		return []row{{name: label, target: ratioTarget(1.5)}}, err
	}
	// What an agent feels: the time acprun adds to each request, beyond
	// what the limit client takes, without the costs of a run that asks
	// nothing (start, handshake, the settle before the prompt, the end).
	a0, l0, err := run(0)
	if err != nil {
		return []row{{name: label, target: ratioTarget(1.5)}}, err
	}
	r := ratioRow(label, a, l, 1.5)
	extra := ((median(walls(a)) - median(walls(a0))) - (median(walls(l)) - median(walls(l0)))) / time.Duration(n)
	r.acprun += fmt.Sprintf(" (%+.0f µs a request)", float64(extra)/float64(time.Microsecond))
	return []row{r}, nil
}

// startup measures `acprun --version` and `acprun run --dry-run` on a
// one-scenario file: a plain kong CLI starting up.
func (b *bench) startup() ([]row, error) {
	n := b.size(50, 5)
	sc := b.write("dry.yaml", "name: dry\n"+b.agentYAML()+"turns:\n  - prompt: go\n")
	var rows []row
	for _, m := range []struct {
		label, what string
		args        []string
	}{
		{"acprun --version (median)", "--version", []string{"--version"}},
		{"acprun run --dry-run (median)", "run --dry-run", []string{"run", sc, "--dry-run"}},
	} {
		fmt.Fprintf(b.log, "%s…\n", m.label)
		want := row{name: m.label, target: "≤ 20 ms"}
		var got []measure
		if err := alternate(n, b.timed(append([]string{b.cfg.acprun}, m.args...), &got, nil)); err != nil {
			return append(rows, want), fmt.Errorf("%s: %w", m.what, err)
		}
		med := median(walls(got))
		rows = append(rows, want.got(ms(med), "", ms(med), med <= 20*time.Millisecond))
	}
	return rows, nil
}

// batch measures n mock-agent scenarios (1000; 20 in a quick run) with
// -j 32. acprun's CPU beyond the agents' own is its rusage (its own and
// its waited children's) less what the same n mock agents cost under the
// limit client (its RUSAGE_CHILDREN).
func (b *bench) batch() ([]row, error) {
	n := b.size(1000, 20)
	label := fmt.Sprintf("%d mock scenarios -j 32", n)
	fmt.Fprintf(b.log, "%s…\n", label)
	script := b.write("one.mock.yaml", "turns:\n  - steps: [{text: hello}]\n")
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "---\nname: s%04d\nagent:\n  command: [%s, mock-agent, %s]\nturns:\n  - prompt: go\n    expect: {text: {contains: hello}}\n", i, quote(b.cfg.acprun), quote(script))
	}
	sc := b.write("batch.yaml", sb.String())
	out := filepath.Join(b.dir, "batch.json")
	want := []row{{name: label + " CPU/scenario beyond the agent's", target: "≤ 5 ms"}, {name: label + " peak RSS", target: "≤ 150 MiB"}}
	var cpus, agentCPUs []time.Duration
	var rss int64
	for range b.size(3, 1) {
		m, err := execute(b.dir, []string{b.cfg.acprun, "run", sc, "-q", "-j", "32", "-o", out})
		if err != nil {
			return want, err
		}
		p, _, err := passed(out)
		if err == nil && p != n {
			err = fmt.Errorf("%d of %d mock scenarios passed", p, n)
		}
		if err != nil {
			return want, err
		}
		lm, err := execute(b.dir, []string{b.cfg.limit, "-sessions", strconv.Itoa(n), "-j", "32", b.cfg.acprun, "mock-agent", script})
		if err != nil {
			return want, err
		}
		var u struct{ SelfCPUNs, ChildrenCPUNs int64 }
		if err := json.Unmarshal(lm.stdout, &u); err != nil {
			return want, fmt.Errorf("limit client's usage %q: %w", lm.stdout, err)
		}
		cpus = append(cpus, m.cpu)
		agentCPUs = append(agentCPUs, time.Duration(u.ChildrenCPUNs))
		rss = max(rss, m.maxRSS)
	}
	total, agents := median(cpus), median(agentCPUs)
	per := (total - agents) / time.Duration(n)
	return []row{
		want[0].got(ms(total/time.Duration(n))+" total", ms(agents/time.Duration(n))+" agent", ms(per), per <= 5*time.Millisecond),
		want[1].got(mib(rss), "", mib(rss), rss <= 150<<20),
	}, nil
}

// readStamps reads the flood agent's "prompt cancel" lines, which must be
// n.
func readStamps(path string, n int) (prompts, cancels []time.Time, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p, c int64
		if _, err := fmt.Sscan(sc.Text(), &p, &c); err != nil {
			return nil, nil, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		prompts, cancels = append(prompts, time.Unix(0, p)), append(cancels, time.Unix(0, c))
	}
	if err := sc.Err(); err != nil || len(prompts) == n {
		return prompts, cancels, err
	}
	return nil, nil, fmt.Errorf("%d cancels stamped; want %d", len(prompts), n)
}

// deadline measures, over many scenarios whose turn times out, the time
// from the turn's deadline (the prompt's arrival at the agent plus the
// turn timeout) to session/cancel's arrival.
func (b *bench) deadline() ([]row, error) {
	label := "deadline → session/cancel p99"
	fmt.Fprintf(b.log, "%s…\n", label)
	n := b.size(200, 5)
	const timeout = 30 * time.Millisecond
	stamps := filepath.Join(b.dir, "stamps.txt")
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "---\nname: d%04d\n%sturnTimeout: %s\nturns:\n  - prompt: go\n    expect: {stopReason: cancelled}\n", i, b.agentYAML("-stamps", stamps), timeout)
	}
	sc := b.write("deadline.yaml", sb.String())
	out := filepath.Join(b.dir, "deadline.json")
	want := []row{{name: label, target: "≤ 10 ms"}}
	// -j 2, one scenario per core: the agents starting beside a turn are
	// part of the measurement, a queue of them is not.
	if _, err := execute(b.dir, []string{b.cfg.acprun, "run", sc, "-q", "-j", "2", "-o", out}); err != nil {
		return want, err
	}
	prompts, cancels, err := readStamps(stamps, n)
	if err != nil {
		return want, err
	}
	lat := make([]time.Duration, n)
	for i := range prompts {
		lat[i] = cancels[i].Sub(prompts[i]) - timeout
	}
	p99 := percentile(lat, 99)
	return []row{want[0].got("median "+ms(median(lat)), "", ms(p99), p99 <= 10*time.Millisecond)}, nil
}

// grace measures, for agents that ignore the cancel and SIGTERM and keep
// a grandchild, the time from the end of the cancel grace (the cancel's
// arrival plus cancelGrace) to the whole process group gone: the moment
// the last holder of the agent's FIFO closed it.
func (b *bench) grace() ([]row, error) {
	label := "grace expiry → process group gone (max)"
	fmt.Fprintf(b.log, "%s…\n", label)
	n := b.size(20, 2)
	const timeout, cancelGrace = 30 * time.Millisecond, 100 * time.Millisecond
	stamps := filepath.Join(b.dir, "grace-stamps.txt")
	want := []row{{name: label, target: "≤ 100 ms"}}
	var sb strings.Builder
	gone := make([]chan time.Time, n)
	for i := range n {
		fifo := filepath.Join(b.dir, fmt.Sprintf("group%d.fifo", i))
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			return want, err
		}
		gone[i] = make(chan time.Time, 1)
		go func() {
			f, err := os.Open(fifo) // blocks until the agent opens it
			if err != nil {
				gone[i] <- time.Time{}
				return
			}
			defer f.Close()
			_, _ = io.Copy(io.Discard, f) // EOF: every holder is gone
			gone[i] <- time.Now()
		}()
		fmt.Fprintf(&sb, "---\nname: g%04d\n%sturnTimeout: %s\ncancelGrace: %s\nturns:\n  - prompt: go\n", i, b.agentYAML("-stamps", stamps, "-hang", fifo), timeout, cancelGrace)
	}
	sc := b.write("grace.yaml", sb.String())
	out := filepath.Join(b.dir, "grace.json")
	if _, err := execute(b.dir, []string{b.cfg.acprun, "run", sc, "-q", "-j", "1", "-o", out}, 1); err != nil {
		return want, err
	}
	_, cancels, err := readStamps(stamps, n)
	if err != nil {
		return want, err
	}
	var lat []time.Duration
	for i := range n {
		var at time.Time
		select {
		case at = <-gone[i]:
		case <-time.After(10 * time.Second):
		}
		if at.IsZero() {
			return want, fmt.Errorf("scenario g%04d: the process group did not go", i)
		}
		lat = append(lat, at.Sub(cancels[i].Add(cancelGrace)))
	}
	// -j 1: the scenarios ran, and stamped, in order.
	worst := slices.Max(lat)
	return []row{want[0].got("median "+ms(median(lat)), "", ms(worst), worst <= 100*time.Millisecond)}, nil
}

// passed counts the scenarios of the results at path, and those of them
// that passed.
func passed(path string) (passed, scenarios int, err error) {
	r, err := readJSON[results](path)
	for _, s := range r.Scenarios {
		if s.Status == "passed" {
			passed++
		}
	}
	return passed, len(r.Scenarios), err
}

// allPassed checks that the results at path hold n scenarios, all passed.
func allPassed(path string, n int) error {
	p, scenarios, err := passed(path)
	if err == nil && (scenarios != n || p != n) {
		err = fmt.Errorf("%s: %d of %d scenarios passed", path, p, n)
	}
	return err
}

// suite measures a suite of one-turn scenarios, -j 1, on an agent that
// takes a set time to start and ignores the end of its stdin, as
// claude-agent-acp and codex-acp do once they have a session (the mock
// agent with startDelay and ignoreEOF; it offers session/close): acprun
// against the limit client running the same sessions, each killing its
// agent once the prompt is answered; and acprun with reuse: true against
// acprun without. The three runs alternate.
func (b *bench) suite() ([]row, error) {
	n, start, reps := 12, time.Second, 3
	if b.cfg.quick {
		n, start, reps = 2, 100*time.Millisecond, 1
	}
	label := fmt.Sprintf("%d one-turn scenarios, %s start, ignoring EOF", n, start)
	reuseLabel := fmt.Sprintf("%d one-turn scenarios, %s start, reuse: true", n, start)
	fmt.Fprintf(b.log, "%s…\n", label)
	// acprun's cost over the limit client: the 100 ms settle before the
	// prompt (what the agent sends after session/new is setup every run)
	// and the 50 ms wait after a clean end, 0.15 s a scenario.
	want := []row{{name: label, target: "≤ 1.20×"}, {name: reuseLabel, target: "≤ 0.50× without"}}
	script := b.write("suite.mock.yaml", fmt.Sprintf("agentCapabilities: {sessionCapabilities: {close: true}}\nignoreEOF: true\nstartDelay: %s\ndefault: {steps: [{text: hello}]}\n", start))
	doc := func(reuse bool) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "---\nname: s%02d\nagent: {command: [%s, mock-agent, %s], reuse: %t}\npermissions: {default: deny}\nturns:\n  - prompt: go\n    expect: {text: {contains: hello}}\n",
				i, quote(b.cfg.acprun), quote(script), reuse)
		}
		return sb.String()
	}
	plain, reused := b.write("suite.yaml", doc(false)), b.write("suite-reuse.yaml", doc(true))
	out := filepath.Join(b.dir, "suite.json")
	var without, limit, with []measure
	acprunRun := func(suite string, ms *[]measure) func() error {
		return b.timed([]string{b.cfg.acprun, "run", suite, "-q", "-j", "1", "-o", out}, ms, func() error { return allPassed(out, n) })
	}
	err := alternate(reps,
		acprunRun(plain, &without),
		b.timed([]string{b.cfg.limit, "-kill", "-sessions", strconv.Itoa(n), "-j", "1", b.cfg.acprun, "mock-agent", script}, &limit, nil),
		acprunRun(reused, &with))
	if err != nil {
		return want, err
	}
	eof := ratioRow(label, without, limit, 1.2)
	mw, mo := median(walls(with)), median(walls(without))
	ratio := float64(mw) / float64(mo)
	return []row{eof, want[1].got(secs(mw)+" vs "+secs(mo)+" without", "", fmt.Sprintf("%.2f×", ratio), ratio <= 0.5)}, nil
}
