// Package output turns a runner.Report into the formats people read: the
// JSON results keyed by stop reason, and the human summary. Formatters are
// pure functions of the Report: every time they print comes from it.
package output
