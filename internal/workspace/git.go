package workspace

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acprun/acprun/internal/proc"
	"github.com/acprun/acprun/internal/reap"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
)

const (
	// gitCleanupTimeout bounds the git commands of Remove, which has no
	// ctx; a safety net only.
	gitCleanupTimeout = 2 * time.Minute
	// stderrKeep is how much of git's stderr is kept for an error.
	stderrKeep = 8 << 10
)

// strippedEnv are variables that, inherited (acprun run from a git hook or
// alias), would point git at another repository, index or object store, or
// change how it reads pathspecs and writes diffs.
var strippedEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_INDEX_VERSION": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_COMMON_DIR": true,
	"GIT_NAMESPACE": true, "GIT_PREFIX": true, "GIT_QUARANTINE_PATH": true, "GIT_SHALLOW_FILE": true,
	"GIT_GRAFT_FILE": true, "GIT_DIFF_OPTS": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true,
	"GIT_ICASE_PATHSPECS": true,
}

// gitEnv is the environment every git command runs with.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strippedEnv[name] {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat", "PAGER=cat",
		"GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:",
	)
}

// gitCmd is how to run git: in dir, with extra global options and
// environment variables, reading stdin from in (nil: none), writing stdout
// to out (nil: captured and returned), carrying a mark of its own inside
// mark (see run).
type gitCmd struct {
	dir    string
	global []string
	env    []string
	in     io.Reader
	out    io.Writer
	runs
}

// runs says how the workspace's git commands run: inside which mark
// (Spec.Mark), and with what redactor the cut of what git says is shown
// (Spec.Redact).
type runs struct {
	mark reap.Mark
	red  *redact.Redactor
}

// runGit runs git in dir, marked inside mark, and returns its stdout
// without the final newlines.
func runGit(ctx context.Context, rs runs, dir string, args ...string) (string, error) {
	return gitCmd{dir: dir, runs: rs}.run(ctx, args...)
}

// run runs one git command. Hooks and fsmonitor daemons never run, and no
// pager or prompt opens. git runs as every process acprun starts does (see
// package proc): in a process group of its own, which is killed when git
// exits or ctx ends (filters and other children git started included),
// killed when acprun dies, and with a mark of its own inside g.mark (the
// one acprun's environment holds when g.mark is ""), so that what left the
// group is killed once git exits, and the run's guard finds all of it when
// acprun is killed. The error says which subcommand failed and what git
// said.
func (g gitCmd) run(ctx context.Context, args ...string) (string, error) {
	sub := subcommand(args)
	if ctx.Err() != nil {
		return "", fmt.Errorf("git %s: %w", sub, context.Cause(ctx))
	}
	argv := []string{"git", "--no-pager", "-C", g.dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}
	argv = append(append(argv, g.global...), args...)
	var stdout bytes.Buffer
	to := g.out
	if to == nil {
		to = &stdout
	}
	out, err := proc.NewOutputTo(0, to) // no tail: all of it goes to to
	if err != nil {
		return "", fmt.Errorf("git %s: %w", sub, err)
	}
	stderr, err := proc.NewOutput(stderrKeep)
	if err != nil {
		out.File().Close()
		return "", fmt.Errorf("git %s: %w", sub, err)
	}
	stdin, fed, err := feed(g.in)
	if err != nil {
		out.File().Close()
		stderr.File().Close()
		return "", fmt.Errorf("git %s: %w", sub, err)
	}
	p, err := proc.Start(proc.Config{Args: argv, Env: g.mark.Set(append(gitEnv(), g.env...)), Reap: true,
		Stdin: stdin, Stdout: out.File(), Stderr: stderr.File(), Readers: []proc.Reader{out, stderr}})
	if err != nil {
		fed()
		return "", &gitError{sub: sub, msg: err.Error()}
	}
	select {
	case <-p.Exited():
	case <-ctx.Done():
		p.Kill()
	}
	<-p.Done() // what left the group was killed, the output read
	fed()
	if ctx.Err() != nil {
		return "", fmt.Errorf("git %s: %w", sub, context.Cause(ctx))
	}
	if code, signal := p.ExitStatus(); code == nil || *code != 0 {
		status := "killed by " + signal
		if code != nil {
			status = fmt.Sprintf("exit status %d", *code)
		}
		tail := stderr.Tail()
		said := tail.Bytes()
		return "", &gitError{sub: sub, msg: cmp.Or(gitMessage(g.red, said, tail.Truncated()), status), noRoom: saysNoRoom(said)}
	}
	return strings.TrimRight(stdout.String(), "\n"), nil
}

// feed returns the file to give git as its stdin, the read end of a pipe
// that a goroutine writes in to, and a function that stops the writing
// (git has exited: what it did not read is dropped) and waits for its
// end. Without in, stdin is nil (the null device) and done does nothing.
func feed(in io.Reader) (stdin *os.File, done func(), err error) {
	if in == nil {
		return nil, func() {}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("stdin pipe: %w", err)
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		_, _ = io.Copy(w, in) // EPIPE: git stopped reading
		w.Close()
	}()
	return r, func() {
		w.Close() // unblocks a write no one reads
		<-written
	}, nil
}

// subcommand is the git subcommand in args, after any -c options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}

// gitError is a git command that failed.
type gitError struct {
	sub string // subcommand
	msg string // what git said
	// noRoom: git said, on any line, that a file system had no room or
	// took no writes (see noRoom).
	noRoom bool
}

func (e *gitError) Error() string { return "git " + e.sub + ": " + e.msg }

// gitMessage is the line of git's stderr that says what went wrong: the
// first "fatal:" or "error:" line, else the last line, cut to 300 bytes.
// The cut is redacted with red knowing the whole line, and so is the
// start of stderr when cutStart says that it was cut off (only the tail
// was kept): no part of a secret a cut goes through is shown (see
// redact.Redactor.Excerpt). The message is redacted again, whole, where
// it is written.
func gitMessage(red *redact.Redactor, stderr []byte, cutStart bool) string {
	var last string
	first := true // last is stderr's first line
	for line := range strings.Lines(string(stderr)) {
		line = strings.TrimSpace(line)
		if line == "" {
			first = false
			continue
		}
		last, cutStart = line, cutStart && first
		first = false
		if strings.HasPrefix(line, "fatal:") || strings.HasPrefix(line, "error:") {
			break
		}
	}
	end, cut := len(last), false
	if end > maxGitMessage {
		end, cut = termtext.Boundary(last, maxGitMessage), true
	}
	shown := red.Excerpt(last, 0, end, cutStart)
	if cut {
		shown += "…"
	}
	return shown
}

// maxGitMessage is how many bytes of git's error line an error quotes.
const maxGitMessage = 300

// createGit makes a workspace that is a checkout of spec.Git at spec.Ref.
func createGit(ctx context.Context, spec Spec, parent, prefix string) (*Workspace, error) {
	repo, bare, commit, err := gitSource(ctx, spec)
	if err != nil {
		return nil, err
	}
	common, err := commonDir(ctx, spec.runs(), spec.Git, repo)
	if err != nil {
		return nil, err
	}
	dir, shared, err := makeDir("git", spec.Git, repo, parent, prefix)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Dir: dir, Shared: shared, Commit: commit, repo: repo, common: common, runs: spec.runs()}
	// fail removes w and returns err, as a *DirError when it is the
	// fault of where w was made (a full disk): git says so, or, since it
	// does not always say why it could not write a file, the commit's
	// files do not fit there now that the space w took is free again.
	fail := func(err error) (*Workspace, error) {
		_ = w.remove()
		if ctx.Err() == nil && !noRoom(err) {
			err = w.fits(ctx, filepath.Dir(shared), err)
		}
		return nil, placeError(err, shared)
	}
	if err := w.checkout(ctx, bare); err != nil {
		return fail(fmt.Errorf("workspace: git %s: check out %s: %w", spec.Git, short(commit), err))
	}
	if err := w.initBase(); err != nil {
		return fail(fmt.Errorf("workspace: git %s: %w", spec.Git, err))
	}
	if err := w.Snapshot(ctx); err != nil {
		return fail(err)
	}
	return w, nil
}

// gitSource checks that git is on PATH, that spec.Git is the top of a
// work tree or a bare repository, and that spec.Ref names a commit in it,
// reading the repository only. It returns the repository, whether it is
// bare, and the commit's full hash: spec.Commit, when set and still in
// the repository.
func gitSource(ctx context.Context, spec Spec) (repo string, bare bool, commit string, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", false, "", fmt.Errorf("workspace: git %s: git is not on PATH: install git, or copy a directory with from", spec.Git)
	}
	src, err := source("git", spec.Git)
	if err != nil {
		return "", false, "", err
	}
	repo, bare, err = repository(ctx, spec.runs(), spec.Git, src)
	if err != nil {
		return "", false, "", err
	}
	if spec.Commit == "" {
		commit, err = resolve(ctx, spec.runs(), repo, spec.Ref)
	} else if commit, err = resolve(ctx, spec.runs(), repo, spec.Commit); errors.As(err, new(*RefError)) {
		err = &RefError{Ref: spec.Ref, Repo: repo, Gone: spec.Commit}
	}
	if err != nil {
		return "", false, "", err
	}
	return repo, bare, commit, nil
}

// RefError is the error of a Spec whose Ref names no commit of its
// repository.
type RefError struct {
	Ref  string // as given; "" for HEAD
	Repo string
	// Gone is the commit Ref named when the run started (Spec.Commit),
	// when that commit is no longer in Repo; "" otherwise.
	Gone string
}

func (e *RefError) Error() string {
	if e.Gone != "" {
		return fmt.Sprintf("workspace: ref %s: commit %s, which it named when the run started, is no longer in %s", cmp.Or(e.Ref, "HEAD"), short(e.Gone), e.Repo)
	}
	if e.Ref == "" {
		return fmt.Sprintf("workspace: ref HEAD: unknown revision in %s (has it any commits?)", e.Repo)
	}
	return fmt.Sprintf("workspace: ref %s: unknown revision in %s: give a branch, tag or commit of it", e.Ref, e.Repo)
}

// repository checks that src (given as given, resolved) is the top of a
// work tree or a bare repository, and returns it; its git commands carry
// mark.
func repository(ctx context.Context, rs runs, given, src string) (repo string, bare bool, err error) {
	out, err := runGit(ctx, rs, src, "rev-parse", "--is-bare-repository", "--absolute-git-dir")
	if err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("workspace: git %s: %w", given, err)
		}
		return "", false, fmt.Errorf("workspace: git %s: not a git repository (%w): give a repository's top directory, or copy the directory with from", given, err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 2 {
		return "", false, fmt.Errorf("workspace: git %s: unexpected output of git rev-parse: %q", given, out)
	}
	if lines[0] == "true" {
		gitDir, err := filepath.EvalSymlinks(lines[1])
		if err != nil {
			return "", false, fmt.Errorf("workspace: git %s: %w", given, err)
		}
		if gitDir != src {
			return "", false, fmt.Errorf("workspace: git %s: inside the bare repository %s: give %s", given, gitDir, gitDir)
		}
		return src, true, nil
	}
	top, err := runGit(ctx, rs, src, "rev-parse", "--show-toplevel")
	if err != nil {
		if ctx.Err() != nil {
			return "", false, fmt.Errorf("workspace: git %s: %w", given, err)
		}
		return "", false, fmt.Errorf("workspace: git %s: not in a work tree (%w): give the repository's top directory", given, err)
	}
	top, err = filepath.EvalSymlinks(top)
	if err != nil {
		return "", false, fmt.Errorf("workspace: git %s: %w", given, err)
	}
	if top != src {
		return "", false, fmt.Errorf("workspace: git %s: not the top of its repository: give %s", given, top)
	}
	return src, false, nil
}

// commonDir returns the git directory that repo (a repository found by
// repository) shares with its worktrees: where its config, hooks and
// objects are. Its git command carries mark.
func commonDir(ctx context.Context, rs runs, given, repo string) (string, error) {
	out, err := runGit(ctx, rs, repo, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("workspace: git %s: %w", given, err)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(repo, out)
	}
	return filepath.Clean(out), nil
}

// resolve returns the full hash of the commit ref ("" for HEAD) names in
// repo; its git command carries mark.
func resolve(ctx context.Context, rs runs, repo, ref string) (string, error) {
	name := cmp.Or(ref, "HEAD")
	unknown := &RefError{Ref: ref, Repo: repo}
	if strings.HasPrefix(name, "-") {
		return "", unknown // would read as an option
	}
	out, err := runGit(ctx, rs, repo, "rev-parse", "--verify", "--quiet", name+"^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("workspace: ref %s: %w", name, err)
		}
		return "", unknown
	}
	if !isHash(out) {
		return "", fmt.Errorf("workspace: ref %s: unexpected output of git rev-parse: %q", name, out)
	}
	return out, nil
}

// isHash reports whether s is a full SHA-1 or SHA-256 object name.
func isHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// short abbreviates a commit hash for messages.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// repoLocks holds one mutex per source repository. acprun's worktree
// commands on one repository run one at a time: git takes locks in the
// repository's own directory, and a second `worktree add` running beside
// the first could fail and fall back to a clone, so that the kind of
// workspace would depend on timing.
var repoLocks sync.Map // repository path → *sync.Mutex

// lockRepo locks repo's mutex and returns its unlock.
func lockRepo(repo string) func() {
	m, _ := repoLocks.LoadOrStore(repo, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// checkout fills w.Dir (existing, empty) with w.Commit of w.repo: a
// detached worktree, or, for a bare repository or when the worktree cannot
// be added, a clone. It sets w.Kind and w.gitDir (and w.private for a
// clone).
func (w *Workspace) checkout(ctx context.Context, bare bool) error {
	var worktreeErr error
	if !bare {
		unlock := lockRepo(w.repo)
		_, err := runGit(ctx, w.runs, w.repo, "worktree", "add", "--detach", "--quiet", w.Dir, w.Commit)
		unlock()
		if err == nil {
			w.Kind = KindWorktree
			gitDir, err := runGit(ctx, w.runs, w.Dir, "rev-parse", "--absolute-git-dir")
			if err != nil {
				return err
			}
			w.gitDir = gitDir
			return nil
		}
		if ctx.Err() != nil {
			// git was killed, maybe half way: let the cleanup ask git
			// to forget the worktree.
			w.Kind = KindWorktree
			return err
		}
		worktreeErr = err
		// git cleans up after a failed add, removing the directory when
		// its checkout failed: make sure it is there and empty for the
		// clone.
		if err := emptyDir(w.Dir); errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(w.Dir, 0o700); err != nil {
				return errors.Join(worktreeErr, err)
			}
		} else if err != nil {
			return errors.Join(worktreeErr, err)
		}
	}
	w.Kind = KindClone
	err := w.clone(ctx)
	if err != nil && worktreeErr != nil {
		return fmt.Errorf("%w; then %w", worktreeErr, err)
	}
	if err == nil && worktreeErr != nil {
		w.Fallback = worktreeErr.Error()
	}
	return err
}

// clone clones w.repo into w.Dir and checks out w.Commit, detached. The
// clone's git directory is not w.Dir/.git, which the agent can write, but
// privateGitDir inside w.private (see makePrivate); w.Dir/.git is a file
// that points there, for the agent and the user.
func (w *Workspace) clone(ctx context.Context) error {
	if err := w.makePrivate(); err != nil {
		return err
	}
	w.gitDir = filepath.Join(w.private, privateGitDir)
	if _, err := runGit(ctx, w.runs, w.repo, "clone", "--no-hardlinks", "--quiet", "--no-checkout", "--separate-git-dir="+w.gitDir, "--", w.repo, w.Dir); err != nil {
		return err
	}
	_, err := w.git().run(ctx, "-c", "advice.detachedHead=false", "checkout", "--detach", "--quiet", w.Commit, "--")
	return err
}

// makePrivate makes w.private, unless made: a new directory beside w.Dir,
// its name plus ".git", mode 0700 (as private as w.Dir), that holds the
// git directories of a git workspace (a clone's, acprun's own for the
// diff) out of the agent's roots.
func (w *Workspace) makePrivate() error {
	if w.private != "" {
		return nil
	}
	if err := os.Mkdir(w.Dir+".git", 0o700); err != nil {
		return fmt.Errorf("git directory: %w", err)
	}
	w.private = w.Dir + ".git"
	return nil
}

// privateGitDir is the name of a clone's git directory inside its private
// directory (Workspace.private).
const privateGitDir = "git"

// git runs git on the workspace's own git directory and w.Dir as its work
// tree, both given explicitly: never the git directory w.Dir/.git names
// now, which the agent may have changed.
func (w *Workspace) git() gitCmd {
	return gitCmd{dir: w.Dir, global: []string{"--git-dir=" + w.gitDir, "--work-tree=" + w.Dir}, runs: w.runs}
}

// emptyDir removes everything inside dir.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := reap.RemoveTree(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// sharedFiles are the files, in the git directory a repository shares with
// its worktrees, that can make git run a command in the repository: its
// config (filter, diff and merge drivers, fsmonitor, hooksPath, aliases),
// its hooks and its attributes. Paths with slashes.
var sharedFiles = []string{"config", "hooks", "info/attributes"}

// takeShared records the sharedFiles of the git directory common: a file
// as Changes compares it, a directory as every file below it. base is the
// snapshot it will be compared with, nil for a baseline (see take). err is
// set only when ctx stopped it.
func takeShared(ctx context.Context, common string, base snapshot) (snapshot, error) {
	s := snapshot{}
	for _, name := range sharedFiles {
		p := filepath.Join(common, filepath.FromSlash(name))
		info, err := os.Lstat(p)
		switch {
		case err != nil:
			// Missing: nothing to record.
		case info.IsDir():
			var under snapshot
			if base != nil {
				under = snapshot{}
				for k, e := range base {
					if rest, ok := strings.CutPrefix(k, name+"/"); ok {
						under[rest] = e
					}
				}
			}
			below, err := take(ctx, p, under)
			if ctx.Err() != nil {
				return nil, err
			}
			if err != nil {
				s[name] = entry{kind: kindUnreadableDir, mode: fs.ModeDir}
			}
			for k, e := range below {
				s[name+"/"+k] = e
			}
		default:
			read := readAll
			if base != nil {
				read = readFor(base[name], info)
			}
			e, ok, err := record(ctx, p, info, read)
			if err != nil {
				return nil, fmt.Errorf("workspace: snapshot %s: stopped: %w", common, err)
			}
			if ok {
				s[name] = e
			}
		}
	}
	return s, nil
}

// RepoChanges says which of the source repository's shared git files that
// can make git run a command there (its config, hooks and info/attributes)
// were created, modified or deleted since the baseline, as "modified
// /repo/.git/config" and so on (created, then modified, then deleted, each
// sorted); nil when none was, and for a copy. An agent working in a
// worktree writes the repository's config with `git config`: what it set
// there (a filter, a hook) then runs in the user's own git commands in the
// repository. acprun does not undo such a change. ctx stops it (err is
// then set), and it reads no more than Snapshot did, as Changes.
func (w *Workspace) RepoChanges(ctx context.Context) ([]string, error) {
	if w.Kind == KindCopy {
		return nil, nil
	}
	w.mu.Lock()
	base := w.shared
	w.mu.Unlock()
	if base == nil {
		base = snapshot{}
	}
	cur, err := takeShared(ctx, w.common, base)
	if err != nil {
		return nil, err
	}
	created, modified, deleted := compare(base, cur)
	var out []string
	for _, l := range []struct {
		what  string
		paths []string
	}{{"created", created}, {"modified", modified}, {"deleted", deleted}} {
		for _, p := range l.paths {
			out = append(out, l.what+" "+filepath.Join(w.common, filepath.FromSlash(p)))
		}
	}
	return out, nil
}
