package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"time"
)

// BalanceFingerprint is a short fingerprint of the durations a sharded
// run balanced its shards by (ReadDurations): the first 12 hex digits of
// the SHA-256 of each name and duration, sorted by name. Shards balanced
// from the same durations have the same fingerprint, and only those
// together are exactly the selection.
func BalanceFingerprint(ds map[string]time.Duration) string {
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(ds)) {
		fmt.Fprintf(h, "%q %d\n", name, ds[name])
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// ReadDurations reads the results file path of an earlier run and returns
// how long each scenario took in it, by name: the durations of every
// result of that name added up (its agents, attempts and retries, as a
// run with the same flags would spend them again). Scenarios that never
// started (notRun) took nothing and are left out. Its errors name the
// file, at the value that is wrong (see Read); one that does not exist
// is an error that errors.Is fs.ErrNotExist.
func ReadDurations(path string) (map[string]time.Duration, error) {
	res, err := readFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Duration{}
	for _, r := range res.Scenarios {
		if !r.NotRun {
			out[r.Name] += r.Duration
		}
	}
	return out, nil
}
