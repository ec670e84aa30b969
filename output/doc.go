// Package output turns a runner.Report into the formats people read: the
// JSON results keyed by stop reason, and the human summary; and a
// runner.ProbeReport into probe's text and JSON. Formatters are pure
// functions of the report: every time they print comes from it.
package output
