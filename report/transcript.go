package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// unsafeName matches what transcript file names replace with "_".
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._@#-]+`)

// MaxTranscriptStem is the longest, in bytes, that TranscriptName lets a
// name run before ".jsonl": file systems take 255 bytes at most (NAME_MAX),
// and a transcript's name gets more after it: "-2" to tell it apart, a
// judge's ".judge-turn2", a cassette's ".cassette.json", a temporary
// file's ".tmpNNNNNNNNNN".
const MaxTranscriptStem = 200

// TranscriptName is the file name run gives the transcript of a try of a
// scenario: NAME[@AGENT][#ATTEMPT][-retryN].jsonl, with unsafe characters
// replaced by "_". In a run whose names would collide (case-insensitively)
// the later ones get "-2", "-3"… before ".jsonl".
//
// A name longer than MaxTranscriptStem (a long scenario name, made of
// vars perhaps) is shortened the same way every time: its first 120 bytes,
// "~", 16 hex digits of the SHA-256 of the name as it was before any
// character was replaced, "~" and its last 62 bytes (the agent, attempt and
// retry), 200 bytes in all. "~" is no character of a name otherwise.
func TranscriptName(name, agent string, attempt, retry int) string {
	if agent != "" {
		name += "@" + agent
	}
	if attempt > 0 {
		name += fmt.Sprintf("#%d", attempt)
	}
	if retry > 0 {
		name += fmt.Sprintf("-retry%d", retry)
	}
	stem := unsafeName.ReplaceAllString(name, "_")
	if len(stem) > MaxTranscriptStem {
		const head, tail = 120, 62 // and 18 for the hash between them
		sum := sha256.Sum256([]byte(name))
		stem = stem[:head] + "~" + hex.EncodeToString(sum[:8]) + "~" + stem[len(stem)-tail:]
	}
	return stem + ".jsonl"
}

// TranscriptFinder returns a function that finds a result's transcript:
// in dir when it is set (by the file name the result records, else by
// TranscriptName), else at the path the result records. A relative path
// is relative to the directory the run ran in (the result's own Dir, else
// runDir: the results' dir) when the transcript is there, as
// --rerun-failed takes a scenario's file (and it is returned as recorded
// when the working directory is that one); else it is tried as it is and
// from each of dirs. It returns "" when there is none to read.
func TranscriptFinder(dir, runDir string, dirs []string) func(Result) string {
	return func(r Result) string {
		if dir != "" {
			name := filepath.Base(r.Transcript)
			if r.Transcript == "" {
				name = TranscriptName(r.Name, r.Agent.Name, r.Attempt, r.Retry)
			}
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				return ""
			}
			return p
		}
		if r.Transcript == "" {
			return ""
		}
		if filepath.IsAbs(r.Transcript) {
			return r.Transcript
		}
		if d := cmp.Or(r.Dir, runDir); d != "" {
			if there, err := os.Stat(filepath.Join(d, r.Transcript)); err == nil {
				if here, err := os.Stat(r.Transcript); err != nil || !os.SameFile(here, there) {
					return filepath.Join(d, r.Transcript)
				} // else the working directory is the run's: r.Transcript, as recorded
			}
		}
		if _, err := os.Stat(r.Transcript); err == nil {
			return r.Transcript
		}
		for _, d := range dirs {
			p := filepath.Join(d, r.Transcript)
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		return r.Transcript // the viewer says it cannot be read
	}
}
