package jail_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/acprun/acprun/internal/raceexit" // no second of sleep at the exit of a -race test binary

	"github.com/acprun/acprun/internal/jail"
	"github.com/google/go-cmp/cmp"
)

// fuzzTree is FuzzJail's layout under base: two roots (root, and root2
// given to the Jail through the symlink rootlink) and a directory outside
// them, with symlinks of every kind (file and directory, relative and
// absolute, "..", dangling, looping) pointing in and out.
type fuzzTree struct {
	base, root, root2, rootlink, outside string
	roots                                []string        // the Jail's roots, resolved
	inside                               map[string]bool // contents of the files in the roots
}

func newFuzzTree(t testing.TB) fuzzTree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := fuzzTree{
		base:     base,
		root:     filepath.Join(base, "root"),
		root2:    filepath.Join(base, "root2"),
		rootlink: filepath.Join(base, "rootlink"),
		outside:  filepath.Join(base, "outside"),
		inside:   map[string]bool{},
	}
	tr.roots = []string{tr.root, tr.root2}
	for _, d := range []string{"root/sub/deep", "root2/d", "outside/dir"} {
		mkdir(t, filepath.Join(base, d))
	}
	for _, p := range []string{"root/file.txt", "root/sub/a.txt", "root/sub/deep/b.txt", "root2/x.txt"} {
		content := "inside " + p
		write(t, filepath.Join(base, p), content)
		tr.inside[content] = true
	}
	for _, p := range []string{"outside/secret.txt", "outside/dir/s.txt", "root-sibling.txt"} {
		write(t, filepath.Join(base, p), "secret "+p)
	}
	for link, target := range map[string]string{
		"rootlink":           "root2",
		"root/in.txt":        "file.txt",
		"root/indir":         "sub",
		"root/sub/back":      "../file.txt",
		"root/sub/deep/up":   "../..",
		"root/to2":           "../root2/x.txt",
		"root/to2abs":        tr.rootlink + "/d",
		"root/out.txt":       "../outside/secret.txt",
		"root/outdir":        "../outside",
		"root/abs":           filepath.Join(base, "outside", "secret.txt"),
		"root/absdir":        filepath.Join(base, "outside"),
		"root/up":            "..",
		"root/sub/upup":      "../..",
		"root/sub/sib":       "../../root-sibling.txt",
		"root/slash":         "/",
		"root/loop":          "loop",
		"root/dangling":      "../outside/new.txt",
		"root/danglingdir":   "../outside/newdir/f",
		"root/danglingin":    "new-inside.txt",
		"root/prefix":        "../root-sibling.txt",
		"root/proc":          "/proc/self/environ",
		"root2/d/esc":        "../../outside/dir",
		"root2/d/home":       "../../root/sub",
		"outside/back":       "../root/file.txt",
		"outside/backdir":    "../root/sub",
		"outside/dir/toroot": "../../root",
	} {
		symlink(t, target, filepath.Join(base, link))
	}
	return tr
}

// under reports whether p (clean, absolute) lies in one of the roots.
func (tr fuzzTree) under(p string) bool {
	for _, r := range tr.roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// state records everything in base: names, kinds, link targets and
// contents.
func (tr fuzzTree) state(t testing.TB) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(tr.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			state[p] = "link " + target
		case d.IsDir():
			state[p] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			state[p] = "file " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// notInRoots returns the part of a state that is not in the roots.
func (tr fuzzTree) notInRoots(state map[string]string) map[string]string {
	out := map[string]string{}
	for p, s := range state {
		if !tr.under(p) {
			out[p] = s
		}
	}
	return out
}

// restore undoes what a write changed in the roots, back to before: what
// is new is removed and the files changed get their contents back.
func (tr fuzzTree) restore(t testing.TB, before map[string]string) {
	t.Helper()
	after := tr.state(t)
	for p := range after {
		if _, ok := before[p]; !ok {
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for p, s := range before {
		if content, ok := strings.CutPrefix(s, "file "); ok && after[p] != s {
			write(t, p, content)
		}
	}
	if diff := cmp.Diff(before, tr.state(t)); diff != "" {
		t.Fatalf("the tree was not restored after a write (-want +got):\n%s", diff)
	}
}

// FuzzJail gives the Jail arbitrary paths, relative or absolute, with "..",
// NUL bytes, symlinks and very long names, optionally after creating a
// symlink of the fuzzer's choosing in a root, and checks that whatever the
// Jail resolves, opens or writes is in a root: by the real path
// (filepath.EvalSymlinks, /proc/self/fd) of what it resolved or opened, by
// the contents read, and by the state of everything outside the roots after
// a write.
//
// base picks what path is appended to: 0 nothing (path as given), 1 the
// root, 2 the other root through its symlink, 3 the directory above the
// roots, 4 the outside directory. linkName, when local, names a symlink to
// linkTarget created in the root first. write also tries WriteFile.
func FuzzJail(f *testing.F) {
	f.Add(uint8(1), "/sub/../file.txt", "", "", false)
	// One tree for all inputs: each undoes what it changed.
	tr := newFuzzTree(f)
	f.Fuzz(func(t *testing.T, base uint8, path, linkName, linkTarget string, write bool) {
		if linkName != "" && filepath.IsLocal(linkName) && !strings.ContainsRune(linkName+linkTarget, 0) {
			// The name may exist or lack a parent: then nothing is made.
			link := filepath.Join(tr.root, linkName)
			if os.Symlink(linkTarget, link) == nil {
				defer os.Remove(link)
			}
		}
		switch base % 5 {
		case 1:
			path = tr.root + "/" + path
		case 2:
			path = tr.rootlink + "/" + path
		case 3:
			path = tr.base + "/" + path
		case 4:
			path = tr.outside + "/" + path
		}
		j, err := jail.New([]string{tr.root, tr.rootlink})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if diff := cmp.Diff(tr.roots, j.Roots()); diff != "" {
			t.Fatalf("Roots() (-want +got):\n%s", diff)
		}
		abs := filepath.IsAbs(path)

		// The kernel's view of the path, when every component exists.
		kernelPath, kernelErr := filepath.EvalSymlinks(path)

		resolved, err := j.Resolve(path)
		switch {
		case !abs:
			if !errors.Is(err, jail.ErrNotAbsolute) {
				t.Fatalf("Resolve(%q) = %q, %v; want ErrNotAbsolute", path, resolved, err)
			}
			return
		case err == nil:
			if !tr.under(resolved) {
				t.Fatalf("Resolve(%q) = %q: outside the roots %q", path, resolved, tr.roots)
			}
			if kernelErr == nil && kernelPath != resolved {
				t.Fatalf("Resolve(%q) = %q; the real path is %q", path, resolved, kernelPath)
			}
			if p := existingPart(resolved); !tr.under(p) {
				t.Fatalf("Resolve(%q) = %q, whose existing part %q is outside the roots", path, resolved, p)
			}
		}

		if dir, err := j.OpenDir(path); err == nil {
			r, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(dir.Fd())))
			dir.Close()
			if err == nil && !tr.under(r) {
				t.Fatalf("OpenDir(%q) opened %s: outside the roots", path, r)
			}
		}

		if file, err := j.OpenRead(path); err == nil {
			checkOpened(t, tr, path, file)
		}

		if !write {
			return
		}
		before := tr.state(t)
		const data = "written by FuzzJail"
		werr := j.WriteFile(path, []byte(data))
		defer tr.restore(t, before)
		if diff := cmp.Diff(tr.notInRoots(before), tr.notInRoots(tr.state(t))); diff != "" {
			t.Fatalf("WriteFile(%q) = %v changed files outside the roots (-before +after):\n%s", path, werr, diff)
		}
		if werr != nil {
			return
		}
		dest, err := j.Resolve(path)
		if err != nil {
			t.Fatalf("WriteFile(%q) succeeded; Resolve now gives %v", path, err)
		}
		r, err := filepath.EvalSymlinks(dest)
		if err != nil || !tr.under(r) {
			t.Fatalf("WriteFile(%q) wrote %q, whose real path is %q (%v): want it in the roots", path, dest, r, err)
		}
		if b, err := os.ReadFile(r); err != nil || string(b) != data {
			t.Fatalf("WriteFile(%q) succeeded; %s holds %q (%v)", path, r, b, err)
		}
	})
}

// checkOpened checks that a file OpenRead opened is one of the roots'.
func checkOpened(t *testing.T, tr fuzzTree, path string, file *os.File) {
	t.Helper()
	defer file.Close()
	if fdPath, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(file.Fd()))); err == nil && !tr.under(fdPath) {
		t.Fatalf("OpenRead(%q) opened %s: outside the roots", path, fdPath)
	}
	b, err := io.ReadAll(io.LimitReader(file, 1<<10))
	if err != nil {
		t.Fatalf("OpenRead(%q) then read: %v", path, err)
	}
	if !tr.inside[string(b)] {
		t.Fatalf("OpenRead(%q) read %q: not a file of the roots", path, b)
	}
}

// existingPart returns the real path of the longest prefix of p that
// exists.
func existingPart(p string) string {
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}
