package workspace

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// noRoomTexts are how the C library words the errors noRoom looks for
// (ENOSPC, EDQUOT, EROFS), as git writes them after what it could not do.
var noRoomTexts = [][]byte{[]byte("No space left on device"), []byte("Disk quota exceeded"), []byte("Read-only file system")}

// saysNoRoom reports whether stderr, what git wrote, says that a file
// system had no room or took no writes.
func saysNoRoom(stderr []byte) bool {
	for _, text := range noRoomTexts {
		if bytes.Contains(stderr, text) {
			return true
		}
	}
	return false
}

// gitSaidNoRoom reports whether a *gitError in err's tree (any of
// several, as a worktree's then a clone's) says that a file system had no
// room or took no writes.
func gitSaidNoRoom(err error) bool {
	switch e := err.(type) {
	case *gitError:
		return e.noRoom
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(e.Unwrap(), gitSaidNoRoom)
	case interface{ Unwrap() error }:
		return gitSaidNoRoom(e.Unwrap())
	}
	return false
}

// fits returns err, the failed checkout of w.Commit in parent, as a
// *DirError of parent when the commit's files and directories need more
// blocks or inodes than parent's file system has free (git does not
// always say that a write failed for want of room: "unable to write file
// big.bin"). It returns err as it is when they fit or when that cannot be
// told.
func (w *Workspace) fits(ctx context.Context, parent string, err error) error {
	var st syscall.Statfs_t
	if syscall.Statfs(parent, &st) != nil || st.Bsize <= 0 {
		return err
	}
	out, lsErr := runGit(ctx, w.runs, w.repo, "ls-tree", "-r", "-t", "-l", "-z", w.Commit)
	if lsErr != nil {
		return err
	}
	block := uint64(st.Bsize)
	var need, entries uint64
	for entry := range strings.SplitSeq(out, "\x00") {
		meta, _, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta) // mode, type, object, size ("-": none)
		if !ok || len(fields) != 4 {
			continue
		}
		entries++
		size, _ := strconv.ParseUint(fields[3], 10, 64)
		need += max(1, (size+block-1)/block) * block
	}
	free := uint64(st.Bavail) * block
	switch {
	case need > free:
		return &DirError{Dir: parent, Err: fmt.Errorf("%w (the commit's files need %d KiB, and %s has %d KiB free)", err, need>>10, parent, free>>10)}
	case st.Files > 0 && entries > uint64(st.Ffree):
		return &DirError{Dir: parent, Err: fmt.Errorf("%w (the commit's files need %d inodes, and %s has %d free)", err, entries, parent, st.Ffree)}
	}
	return err
}
