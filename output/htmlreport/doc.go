// Package htmlreport renders acprun results as one self-contained HTML
// page: the run's counts, a bar chart of stop reasons, the pass-rate table
// of --repeat and --agent runs, every scenario's turns, tool calls, diffs,
// permission decisions and client requests, and a viewer for each
// scenario's transcript.
//
// The page needs no network and loads nothing: its CSS, JavaScript and SVG
// are inline. Everything in it that an agent controls is escaped by
// html/template (its long texts, a turn's text say, as html/template
// escapes them, but straight into the page as it is written, never
// copied), and a Content-Security-Policy lets only the page's own
// script and style run, so that agent text such as "</script>" or
// "<img onerror=…>" is shown as text and never executes.
package htmlreport
