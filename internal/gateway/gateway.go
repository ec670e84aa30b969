// Package gateway is acprun's model gateway: an HTTP server on the loopback
// interface that sits between agents and their model providers. acprun
// points an agent's base-URL variable at a [Route] of the run's [Server];
// each request the agent makes to its model then goes through the
// [Attempt] the route is bound to, which, by its [Mode]:
//
//   - record: forwards it to the route's upstream, streams the answer back
//     as it arrives, and keeps the exchange (a normalised, redacted request
//     summary and the response's events with their relative times) for the
//     attempt's cassette, written by [Attempt.Close];
//   - replay: answers from the cassette, with no network, matching each
//     request to the first unplayed recorded one it equals; a request that
//     does not match is a divergence, answered with an error the agent does
//     not retry, which ends the replay when a turn waited on the request;
//   - meter: forwards it, keeping nothing.
//
// In every mode the usage the provider reports in its answer (input,
// output and cache tokens) is added to the attempt's [Spent], priced by the
// attempt's price table, and before a request starts the attempt's Admit
// function may refuse it (a budget), answered with the provider's own
// rate-limit error.
//
// The provider formats (Anthropic Messages, OpenAI Chat Completions and
// Responses, Gemini generateContent, streaming or not) are told by the
// request's path; see package provider.
package gateway

import (
	"os"
	"time"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/redact"
)

// Mode is what an Attempt does with the requests it gets.
type Mode string

// The modes.
const (
	Record Mode = "record"
	Replay Mode = "replay"
	Meter  Mode = "meter"
)

// DummyKey is the API key an agent gets in replay, where no key is needed.
const DummyKey = "acprun-replay-no-key"

// Price is what a model costs per million tokens of each kind, in the
// currency of the prices it came with.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Usage is token counts, as providers report them (Input excludes cached
// tokens read or written).
type Usage = provider.Usage

// Spent is what an attempt's requests have cost so far.
type Spent struct {
	// Requests is the number of model requests started: those to a path
	// of a provider API (package provider); refused ones are not counted,
	// and in replay one that diverged is. Requests to other paths go
	// through (recorded, replayed) uncounted, and Admit is not asked
	// about them; HEAD requests (connectivity checks) are forwarded in
	// record and meter, answered 200 in replay, and never kept.
	Requests int
	Usage    Usage
	// Cost is what the requests whose model has a price in the
	// attempt's Prices cost; Priced is how many they are. Unpriced lists
	// the models of the others (in first-use order): their cost is
	// unknown, so that Cost is then a lower bound.
	Cost     float64
	Priced   int
	Unpriced []string
	// Models lists the models asked for, in first-use order.
	Models []string
	// Unmetered is the number of requests answered in full (a 2xx
	// status) whose answer reported no usage: Usage and Cost leave them
	// out, and a budget could not count them.
	Unmetered int
}

// EventKind says what an Event is about.
type EventKind int

// The event kinds.
const (
	// Refused: Admit refused a request; Message is what it said.
	Refused EventKind = iota + 1
	// Diverged: in replay, a request matched no recorded one; Message
	// names the request and the first field that differs.
	Diverged
)

// CancelledHeader is the header of the gateway's refusal (a budget passed,
// a replay's divergence) whose turn the runner cancelled before answering:
// session/cancel is on its way to the agent, and the refusal is that
// cancel's doing. The mock agent takes it for the cancel, so its turn ends
// the same whichever of the two it reads first. Its value is
// "session/cancel".
const CancelledHeader = "Acprun-Cancelled"

// Event is something the runner must act on at once (cancel the turn).
type Event struct {
	Kind    EventKind
	Message string
}

// Config is how an Attempt works.
type Config struct {
	Mode Mode
	// Cassette is the cassette's path: written by Close in record (its
	// directory is created), read by Open in replay; unused in meter.
	Cassette string
	// Dir, when set, is the cassette's directory, opened before any agent
	// could write in it: record writes the cassette in it (see
	// outfile.WriteIn), so that a symlink an agent put at the cassette's
	// place, or at its directory's, is replaced rather than followed.
	Dir *os.Root
	// Pinned, when set, is the cassette pinned before any agent could
	// write where it is: replay reads it through it, so that a symlink an
	// agent put at its place since is refused rather than followed.
	Pinned *inputfile.Pinned
	// Timing, in replay, answers at the recorded pace; else at once.
	Timing bool
	// Redact removes every secret acprun knows from what the cassette
	// keeps; API keys are never kept whatever it holds.
	Redact *redact.Redactor
	// Messages redacts the cuts of what the attempt's messages quote of
	// a request (a divergence's excerpts) knowing the whole value: the
	// secrets the run redacts its outputs of, which the cassette's (Redact)
	// may not all be, so that no part of one a cut goes through is shown.
	// nil: the cuts are shown as they are, redacted of Redact's secrets
	// and the request's own keys only. It takes the request's own keys
	// (its credential headers and secret query parameters) as each request
	// comes, before it goes upstream (redact.Redactor.Add): an agent's key
	// that acprun was not told of (read from the agent's own config, or
	// from a variable of no secret-looking name) is then redacted from
	// what the run writes after, such as a provider's error that names it.
	Messages *redact.Redactor
	// Paths are replaced by their names in what is matched and kept, so
	// that a cassette recorded in one workspace replays in another:
	// "<workspace>" → the session's cwd, "<home>", "<tmp>"…, each name with
	// every path that stands for it (the path as given and where it leads,
	// symlinks resolved, as an agent's getcwd() says it). A path is
	// replaced where it stands as a path of its own (not inside a longer
	// name), the longest first, written as it is or escaped as in a JSON
	// string (the answers kept are JSON as the provider wrote it); in the
	// answers replayed, the names are replaced by the first path of each.
	Paths map[string][]string
	// Prices maps a model to its price (the caller knows their currency).
	Prices map[string]Price
	// Admit, if set, is asked before a request starts, with what was
	// spent before it; a non-empty answer refuses the request. It is asked
	// about one request at a time (a budget of one request admits one
	// even when two come at once), and may call the attempt's Spent.
	Admit func(Spent) string
	// OnEvent, if set, is told of refusals and divergences as they
	// happen, from the request's goroutine; the request is answered once
	// it returns (the runner returns once the turn's cancel is out). It
	// reports whether the agent's turn, still waiting for its answer, was
	// cancelled before that answer (session/cancel is out), which the
	// answer then says (CancelledHeader). A divergence it reports false
	// for (no turn waited on the request) does not end the replay; without
	// OnEvent every divergence does.
	OnEvent func(Event) (cancelled bool)
	// Now is the clock (tests); nil for time.Now.
	Now func() time.Time
}
