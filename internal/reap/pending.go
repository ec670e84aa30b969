package reap

import (
	"bufio"
	"io"
	"maps"
	"slices"
)

// pending reads the guard's records (see record) from in to its end and
// returns the paths given to Remove and not to Forget since, sorted. It
// holds only those as it reads: a path is dropped once forgotten as many
// times as it was given (two writes may try one temporary name). A
// record cut short by the end of in, which a killed acprun may leave, is
// ignored.
func pending(in io.Reader) []string {
	held := map[string]int{}
	r := bufio.NewReader(in)
	for {
		rec, err := r.ReadString(0)
		if err != nil {
			break // the end of in; what came without its NUL is not a whole path
		}
		if len(rec) < 3 { // op, a path, NUL
			continue
		}
		path := rec[1 : len(rec)-1]
		switch rec[0] {
		case opRemove:
			held[path]++
		case opForget:
			if held[path]--; held[path] <= 0 {
				delete(held, path)
			}
		}
	}
	return slices.Sorted(maps.Keys(held))
}
