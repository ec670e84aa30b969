// Package output writes what acprun shows people and tools, each format a
// function of the data it is given: a report.Report as JUnit XML, JSONL
// events, GitHub annotations and the human summary (with the progress shown
// while it runs); a runner.ProbeReport as probe's text and JSON; the plans
// of runner.DryRun as --dry-run's text; an Explanation of one permission
// decision; the table of named agents; and the lines of list and validate.
// Formatters are pure: every time they print comes from what they are
// given. The JSON results are report's own document (report.Write).
package output
