package output

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/acprun/acprun/report"
)

// ReadResults decodes a results document written by acprun run or acprun
// merge. Its schemaVersion must be report.SchemaVersion or 1, which is
// read as the current version says it (see upgradeV1). The Duration
// fields, which JSON leaves out, are set from the durationMs fields, so the
// results print as the run's did.
func ReadResults(r io.Reader) (Results, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Results{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Results{}, errors.New("empty file, not acprun results")
	}
	var res Results
	if err := json.Unmarshal(data, &res); err != nil {
		return Results{}, fmt.Errorf("not acprun results: %w", err)
	}
	switch res.SchemaVersion {
	case report.SchemaVersion, 1:
	case 0:
		return Results{}, errors.New("not acprun results: no schemaVersion")
	default:
		return Results{}, fmt.Errorf("schemaVersion %d is not supported (want 1 to %d)", res.SchemaVersion, report.SchemaVersion)
	}
	if res.StartedAt != "" {
		if _, err := time.Parse(time.RFC3339Nano, res.StartedAt); err != nil {
			return Results{}, fmt.Errorf("startedAt: %w", err)
		}
	}
	for i := range res.Scenarios {
		sc := &res.Scenarios[i]
		sc.Duration = time.Duration(sc.DurationMs) * time.Millisecond
		for j := range sc.Turns {
			t := &sc.Turns[j]
			t.Duration = time.Duration(t.DurationMs) * time.Millisecond
		}
	}
	if res.SchemaVersion == 1 {
		upgradeV1(&res)
	}
	return res, nil
}

// upgradeV1 reads results of schemaVersion 1 as the current version
// writes them: a scenario that never started (notRun, status error then),
// or one acprun cut short by cancelling a turn for an interrupt, the run's
// --timeout or --fail-fast (whatever its status then, passed included),
// is interrupted; the summary is counted again.
func upgradeV1(res *Results) {
	for i := range res.Scenarios {
		sc := &res.Scenarios[i]
		if sc.NotRun {
			sc.Status = report.StatusInterrupted
			continue
		}
		for _, t := range sc.Turns {
			if !report.ExternalCause(t.CancelCause) {
				continue
			}
			cut := fmt.Sprintf("acprun cancelled turn %d after %s", t.Index, t.CancelCause)
			if sc.Error != "" {
				cut += " (" + sc.Error + ")"
			}
			sc.Status, sc.Error, sc.StartFailed = report.StatusInterrupted, cut, false
			break
		}
	}
	res.SchemaVersion = report.SchemaVersion
	res.Summary = Summarize(res.Report())
}

// Report turns results back into the report they were made from, as far as
// JSON keeps it: durations have millisecond precision, and an unparsable
// startedAt is the zero time.
func (r Results) Report() report.Report {
	started, _ := time.Parse(time.RFC3339Nano, r.StartedAt)
	return report.Report{
		SchemaVersion:  r.SchemaVersion,
		StartedAt:      started,
		Duration:       time.Duration(r.DurationMs) * time.Millisecond,
		Interrupted:    r.Interrupted,
		PolicyOverride: r.PolicyOverride,
		Scenarios:      r.Scenarios,
	}
}

// MergeFiles reads the results files at paths and merges them (see
// Merge). Every error names the file it is about.
func MergeFiles(paths []string) (Results, error) {
	if len(paths) == 0 {
		return Results{}, errors.New("no results files to merge")
	}
	shards := make([]Results, len(paths))
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return Results{}, err // *PathError names the file
		}
		shards[i], err = ReadResults(f)
		f.Close()
		if err != nil {
			return Results{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	return merge(paths, shards)
}

// Merge combines the results of shards of one run into the results of the
// whole run:
//   - scenarios are concatenated and sorted by file, line, agent name and
//     attempt (a stable sort, so it is the order of an unsharded run
//     whenever that run's named agents sort by name);
//   - byStopReason and summary are computed again from the scenarios;
//   - startedAt is the earliest, durationMs the longest (shards run side
//     by side, so the longest is the wall time of the whole), interrupted
//     is set when any shard was interrupted, and policyOverride lists the
//     shards' overrides.
//
// The same result (file, line, agent and attempt) in two shards is an
// error: those shards overlap.
func Merge(shards ...Results) (Results, error) {
	names := make([]string, len(shards))
	for i := range shards {
		names[i] = fmt.Sprintf("shard %d", i+1)
	}
	return merge(names, shards)
}

// resultKey identifies one result across shards.
type resultKey struct {
	file    string
	line    int
	agent   string
	attempt int
	retry   int
}

func merge(names []string, shards []Results) (Results, error) {
	rep := report.Report{SchemaVersion: report.SchemaVersion}
	var overrides []string
	seen := map[resultKey]string{}
	for i, sh := range shards {
		r := sh.Report()
		if !r.StartedAt.IsZero() && (rep.StartedAt.IsZero() || r.StartedAt.Before(rep.StartedAt)) {
			rep.StartedAt = r.StartedAt
		}
		rep.Duration = max(rep.Duration, r.Duration)
		rep.Interrupted = rep.Interrupted || r.Interrupted
		if r.PolicyOverride != "" && !slices.Contains(overrides, r.PolicyOverride) {
			overrides = append(overrides, r.PolicyOverride)
		}
		for _, sc := range r.Scenarios {
			k := resultKey{sc.File, sc.Line, sc.Agent.Name, sc.Attempt, sc.Retry}
			if prev, ok := seen[k]; ok {
				return Results{}, fmt.Errorf("%s: scenario %q (%s:%d) is also in %s: the shards overlap", names[i], label(sc), sc.File, sc.Line, prev)
			}
			seen[k] = names[i]
			rep.Scenarios = append(rep.Scenarios, sc)
		}
	}
	rep.PolicyOverride = strings.Join(overrides, ", ")
	slices.SortStableFunc(rep.Scenarios, func(a, b report.Result) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Agent.Name, b.Agent.Name),
			cmp.Compare(a.Attempt, b.Attempt),
			cmp.Compare(a.Retry, b.Retry),
		)
	})
	return NewResults(rep), nil
}
