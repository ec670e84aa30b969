package outfile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// Target is one output of a command: the flag that names it and the path
// given to the flag.
type Target struct {
	Flag string // as the user would write it: "-o", "--junit"
	Path string // Stdout for standard output
	// What is what the output holds, for messages: "the results", "the
	// JUnit report"; "" says "the output".
	What string
}

// Input is a file a command reads: Path as the user gave it, and What it
// is to the command, for messages ("a scenario file of this run").
type Input struct {
	Path string
	What string
	// Output is set for a file the command writes too (a session state
	// file): an output is refused in its place even before it exists,
	// by the path it will have (RealPath).
	Output bool
}

// IsStdout reports whether path is stdout, the process's standard output:
// Stdout ("-"), or another name of the file stdout is (/dev/stdout,
// /proc/self/fd/1, the file stdout was redirected to), unless that is a
// character device such as /dev/null, which takes any number of outputs.
// Only an *os.File stdout has other names.
func IsStdout(stdout io.Writer, path string) bool {
	if path == Stdout {
		return true
	}
	f, ok := stdout.(*os.File)
	if !ok {
		return false
	}
	out, err1 := f.Stat()
	fi, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(out, fi) && out.Mode()&fs.ModeCharDevice == 0
}

// CheckTargets rejects outputs that cannot all be written: two that are
// the same file (compared by RealPath, through symlinks and ".." too; a
// device or FIFO may take several),
// or more than one on stdout (see IsStdout). Its errors name the flags.
// It writes nothing; Check tells whether each one can be written.
func CheckTargets(stdout io.Writer, targets []Target) error {
	var onStdout []string
	seen := map[string]string{} // resolved path → flag and path
	for _, t := range targets {
		if IsStdout(stdout, t.Path) {
			onStdout = append(onStdout, t.Flag+" "+t.Path)
			continue
		}
		key := t.Path
		if real, err := RealPath(t.Path); err == nil {
			if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
				continue // a device such as /dev/null may take several outputs
			}
			key = real
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s and %s %s: both write the same file; give each its own", prev, t.Flag, t.Path)
		}
		seen[key] = t.Flag + " " + t.Path
	}
	if len(onStdout) > 1 {
		return errors.New(strings.Join(onStdout, " and ") + ": only one output can go to stdout; give the others a file")
	}
	return nil
}

// CheckInputs refuses an output of targets that would replace one of the
// command's inputs: the same file, compared through symlinks and hard
// links (os.SameFile), or for an input the command writes too (Output),
// the same path once resolved (RealPath), whether it exists yet or not.
// Stdout, a device or FIFO, and, but for such an input, a file that does
// not exist yet are no input's. Its error names the flag, the path and
// what the input is. It writes nothing.
func CheckInputs(stdout io.Writer, targets []Target, inputs []Input) error {
	for _, t := range targets {
		real, fi, ok := target(stdout, t.Path)
		if !ok {
			continue
		}
		for _, in := range inputs {
			if in.Path == "" || !isInput(real, fi, in) {
				continue
			}
			return fmt.Errorf("%s %s: it is %s; give %s another file", t.Flag, t.Path, in.What, cmp.Or(t.What, "the output"))
		}
	}
	return nil
}

// Replaces reports whether writing the output path replaces the input
// in, as CheckInputs compares them: the same file, through symlinks and
// hard links.
func Replaces(stdout io.Writer, path string, in Input) bool {
	real, fi, ok := target(stdout, path)
	return ok && in.Path != "" && isInput(real, fi, in)
}

// target is where the output path will be written, for CheckInputs: its
// real path once the missing directories are made ("nodir/../s.yaml" is
// s.yaml; a dangling symlink is no input), and the file there (nil: none
// yet). ok is false for what replaces no input: no path, stdout, a device
// or FIFO.
func target(stdout io.Writer, path string) (real string, fi fs.FileInfo, ok bool) {
	if path == "" || IsStdout(stdout, path) {
		return "", nil, false
	}
	real, err := RealPath(path)
	if err != nil {
		real = path
	}
	fi, err = os.Stat(real)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return "", nil, false
	case err != nil:
		fi = nil
	}
	return real, fi, true
}

// isInput reports whether an output whose path resolves to real, and
// which is the file fi (nil: none yet), is the input in.
func isInput(real string, fi fs.FileInfo, in Input) bool {
	if fi != nil {
		if ifi, err := os.Stat(in.Path); err == nil && os.SameFile(fi, ifi) {
			return true
		}
	}
	if !in.Output {
		return false
	}
	r, err := RealPath(in.Path)
	return err == nil && r == real
}
