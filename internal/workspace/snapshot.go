package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"syscall"
)

// snapshot maps a slash-separated path relative to Dir to what was there.
type snapshot map[string]entry

// entryKind is what a snapshot entry is.
type entryKind uint8

const (
	kindFile           entryKind = iota + 1 // regular file, hashed
	kindSymlink                             // compared by target
	kindOther                               // socket, FIFO, device: compared by type and mode, never opened
	kindUnreadableFile                      // regular file that could not be read
	kindUnreadableDir                       // directory that could not be listed
)

// entry is one path's state. Unreadable entries keep their modification
// time, the only sign left that they changed.
type entry struct {
	kind   entryKind
	mode   fs.FileMode // modeBits plus type bits
	size   int64
	sum    [sha256.Size]byte
	target string
	mtime  int64 // unreadable entries only
}

// Snapshot records the current state as the baseline for Changes and Diff
// (call it after acprun's own writes and the setup commands, before the
// agent starts): what was written before it is no change, and what is done
// to those files afterwards is. For a git workspace it also records the
// state of the source's shared files (see RepoChanges) and its refs (see
// RefChanges). Create takes a first snapshot itself, so Changes and Diff
// work without calling Snapshot. ctx stops the walk, the hashing and the git commands.
func (w *Workspace) Snapshot(ctx context.Context) error {
	s, err := take(ctx, w.Dir, nil)
	if err != nil {
		return err
	}
	var base string
	var shared snapshot
	var refs refs
	if w.Kind != KindCopy {
		if base, err = w.writeBase(ctx); err != nil {
			return fmt.Errorf("workspace: snapshot %s: %w", w.Dir, err)
		}
		if shared, err = takeShared(ctx, w.common, nil); err != nil {
			return err
		}
		if refs, err = w.takeRefs(ctx); err != nil {
			return fmt.Errorf("workspace: snapshot %s: %w", w.common, err)
		}
	}
	w.mu.Lock()
	w.baseline, w.base, w.shared, w.refs = s, base, shared, refs
	w.mu.Unlock()
	return nil
}

// Files lists the files of the baseline (see Changes for what counts),
// relative to Dir with '/' separators, sorted.
func (w *Workspace) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(maps.Keys(w.baseline))
}

// Changes lists what differs from the baseline: created, modified and
// deleted paths, relative to Dir with '/' separators, each sorted and
// non-nil. Entries are files, symlinks (compared by target) and other
// non-directories; a new empty directory is no change, and the .git entry
// at the root (directory or file) is ignored. Modified means the content,
// the permission bits or the type changed. A file that cannot be read
// counts as modified, or created when new; so do the files below a
// directory that cannot be listed (a directory unreadable in only one of
// the two states, with no files to stand for it, is itself listed). err is
// set only when Dir itself cannot be walked, or ctx stopped the listing:
// the changes are then unknown, not none.
//
// The work is bounded by the baseline, never by what the agent left: a
// file is read only where the baseline has a file of the same size at its
// path (see take), so a listing reads no more than Snapshot did.
func (w *Workspace) Changes(ctx context.Context) (created, modified, deleted []string, err error) {
	w.mu.Lock()
	base := w.baseline
	w.mu.Unlock()
	if base == nil {
		base = snapshot{}
	}
	cur, err := take(ctx, w.Dir, base)
	if err != nil {
		return []string{}, []string{}, []string{}, err
	}
	created, modified, deleted = compare(base, cur)
	return created, modified, deleted, nil
}

// compare lists the differences between two snapshots.
func compare(base, cur snapshot) (created, modified, deleted []string) {
	created, modified, deleted = []string{}, []string{}, []string{}
	// only lists p, which only one snapshot has (as e), in list, or in
	// modified when it lies below a directory the other cannot list.
	only := func(p string, e entry, other snapshot, list *[]string) {
		switch {
		case e.kind == kindUnreadableDir && hasBelow(other, p):
			// The files below stand for it.
		case below(p, other):
			modified = append(modified, p)
		default:
			*list = append(*list, p)
		}
	}
	for p, c := range cur {
		if b, ok := base[p]; !ok {
			only(p, c, base, &created)
		} else if b != c {
			modified = append(modified, p)
		}
	}
	for p, b := range base {
		if _, ok := cur[p]; !ok {
			only(p, b, cur, &deleted)
		}
	}
	slices.Sort(created)
	slices.Sort(modified)
	slices.Sort(deleted)
	return created, modified, deleted
}

// below reports whether p lies below a directory that s records as
// unreadable.
func below(p string, s snapshot) bool {
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if e, ok := s[dir]; ok && e.kind == kindUnreadableDir {
			return true
		}
	}
	return false
}

// hasBelow reports whether s has an entry below the directory dir.
func hasBelow(s snapshot, dir string) bool {
	for p := range s {
		if len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir {
			return true
		}
	}
	return false
}

// take walks root, without following symlinks, and records every
// non-directory except the root's .git. base is the snapshot the one taken
// will be compared with (see Changes), nil for a baseline: a baseline
// hashes every regular file, while a later snapshot opens a regular file
// only where base records one (readable or not) of the same size, and
// reads no more than that size of it. Whatever else the agent left there
// (a file it created, or made another size, a sparse file of any size) is
// a change that its size tells, and costs no read. ctx stops the walk and
// the hashing; take then returns its cause.
func take(ctx context.Context, root string, base snapshot) (snapshot, error) {
	s := snapshot{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				// Listing failed: record it, keep what was listed.
				e := entry{kind: kindUnreadableDir, mode: fs.ModeDir}
				if info, ierr := os.Lstat(p); ierr == nil {
					e.mode, e.mtime = info.Mode()&(modeBits|fs.ModeType), info.ModTime().UnixNano()
				}
				s[rel(root, p)] = e
			}
			return nil
		}
		if p == root {
			return nil
		}
		name := rel(root, p)
		if name == ".git" {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // gone since the directory was listed
		case err != nil:
			// Listed but not searchable: nothing more to know.
			s[name] = entry{kind: kindUnreadableFile, mode: d.Type()}
			return nil
		}
		read := readAll
		if base != nil {
			read = readFor(base[name], info)
		}
		e, ok, err := record(ctx, p, info, read)
		if err != nil {
			return err
		}
		if ok {
			s[name] = e
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("workspace: snapshot %s: stopped: %w", root, context.Cause(ctx))
		}
		return nil, fmt.Errorf("workspace: snapshot %s: %w", root, err)
	}
	return s, nil
}

// rel is p relative to root, with slashes.
func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// reading is how much record reads of a regular file.
type reading uint8

const (
	readAll  reading = iota // hash it: a baseline's file, or one its baseline's size
	readOpen                // only say whether it can be opened (its baseline could not be)
	readNone                // its size is the change: neither opened nor read
)

// readFor is how much a later snapshot reads of the non-directory
// described by info, whose baseline entry is b (the zero entry when it had
// none): a regular file is hashed only when b is a file of the same size,
// opened only when b is an unreadable file of the same size (whose
// modification time is all there is to compare).
func readFor(b entry, info fs.FileInfo) reading {
	switch {
	case b.size != info.Size():
		return readNone
	case b.kind == kindFile:
		return readAll
	case b.kind == kindUnreadableFile:
		return readOpen
	}
	return readNone
}

// record describes the non-directory at p, reading as much of a regular
// file as read says; ok is false when it vanished. err is set only when
// ctx stopped the hashing.
func record(ctx context.Context, p string, info fs.FileInfo, read reading) (e entry, ok bool, err error) {
	mode := info.Mode()
	e.mode = mode & (modeBits | fs.ModeType)
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if errors.Is(err, fs.ErrNotExist) {
			return entry{}, false, nil
		}
		e.kind, e.target = kindSymlink, target
		e.mode = fs.ModeSymlink // link permissions mean nothing on Linux
	case mode.IsRegular() && read == readNone:
		// No sum: it differs from any file of the baseline.
		e.kind, e.size = kindFile, info.Size()
	case mode.IsRegular():
		sum, size, err := hash(ctx, p, read == readAll)
		switch {
		case ctx.Err() != nil:
			return entry{}, false, context.Cause(ctx)
		case errors.Is(err, fs.ErrNotExist):
			return entry{}, false, nil
		case err != nil:
			e.kind, e.size, e.mtime = kindUnreadableFile, info.Size(), info.ModTime().UnixNano()
		default:
			e.kind, e.size, e.sum = kindFile, size, sum
		}
	default:
		e.kind = kindOther
	}
	return e, true, nil
}

// hashChunk is how much hash reads between two looks at its context.
const hashChunk = 1 << 20

// hash returns the SHA-256 and size of the regular file at p, or only its
// size when sum is false (it was opened, no more). It refuses a symlink
// or FIFO swapped in since the directory was listed, and reads no more
// than one byte past the size the open file had: a file that grows while
// it is read is a different file, not an endless one. ctx stops it.
func hash(ctx context.Context, p string, sum bool) (digest [sha256.Size]byte, size int64, err error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return digest, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return digest, 0, err
	}
	if !info.Mode().IsRegular() {
		return digest, 0, fmt.Errorf("%s: not a regular file", p)
	}
	if !sum {
		return digest, info.Size(), nil
	}
	h := sha256.New()
	r := io.LimitReader(f, info.Size()+1)
	for {
		if err := ctx.Err(); err != nil {
			return digest, 0, err
		}
		n, err := io.CopyN(h, r, hashChunk)
		size += n
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return digest, 0, err
		}
	}
	h.Sum(digest[:0])
	return digest, size, nil
}
