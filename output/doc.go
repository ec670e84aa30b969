// Package output writes what acprun shows people and tools, each format a
// pure function of the data it is given: a report.Report as JUnit XML,
// GitHub annotations and step summary, and the human summary (Text, and
// the Line of each result); a runner.ProbeReport as probe's text and JSON;
// the plans of runner.DryRun as --dry-run's text; an Explanation of one
// permission decision; the table of named agents; and the lines of list
// and validate. Everything they print comes from what they are given, the
// time included. The JSON results are report's own document
// (report.Write), the HTML report is output/htmlreport, and what is shown
// while a run goes on is output/progress.
package output
