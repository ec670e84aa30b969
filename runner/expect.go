package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/approve"
	"github.com/acprun/acprun/internal/inputfile"
	"github.com/acprun/acprun/internal/jail"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/internal/workspace"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// checkTurn returns one message per expectation the turn did not meet. It
// reads only what the turn itself produced (text, permissions and tool calls
// before the prompt's answer), which no late update changes. Usage, Files
// and Judge are not checked here: the runner calls checkTurnUsage (it needs
// the turn's own cost, which its record alone does not tell), checkFiles (it needs the workspace
// as the turn left it) and the judge.
func checkTurn(red *redact.Redactor, e scenario.Expect, t *report.TurnResult) []string {
	fails := checkStop(e, t)
	for _, s := range e.TextContains {
		if !strings.Contains(t.Text, s.Value) {
			fails = append(fails, fmt.Sprintf("%s: text does not contain %q", s.Pos, s.Value))
		}
	}
	if m := e.TextMatches; m != nil && !m.Re.MatchString(t.Text) {
		fails = append(fails, fmt.Sprintf("%s: text does not match /%s/", m.Pos, m.Re))
	}
	fails = append(fails, checkForbidden(red, "text", t.Text, 0, nil, e.TextNotContains, e.TextNotMatches)...)
	perms := kept(t.Permissions, func(p report.Permission) bool { return !p.Late })
	deniedPerms := len(kept(perms, func(p report.Permission) bool { return p.Decision == string(approve.Deny) }))
	reqs := kept(t.ClientRequests, func(c report.ClientRequest) bool { return !c.Late })
	fails = append(fails, checkDenied(e, deniedPerms, deniedCommands(reqs))...)
	if e.ToolCalls != nil {
		own := kept(t.ToolCalls, func(c report.ToolCall) bool { return !c.Late })
		calls := mapped(own, func(c report.ToolCall) observedCall { return observedCall{c.Kind, c.Title, c.Name, c.Status} })
		fails = append(fails, checkToolCalls(red, e.ToolCalls, calls, "the turn")...)
	}
	if e.Permissions != nil {
		fails = append(fails, checkPermissions(red, e.Permissions, perms, "the turn")...)
	}
	if e.Notices != nil {
		fails = append(fails, checkNotices(red, e.Notices, kept(t.Notices, func(n report.Notice) bool { return !n.Late }), "the turn")...)
	}
	return fails
}

// checkStop checks how the turn ended: its stop reason and, when acprun
// cancelled it, why.
func checkStop(e scenario.Expect, t *report.TurnResult) []string {
	var fails []string
	switch {
	case report.ExternalCause(t.CancelCause):
		// Cut short from outside the scenario: whatever the agent answered,
		// the turn did not end as the scenario would have it.
		fails = append(fails, fmt.Sprintf("%s: the turn did not finish: acprun cancelled it after %s, which no expectation accepts (%s)",
			e.Pos, t.CancelCause, stopGot(t)))
	case t.CancelCause == report.CauseBudget || t.CancelCause == report.CauseDivergence:
		// The budget's or the divergence's failure says why the turn did
		// not finish.
	case len(e.StopReasons) > 0 && !slices.Contains(e.StopReasons, t.StopReason):
		msg := fmt.Sprintf("%s: stopReason %s, want %s", cmp.Or(e.StopReasonPos, e.Pos), stopText(t.StopReason), strings.Join(e.StopReasons, " or "))
		if t.CancelCause != "" {
			msg += " (cancelled by acprun after " + t.CancelCause + ")"
		}
		if t.Error != "" {
			msg += " (" + t.Error + ")"
		}
		fails = append(fails, msg)
	case t.CancelCause != "" && !e.StopReasonSet:
		// A turn acprun had to cancel did not finish by itself, whatever
		// the agent answered; only an explicit expect.stopReason allows it.
		fails = append(fails, fmt.Sprintf("%s: the turn did not finish by itself: acprun cancelled it after %s and the agent answered %s (list %s in expect.stopReason to allow that)",
			e.Pos, t.CancelCause, stopText(t.StopReason), stopText(t.StopReason)))
	}
	if len(e.CancelCauses) > 0 && !report.ExternalCause(t.CancelCause) && !slices.Contains(e.CancelCauses, t.CancelCause) {
		got := "the turn was not cancelled"
		if t.CancelCause != "" {
			got = "acprun cancelled the turn after " + t.CancelCause
		}
		fails = append(fails, fmt.Sprintf("%s: cancelCause: %s, want %s", e.CancelCausePos, got, strings.Join(e.CancelCauses, " or ")))
	}
	return fails
}

// maxStopText is how many characters of a stop reason a message quotes:
// the agent chose it, and may have sent 100 KB; the turn's stopReason
// keeps it whole.
const maxStopText = 200

// stopText is stop, a stop reason the agent sent, as a message quotes it:
// on one line, cut at maxStopText characters (marked "…").
func stopText(stop string) string { return termtext.OneLine(termtext.Cut(stop, maxStopText)) }

// stopGot says how t ended, for messages: "the agent answered cancelled",
// or for an outcome acprun recorded in place of a stop reason the agent
// did not give, the outcome and its error ("unresponsive: no answer to
// session/cancel within 10s; the agent was stopped").
func stopGot(t *report.TurnResult) string {
	switch {
	case !report.IsOutcome(t.StopReason):
		return "the agent answered " + stopText(t.StopReason)
	case t.Error != "":
		return t.StopReason + ": " + t.Error
	}
	return t.StopReason + ": the agent gave no stop reason"
}

// checkScenario checks the scenario-level expectations, over everything
// the scenario's turns recorded, late updates and the permission requests
// before the first turn included; spent is the session's total cost
// (sessionSpent), in currency (Scenario.CostCurrency) when it is counted
// in it. Files and Judge are the runner's.
func checkScenario(red *redact.Redactor, e scenario.Expect, r *report.Result, spent costValue, currency string) []string {
	commands := deniedCommands(r.SetupClientRequests)
	for _, t := range r.Turns {
		commands += deniedCommands(t.ClientRequests)
	}
	fails := checkDenied(e, r.Denied-commands, commands)
	if e.ToolCalls != nil {
		var calls []observedCall
		for _, t := range r.Turns {
			for _, c := range t.ToolCalls {
				calls = append(calls, observedCall{cmp.Or(c.LateKind, c.Kind), cmp.Or(c.LateTitle, c.Title), cmp.Or(c.LateName, c.Name), cmp.Or(c.LateStatus, c.Status)})
			}
		}
		fails = append(fails, checkToolCalls(red, e.ToolCalls, calls, "the scenario")...)
	}
	if e.Permissions != nil {
		perms := slices.Clone(r.SetupPermissions)
		for _, t := range r.Turns {
			perms = append(perms, t.Permissions...)
		}
		fails = append(fails, checkPermissions(red, e.Permissions, perms, "the scenario")...)
	}
	if e.Usage != nil {
		fails = append(fails, checkScenarioUsage(e.Usage, r.Turns, spent, currency)...)
	}
	if e.Notices != nil {
		notices := slices.Clone(r.SetupNotices)
		for _, t := range r.Turns {
			notices = append(notices, t.Notices...)
		}
		fails = append(fails, checkNotices(red, e.Notices, notices, "the scenario")...)
	}
	return fails
}

// deniedCommands counts the terminal commands the policy denied among reqs.
func deniedCommands(reqs []report.ClientRequest) int {
	return len(kept(reqs, func(c report.ClientRequest) bool { return c.Decision == string(approve.Deny) }))
}

// checkDenied checks expect.denied and maxDenied against what the policy
// refused: perms permission requests and commands terminal commands.
func checkDenied(e scenario.Expect, perms, commands int) []string {
	var fails []string
	denied := perms + commands
	what := plural(perms, "permission request", "permission requests")
	if commands > 0 {
		what += " and " + plural(commands, "terminal command", "terminal commands")
	}
	if e.Denied != nil && denied != *e.Denied {
		fails = append(fails, fmt.Sprintf("%s: %s denied, want %d", cmp.Or(e.DeniedPos, e.Pos), what, *e.Denied))
	}
	if e.MaxDenied != nil && denied > *e.MaxDenied {
		fails = append(fails, fmt.Sprintf("%s: %s denied, want at most %d", cmp.Or(e.MaxDeniedPos, e.Pos), what, *e.MaxDenied))
	}
	return fails
}

// maxListed is how many actual items a failure message lists before
// "… and N more".
const maxListed = 5

// listed joins items for a failure message, at most maxListed of them,
// each kept to one line (termtext.OneLine): a path or an id the agent
// chose cannot break the message.
func listed(items []string) string {
	shown := mapped(items[:min(len(items), maxListed)], termtext.OneLine)
	if len(items) <= maxListed {
		return strings.Join(shown, ", ")
	}
	return fmt.Sprintf("%s … and %d more", strings.Join(shown, ", "), len(items)-maxListed)
}

// mapped is f of each item of s, in order; nil for none.
func mapped[T, U any](s []T, f func(T) U) []U {
	var out []U
	for _, v := range s {
		out = append(out, f(v))
	}
	return out
}

// kept is the items of s that keep reports true for, in order; nil for
// none.
func kept[T any](s []T, keep func(T) bool) []T {
	var out []T
	for _, v := range s {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// shorten is s, text that may hold a secret, for a message: redacted with
// red and cut to at most n runes, the cut marked with "…". The part kept
// is redacted knowing all of s (redact.Redactor.Excerpt), so that it shows
// no part of a secret that the cut goes through. Every cut of such text
// for a message goes through shorten, or through red.Excerpt.
func shorten(red *redact.Redactor, s string, n int) string {
	if j := runeOffset(s, n); j < len(s) {
		return red.Excerpt(s, 0, j, false) + "…"
	}
	return red.String(s)
}

// runeOffset is the byte offset in s of its rune n, len(s) when s has
// no more than n runes.
func runeOffset(s string, n int) int {
	i := 0
	for j := range s {
		if i == n {
			return j
		}
		i++
	}
	return len(s)
}

// quoted is s shortened (see shorten) and quoted, for a failure message.
func quoted(red *redact.Redactor, s string) string { return strconv.Quote(shorten(red, s, 60)) }

// plural is "1 tool call" or "2 tool calls".
func plural(n int, one, many string) string {
	return strconv.Itoa(n) + " " + pluralWord(n, one, many)
}

// pluralWord is one for n == 1, else many.
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// match is "1 tool call matches" or "2 tool calls match".
func match(n int, one, many string) string {
	return plural(n, one, many) + pluralWord(n, " matches", " match")
}

// matchesPattern reports whether a tool call (or permission request) of
// kind, title and tool name matches a toolCalls or permissions pattern: a
// pattern that is one of scenario.ToolKinds matches the kind (a call
// without one is "other", ACP's default), any other pattern is a glob on
// the title or on the name, with the semantics of a rule's title and tool
// matchers (approve.MatchTitle).
func matchesPattern(pattern, kind, title, name string) bool {
	if slices.Contains(scenario.ToolKinds, pattern) {
		return cmp.Or(kind, "other") == pattern
	}
	return approve.MatchTitle(pattern, title) || name != "" && approve.MatchTitle(pattern, name)
}

// describe names a tool call or permission request in a failure message:
// its kind, quoted title and tool name.
func describe(red *redact.Redactor, kind, title, name string) string {
	var s string
	switch {
	case kind == "":
		s = quoted(red, title)
	case title == "":
		s = termtext.OneLine(kind)
	default:
		s = termtext.OneLine(kind) + " " + quoted(red, title)
	}
	if name != "" {
		s += " (tool " + termtext.OneLine(name) + ")"
	}
	return s
}

// observedCall is a tool call as the expectations see it: Status is the
// status it ended with in the scope checked.
type observedCall struct {
	Kind, Title, Name, Status string
}

// describe names c in a failure message (see describe).
func (c observedCall) describe(red *redact.Redactor) string {
	return describe(red, c.Kind, c.Title, c.Name)
}

// describeCalls lists calls for a failure message, or says there are none.
func describeCalls(red *redact.Redactor, calls []observedCall, scope string) string {
	if len(calls) == 0 {
		return scope + " made no tool calls"
	}
	return scope + "'s tool calls: " + listCalls(red, calls)
}

func matchingCalls(pattern string, calls []observedCall) []observedCall {
	return kept(calls, func(c observedCall) bool { return matchesPattern(pattern, c.Kind, c.Title, c.Name) })
}

// checkToolCalls checks e against calls, in arrival order; scope ("the
// turn", "the scenario") names them in messages.
func checkToolCalls(red *redact.Redactor, e *scenario.ToolCallsExpect, calls []observedCall, scope string) []string {
	var fails []string
	for _, p := range e.Used {
		if len(matchingCalls(p.Value, calls)) == 0 {
			fails = append(fails, fmt.Sprintf("%s: toolCalls.used: no tool call matches %q (%s)", p.Pos, p.Value, describeCalls(red, calls, scope)))
		}
	}
	for _, p := range e.NotUsed {
		if m := matchingCalls(p.Value, calls); len(m) > 0 {
			fails = append(fails, fmt.Sprintf("%s: toolCalls.notUsed: %s %q: %s", p.Pos, match(len(m), "tool call", "tool calls"), p.Value, listCalls(red, m)))
		}
	}
	for _, c := range e.Count {
		fails = append(fails, checkCount(red, c, calls, scope)...)
	}
	if e.Status.Value != "" {
		var wrong []string
		for _, c := range calls {
			if c.Status != e.Status.Value {
				wrong = append(wrong, fmt.Sprintf("%s (%s)", c.describe(red), cmp.Or(termtext.OneLine(c.Status), "no status")))
			}
		}
		if len(wrong) > 0 {
			fails = append(fails, fmt.Sprintf("%s: toolCalls.status: %s of %d did not end %s: %s",
				e.Status.Pos, plural(len(wrong), "tool call", "tool calls"), len(calls), e.Status.Value, listed(wrong)))
		}
	}
	fails = append(fails, checkSequence(red, e.Sequence, calls, scope)...)
	return fails
}

func listCalls(red *redact.Redactor, calls []observedCall) string {
	return listed(mapped(calls, func(c observedCall) string { return c.describe(red) }))
}

func checkCount(red *redact.Redactor, c scenario.CountExpect, calls []observedCall, scope string) []string {
	m := matchingCalls(c.Pattern, calls)
	n := len(m)
	var ok bool
	var want string
	switch c.Op {
	case "==":
		ok, want = n == c.N, strconv.Itoa(c.N)
	case "<=":
		ok, want = n <= c.N, "at most "+strconv.Itoa(c.N)
	case ">=":
		ok, want = n >= c.N, "at least "+strconv.Itoa(c.N)
	default:
		return []string{fmt.Sprintf("%s: toolCalls.count: unknown comparison %q for %q", c.Pos, c.Op, c.Pattern)}
	}
	if ok {
		return nil
	}
	msg := fmt.Sprintf("%s: toolCalls.count: %s %q, want %s", c.Pos, match(n, "tool call", "tool calls"), c.Pattern, want)
	if n > c.N {
		msg += " (" + listCalls(red, m) + ")"
	} else {
		msg += " (" + describeCalls(red, calls, scope) + ")"
	}
	return []string{msg}
}

// checkSequence checks that the patterns match, in order, a subsequence of
// calls. Taking the earliest match of each pattern is optimal: a later one
// leaves fewer calls for the rest.
func checkSequence(red *redact.Redactor, seq []scenario.Located, calls []observedCall, scope string) []string {
	next := 0
	for i, p := range seq {
		found := false
		for next < len(calls) {
			c := calls[next]
			next++
			if matchesPattern(p.Value, c.Kind, c.Title, c.Name) {
				found = true
				break
			}
		}
		if found {
			continue
		}
		if i == 0 {
			return []string{fmt.Sprintf("%s: toolCalls.sequence: no tool call matches %q (%s)", p.Pos, p.Value, describeCalls(red, calls, scope))}
		}
		done := mapped(seq[:i], func(l scenario.Located) string { return l.Value })
		return []string{fmt.Sprintf("%s: toolCalls.sequence: matched %s; no later tool call matches %q (%s)",
			p.Pos, listed(done), p.Value, describeCalls(red, calls, scope))}
	}
	return nil
}

// checkPermissions checks e against the permission requests perms; scope
// names them in messages.
func checkPermissions(red *redact.Redactor, e *scenario.PermissionsExpect, perms []report.Permission, scope string) []string {
	var fails []string
	matching := func(pattern string) []string {
		var out []string
		for _, p := range perms {
			if matchesPattern(pattern, p.Kind, p.Title, p.Name) {
				out = append(out, fmt.Sprintf("%s (%s)", describe(red, p.Kind, p.Title, p.Name), p.Decision))
			}
		}
		return out
	}
	for _, p := range e.Requested {
		if len(matching(p.Value)) > 0 {
			continue
		}
		actual := scope + " made no permission requests"
		if len(perms) > 0 {
			actual = scope + "'s permission requests: " + listed(mapped(perms, func(q report.Permission) string { return describe(red, q.Kind, q.Title, q.Name) }))
		}
		fails = append(fails, fmt.Sprintf("%s: permissions.requested: no permission request matches %q (%s)", p.Pos, p.Value, actual))
	}
	for _, p := range e.NotRequested {
		if m := matching(p.Value); len(m) > 0 {
			fails = append(fails, fmt.Sprintf("%s: permissions.notRequested: %s %q: %s",
				p.Pos, match(len(m), "permission request", "permission requests"), p.Value, listed(m)))
		}
	}
	return fails
}

// gatewayCounts is the hint of a cost that is not known: the agent
// reported none, and no gateway priced its model requests.
const gatewayCounts = "a gateway (gateway: meter, with the config file's prices) counts what its model requests cost"

// gatewayCountsTokens is the hint of a token count that is not known: the
// agent reported none, and a gateway counts them.
const gatewayCountsTokens = "a gateway (gateway: meter) counts the tokens of its model requests"

// costValue is a cost, and whether one was reported (ok).
type costValue struct {
	amount   float64
	currency string
	ok       bool
}

// costIn is the cost usage u holds: none when u is nil or reports neither
// a cost nor a currency.
func costIn(u *report.Usage) costValue {
	if u == nil || (u.Currency == "" && u.Cost == 0) {
		return costValue{}
	}
	return costValue{u.Cost, u.Currency, true}
}

// turnCost is what one played turn tells of the session's cost, from two
// sources that mean different things: metered, the price the gateway put
// on the turn's own model requests (what its record's usage.cost then
// holds); agent and late, the session's cumulative cost as the agent's
// last usage_update before the prompt's answer and after it reported it
// (ACP's usage_update cost is the session's total so far).
type turnCost struct {
	index                int // the turn's Index, from 1
	metered, agent, late costValue
}

// turnSpend is one turn's own cost. When it comes from the agent's
// cumulative cost, grew says so and from and to are that cost before and
// after the turn.
type turnSpend struct {
	costValue
	grew     bool
	from, to float64
}

// costTally is the session's spending over the turns so far, each cost
// taken in its own meaning: a turn's own cost is the gateway's price of
// its model requests when the gateway priced some, else what the agent's
// cumulative cost grew by during the turn; the session's total is the sum
// of the turns' own costs and of what the agent's cumulative cost grew by
// after their answers. A cumulative cost lower than the one before it (an
// agent that reports each turn's own) is taken as it is.
//
// Costs are counted in one currency (Scenario.CostCurrency), as acprun
// converts none: a cost in another, or the growth from a cost in one to a
// cost in another, is no amount in it. Such a value keeps that other
// currency, and so does a total it is added to: the checks then say that
// the currencies differ instead of comparing (otherCurrency).
type costTally struct {
	currency string
	turns    []turnSpend // in the order of the turns given
	total    costValue
	// agent is the agent's last reported cumulative cost, by turn
	// agentTurn, after its answer when agentLate.
	agent     costValue
	agentTurn int
	agentLate bool
}

// tallyCosts adds up the costs of turns, in the order played, counted in
// currency.
func tallyCosts(turns []turnCost, currency string) costTally {
	c := costTally{currency: currency}
	for _, t := range turns {
		var s turnSpend
		switch {
		case t.metered.ok:
			s.costValue = t.metered
		case t.agent.ok:
			s.costValue = c.grown(t.agent)
			s.grew, s.from, s.to = c.agent.amount > 0 && t.agent.amount >= c.agent.amount, c.agent.amount, t.agent.amount
		}
		c.add(s.costValue)
		if t.agent.ok {
			c.agent, c.agentTurn, c.agentLate = t.agent, t.index, false
		}
		if t.late.ok {
			c.add(c.grown(t.late))
			c.agent, c.agentTurn, c.agentLate = t.late, t.index, true
		}
		c.turns = append(c.turns, s)
	}
	return c
}

// grownTo is what the agent's cumulative cost grew by to reach x: x itself
// when x is lower than the last one, as from an agent that reports each
// turn's own.
func (c *costTally) grownTo(x float64) float64 {
	if x >= c.agent.amount {
		return x - c.agent.amount
	}
	return x
}

// grown is what the agent's cumulative cost grew by to reach v (grownTo),
// in v's currency, or in the last one's when that is another currency
// than the tally's and v's is not: from a cost in one currency to a cost
// in another, the growth is no amount in the tally's.
func (c *costTally) grown(v costValue) costValue {
	g := costValue{c.grownTo(v.amount), v.currency, true}
	if c.agent.ok && !scenario.SameCurrency(c.agent.currency, v.currency) && scenario.SameCurrency(v.currency, c.currency) {
		g.currency = c.agent.currency
	}
	return g
}

// add adds v, when reported, to the session's total. A total that holds a
// cost in another currency than the tally's keeps that currency.
func (c *costTally) add(v costValue) {
	if !v.ok {
		return
	}
	currency := cmp.Or(c.total.currency, v.currency)
	if scenario.SameCurrency(currency, c.currency) && !scenario.SameCurrency(v.currency, c.currency) {
		currency = v.currency
	}
	c.total = costValue{c.total.amount + v.amount, currency, true}
}

// otherCurrency says why a maxCost in currency does not bound a cost that
// came in got, another currency (what says which cost: "the turn's
// cost"): acprun converts no currencies; so says what came of it ("it did
// not compare them").
func otherCurrency(what, got, currency, so string) string {
	return fmt.Sprintf("%s came in %s, and maxCost is in %s (the config file's currency:, %s when it names none); "+
		"acprun converts no currencies, so %s: set currency: %s in the config file to count costs in %s",
		what, got, currency, scenario.DefaultCurrency, so, got, got)
}

// roundCost removes float noise (0.1+0.2) before a cost is compared or shown.
func roundCost(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// formatCost shows a cost to at most 6 decimals, with its currency.
func formatCost(x float64, currency string) string {
	s := strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
	if currency != "" {
		s += " " + currency
	}
	return s
}

// checkTurnUsage checks a turn's usage expectations; the runner calls it
// after checkTurn, with e the turn's expect.usage (nil when unset) and
// spent the turn's own cost (costTally), which maxCost bounds in currency
// (Scenario.CostCurrency). The turn's tokens are its Usage.TotalTokens. A
// turn that reported no tokens or no cost, or its cost in another
// currency, fails the bound that needs them.
func checkTurnUsage(e *scenario.UsageExpect, t *report.TurnResult, spent turnSpend, currency string) []string {
	if e == nil {
		return nil
	}
	var fails []string
	if e.MaxTotalTokens != nil {
		pos := cmp.Or(e.MaxTokensPos, e.Pos)
		switch tokens, ok := turnTokens(t.Usage); {
		case !ok:
			fails = append(fails, fmt.Sprintf("%s: usage.maxTotalTokens: %s", pos, noTokens(t.Usage)))
		case tokens > *e.MaxTotalTokens:
			fails = append(fails, fmt.Sprintf("%s: usage.maxTotalTokens: %d tokens, want at most %d", pos, tokens, *e.MaxTotalTokens))
		}
	}
	if e.MaxCost != nil {
		pos := cmp.Or(e.MaxCostPos, e.Pos)
		switch {
		case !spent.ok:
			fails = append(fails, fmt.Sprintf("%s: usage.maxCost: the agent reported no cost; %s", pos, gatewayCounts))
		case !scenario.SameCurrency(spent.currency, currency):
			fails = append(fails, fmt.Sprintf("%s: usage.maxCost: %s", pos, otherCurrency("the turn's cost", spent.currency, currency, "it did not compare them")))
		case roundCost(spent.amount) > *e.MaxCost:
			spentIn := cmp.Or(spent.currency, currency) // an agent's cost without a currency is taken to be in maxCost's
			msg := fmt.Sprintf("%s: usage.maxCost: the turn cost %s, want at most %s", pos, formatCost(spent.amount, spentIn), formatCost(*e.MaxCost, currency))
			if spent.grew {
				msg += fmt.Sprintf(" (the session's cost went from %s to %s)", formatCost(spent.from, spentIn), formatCost(spent.to, spentIn))
			}
			fails = append(fails, msg)
		}
	}
	return fails
}

// turnTokens is the tokens a turn whose usage is u (nil for none) used:
// its totalTokens, when above 0. ok is false for a turn that reported none:
// no usage, one with only a usage_update's context and cost, or a
// prompt's answer whose total is 0. Budgets and expectations count a
// turn's tokens by it alike: a budget counts none as 0, an expectation
// fails on them (noTokens says why). The counts are never negative: the
// acp package refuses one (a protocol violation, the usage ignored).
func turnTokens(u *report.Usage) (tokens int64, ok bool) {
	if u == nil || u.TotalTokens <= 0 {
		return 0, false
	}
	return u.TotalTokens, true
}

// noTokens says why a turn whose usage is u reported no tokens (see
// turnTokens).
func noTokens(u *report.Usage) string {
	if u == nil || u.InputTokens == 0 && u.OutputTokens == 0 {
		return "the agent reported no token usage; " + gatewayCountsTokens
	}
	return fmt.Sprintf("the agent reported a totalTokens of 0 (inputTokens %d, outputTokens %d): no total to check", u.InputTokens, u.OutputTokens)
}

// turnRan reports whether the agent worked on the turn: any turn but one
// never played (skipped), which spent nothing. A turn that ran spent what
// it reported, or an unknown amount: one cancelled or ended by an error or
// an exit spent what the agent did before.
func turnRan(t *report.TurnResult) bool {
	return t.StopReason != "" && t.StopReason != report.OutcomeSkipped
}

// checkScenarioUsage checks the scenario's usage expectations: the tokens
// of all turns together, and spent, the session's total cost
// (sessionSpent), which maxCost bounds in currency. A total missing a turn
// that ran (see turnRan) without reporting tokens, however it ended,
// cannot be known, and fails unless it is over the bound anyway; so does a
// cost in another currency.
func checkScenarioUsage(e *scenario.UsageExpect, turns []report.TurnResult, spent costValue, currency string) []string {
	var fails []string
	if e.MaxTotalTokens != nil {
		pos := cmp.Or(e.MaxTokensPos, e.Pos)
		var sum int64
		reported := 0
		var missing []string
		for i := range turns {
			t := &turns[i]
			switch tokens, ok := turnTokens(t.Usage); {
			case ok:
				sum += tokens
				reported++
			case turnRan(t):
				turn := strconv.Itoa(t.Index)
				if t.StopReason == string(acp.StopCancelled) || report.IsOutcome(t.StopReason) {
					turn += " (" + t.StopReason + ")"
				}
				missing = append(missing, turn)
			}
		}
		switch {
		case reported == 0:
			fails = append(fails, fmt.Sprintf("%s: usage.maxTotalTokens: the agent reported no token usage; %s", pos, gatewayCountsTokens))
		case sum > *e.MaxTotalTokens:
			fails = append(fails, fmt.Sprintf("%s: usage.maxTotalTokens: %d tokens in all turns, want at most %d", pos, sum, *e.MaxTotalTokens))
		case len(missing) > 0:
			fails = append(fails, fmt.Sprintf("%s: usage.maxTotalTokens: the agent reported no token usage for %s %s, so the total is unknown (the other turns: %d tokens)",
				pos, pluralWord(len(missing), "turn", "turns"), listed(missing), sum))
		}
	}
	if e.MaxCost != nil {
		pos := cmp.Or(e.MaxCostPos, e.Pos)
		switch {
		case !spent.ok:
			fails = append(fails, fmt.Sprintf("%s: usage.maxCost: the agent reported no cost; %s", pos, gatewayCounts))
		case !scenario.SameCurrency(spent.currency, currency):
			fails = append(fails, fmt.Sprintf("%s: usage.maxCost: %s", pos, otherCurrency("the session's cost", spent.currency, currency, "it did not compare them")))
		case roundCost(spent.amount) > *e.MaxCost:
			fails = append(fails, fmt.Sprintf("%s: usage.maxCost: the session cost %s, want at most %s", pos, formatCost(spent.amount, cmp.Or(spent.currency, currency)), formatCost(*e.MaxCost, currency)))
		}
	}
	return fails
}

// checkFiles checks e (nil when unset) against the directory root, the
// workspace or the session cwd, and changed, the relative paths (with
// slashes) created, modified or deleted compared with the starting copy.
// known is false when the changes are unknown (no workspace, or they could
// not be listed): unchanged then fails rather than passing unchecked. An
// empty changed that is known is an agent that changed nothing, which
// every unchanged glob accepts. leftOut are the files of the workspace's
// source its copy left out (workspace.Workspace.LeftOut): a path of
// exists that is one of them fails saying so.
//
// The agent is untrusted and may have planted symlinks: paths are resolved
// inside root by package jail and files are opened through its os.Root, so
// a path leading outside root, or into one of hidden (the paths the
// sandbox hides from the agent), fails and what it leads to is never read.
// Only regular files are read (a FIFO is opened without waiting for a
// writer, then refused), of any size, as a stream (see checkContents),
// until ctx ends.
func checkFiles(ctx context.Context, red *redact.Redactor, e *scenario.FilesExpect, root string, hidden []string, leftOut []workspace.LeftOut, changed []string, known bool, in inputs) []string {
	if e == nil {
		return nil
	}
	var fails []string
	if ws, err := openWorkspace(root, hidden); err != nil {
		fails = append(fails, fmt.Sprintf("%s: files: cannot check the files: %v", e.Pos, err))
	} else {
		ws.leftOut = leftOut
		fails = ws.check(ctx, red, e, in)
		ws.close()
	}
	for _, u := range e.Unchanged {
		if !known {
			fails = append(fails, fmt.Sprintf("%s: files.unchanged: the changes to the files are unknown (unchanged needs a workspace whose changes could be listed)", u.Pos))
			continue
		}
		if hit := kept(changed, func(c string) bool { return matchFile(u.Value, c) }); len(hit) > 0 {
			fails = append(fails, fmt.Sprintf("%s: files.unchanged: %s matching %q %s changed: %s", u.Pos, plural(len(hit), "path", "paths"), u.Value, pluralWord(len(hit), "was", "were"), listed(hit)))
		}
	}
	return fails
}

// check checks the expectations of e on the files as they are now, all
// but unchanged, with the golden files read from in.
func (w *workspaceFiles) check(ctx context.Context, red *redact.Redactor, e *scenario.FilesExpect, in inputs) []string {
	var fails []string
	fail := func(pos scenario.Pos, format string, args ...any) {
		fails = append(fails, pos.String()+": "+fmt.Sprintf(format, args...))
	}
	for _, p := range e.Exists {
		if problem := w.existsGlob(p.Value); problem != "" {
			fail(p.Pos, "files.exists: %q %s", p.Value, problem)
		}
	}
	for _, p := range e.Absent {
		if found := w.foundGlob(p.Value); found != "" {
			fail(p.Pos, "files.absent: %q %s", p.Value, found)
		}
	}
	return append(fails, w.checkContents(ctx, red, e, in)...)
}

// workspaceFiles reads the files of a directory the agent worked in,
// without following symlinks out of it.
type workspaceFiles struct {
	dir      string     // as given, absolute
	resolved string     // dir resolved through symlinks
	jail     *jail.Jail // resolves paths inside dir
	root     *os.Root   // on resolved
	paths    []string   // see list; nil until listed
	listErr  error
	leftOut  []workspace.LeftOut // what the copy left out of the source (see checkFiles)
}

// openWorkspace opens dir for the files expectations, hidden (the paths
// the sandbox hides) refused in it.
func openWorkspace(dir string, hidden []string) (*workspaceFiles, error) {
	if dir == "" {
		return nil, errors.New("no workspace or session directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	j, err := jail.New([]string{abs}, jail.WithReadOnly(true), jail.WithHidden(hidden))
	if err != nil {
		return nil, err
	}
	resolved := j.Roots()[0]
	root, err := os.OpenRoot(resolved)
	if err != nil {
		j.Close()
		return nil, err
	}
	return &workspaceFiles{dir: abs, resolved: resolved, jail: j, root: root}, nil
}

func (w *workspaceFiles) close() {
	w.root.Close()
	w.jail.Close()
}

// errNotRelative: a path of an expectation is absolute or empty.
var errNotRelative = errors.New("is not a relative path")

// locate resolves rel, a relative slash path, through symlinks inside the
// workspace, and returns it relative to w.resolved. Errors are
// errNotRelative, or wrap jail.ErrOutside, jail.ErrHidden or the system's.
func (w *workspaceFiles) locate(rel string) (string, error) {
	if rel == "" || path.IsAbs(rel) || filepath.IsAbs(rel) {
		return "", errNotRelative
	}
	p, err := w.jail.Resolve(filepath.Join(w.dir, filepath.FromSlash(rel)))
	if err != nil {
		return "", err
	}
	return filepath.Rel(w.resolved, p)
}

// lstat is the file info of rel itself, a final symlink not followed.
func (w *workspaceFiles) lstat(rel string) (fs.FileInfo, error) {
	if rel == "" || path.IsAbs(rel) || filepath.IsAbs(rel) {
		return nil, errNotRelative
	}
	dir, base := path.Split(path.Clean(rel))
	r := base
	if dir != "" {
		d, err := w.locate(path.Clean(dir))
		if err != nil {
			return nil, err
		}
		r = filepath.Join(d, base)
	}
	return w.root.Lstat(r)
}

// problem says why rel could not be looked at, for a failure message.
func (w *workspaceFiles) problem(rel string, err error) string {
	switch {
	case errors.Is(err, errNotRelative):
		return err.Error()
	case errors.Is(err, jail.ErrOutside):
		return w.outside(rel)
	case errors.Is(err, jail.ErrHidden):
		return w.hidden(rel)
	case notExist(err):
		return "does not exist"
	}
	return "cannot be checked: " + innerError(err).Error()
}

// hidden says how rel, which resolves into a path the sandbox hides, leads
// there: the first of its components that does. What is there is never
// read, nor quoted.
func (w *workspaceFiles) hidden(rel string) string {
	parts := strings.Split(path.Clean(rel), "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if _, err := w.locate(prefix); !errors.Is(err, jail.ErrHidden) {
			continue
		}
		if fi, err := w.lstat(prefix); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if i == len(parts)-1 {
				return "is a symlink to a path the sandbox hides"
			}
			return fmt.Sprintf("leads to a path the sandbox hides: %s is a symlink into it", termtext.OneLine(prefix))
		}
		break
	}
	return "is hidden by the sandbox"
}

// outside says how rel, which resolves outside the workspace, leads there:
// the first of its components that does.
func (w *workspaceFiles) outside(rel string) string {
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "leads outside the workspace"
	}
	parts := strings.Split(clean, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if _, err := w.locate(prefix); errors.Is(err, jail.ErrOutside) {
			if prefix == clean {
				return "is a symlink that leads outside the workspace"
			}
			return fmt.Sprintf("leads outside the workspace: %s is a symlink to outside it", termtext.OneLine(prefix))
		}
	}
	return "leads outside the workspace"
}

// exists says why rel does not exist as a file or directory ("" when it
// does), following symlinks inside the workspace.
func (w *workspaceFiles) exists(rel string) string {
	r, err := w.locate(rel)
	if err == nil {
		_, err = w.root.Stat(r)
	}
	switch {
	case err == nil:
		return ""
	case notExist(err):
		if fi, lerr := w.lstat(rel); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "does not exist (it is a dangling symlink)"
		}
		if l, ok := w.leftOutAt(rel); ok {
			return fmt.Sprintf("does not exist: the workspace's source has it, but as %s, which a copy leaves out", inputfile.Kind(l.Type))
		}
	}
	return w.problem(rel, err)
}

// leftOutAt finds rel among the files the copy left out.
func (w *workspaceFiles) leftOutAt(rel string) (workspace.LeftOut, bool) {
	i := slices.IndexFunc(w.leftOut, func(l workspace.LeftOut) bool { return l.Path == path.Clean(rel) })
	if i < 0 {
		return workspace.LeftOut{}, false
	}
	return w.leftOut[i], true
}

// matchFile reports whether the workspace path p (relative, with slashes)
// matches the glob pattern (see approve.MatchPath) or lies under a
// directory that does: as in .gitignore, a pattern that names a directory
// covers everything under it. files.exists, absent and unchanged and
// workspace.protect match paths so.
func matchFile(pattern, p string) bool {
	for ; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		if approve.MatchPath(pattern, p) {
			return true
		}
	}
	return false
}

// list lists the paths of the workspace once, relative with slashes,
// directories included, each directory followed by what is under it: all
// but the .git entry at the root and what the sandbox hides (a hidden
// directory is not read).
func (w *workspaceFiles) list() ([]string, error) {
	if w.paths != nil || w.listErr != nil {
		return w.paths, w.listErr
	}
	w.paths = []string{}
	w.listErr = fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case p == ".":
			return err
		case err != nil:
			return nil // a directory that cannot be read: what was listed stays
		}
		if _, lerr := w.locate(p); p == ".git" || errors.Is(lerr, jail.ErrHidden) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		w.paths = append(w.paths, p)
		return nil
	})
	return w.paths, w.listErr
}

// matching lists the paths of the workspace that pattern matches (see
// matchFile), the paths under a matching directory left out.
func (w *workspaceFiles) matching(pattern string) ([]string, error) {
	paths, err := w.list()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if len(out) > 0 && strings.HasPrefix(p, out[len(out)-1]+"/") {
			continue
		}
		if matchFile(pattern, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// existsGlob is exists for a path of files.exists: a glob (see
// scenario.IsGlob) exists when a path it matches does.
func (w *workspaceFiles) existsGlob(pattern string) string {
	if !scenario.IsGlob(pattern) {
		return w.exists(pattern)
	}
	m, err := w.matching(pattern)
	switch {
	case err != nil:
		return "cannot be checked: " + innerError(err).Error()
	case len(m) == 0:
		const none = "matches no path of the workspace"
		for _, l := range w.leftOut {
			if matchFile(pattern, l.Path) {
				return fmt.Sprintf("%s: the workspace's source has %s, but as %s, which a copy leaves out", none, termtext.OneLine(l.Path), inputfile.Kind(l.Type))
			}
		}
		return none + " (a glob is relative to its root: ** for any directories)"
	}
	problem := ""
	for _, p := range m {
		if problem = w.exists(p); problem == "" {
			return ""
		}
	}
	return fmt.Sprintf("matches no path that exists: %s %s", termtext.OneLine(m[0]), problem)
}

// foundGlob is found for a path of files.absent: a glob (see
// scenario.IsGlob) is found when it matches any path.
func (w *workspaceFiles) foundGlob(pattern string) string {
	if !scenario.IsGlob(pattern) {
		return w.found(pattern)
	}
	m, err := w.matching(pattern)
	switch {
	case err != nil:
		return "cannot be checked: " + innerError(err).Error()
	case len(m) == 0:
		return ""
	}
	return fmt.Sprintf("matches %s: %s", plural(len(m), "path", "paths"), listed(m))
}

// found describes what is at rel ("" when nothing is): a symlink counts,
// also a dangling one.
func (w *workspaceFiles) found(rel string) string {
	fi, err := w.lstat(rel)
	switch {
	case notExist(err):
		return ""
	case err != nil:
		return w.problem(rel, err)
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return "exists (a file of " + plural(int(fi.Size()), "byte", "bytes") + ")"
	case m.IsDir():
		return "exists (a directory)"
	case m&fs.ModeSymlink != 0:
		return "exists (a symlink)"
	}
	return "exists"
}

// open opens the regular file rel for reading, or returns a problem
// saying why it cannot be read.
func (w *workspaceFiles) open(rel string) (*os.File, string) {
	if problem := w.exists(rel); problem != "" {
		return nil, problem
	}
	f, err := w.jail.OpenRead(filepath.Join(w.dir, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, jail.ErrNotFound):
		return nil, "does not exist"
	case errors.Is(err, jail.ErrOutside):
		return nil, w.outside(rel)
	case errors.Is(err, jail.ErrHidden):
		return nil, w.hidden(rel)
	case errors.Is(err, jail.ErrNotRegular):
		if r, err := w.locate(rel); err == nil {
			if fi, err := w.root.Stat(r); err == nil && fi.IsDir() {
				return nil, "is a directory"
			}
		}
		return nil, "is not a regular file"
	case err != nil:
		return nil, "cannot be read: " + innerError(err).Error()
	}
	return f, ""
}

func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// innerError is err without the operation and path of a *fs.PathError,
// which the message names already, or which is acprun's own business.
func innerError(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
