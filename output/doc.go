// Package output writes what the runner produced in the formats people
// and tools read: a runner.Report as JSON results keyed by stop reason,
// JUnit XML, JSONL events, GitHub annotations and the human summary (with
// the progress shown while it runs), and the JSON results of shards merged
// into one; a runner.ProbeReport as probe's text and JSON; and the plans of
// runner.DryRun as --dry-run's text. Formatters are pure functions of what
// they are given: every time they print comes from it.
package output
