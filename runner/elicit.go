package runner

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
	"github.com/acprun/acprun/internal/termtext"
	"github.com/acprun/acprun/report"
	"github.com/acprun/acprun/scenario"
)

// maxElicitations bounds the questions recorded for a turn (or before the
// first turn).
const maxElicitations = 100

// answerBook holds the answers a scenario scripts for the agent's
// questions: the scenario's, and each turn's (turns[i] for turn i+1). It
// is only read once the session exists.
type answerBook struct {
	scenario []scenario.AnswerSet
	turns    [][]scenario.AnswerSet
}

// newAnswerBook is the answer book of sc; nil when it scripts no answers.
func newAnswerBook(sc *scenario.Scenario) *answerBook {
	if !sc.HasAnswers() {
		return nil
	}
	b := &answerBook{scenario: sc.Answers}
	for _, t := range sc.Turns {
		b.turns = append(b.turns, t.Answers)
	}
	return b
}

// sets returns the answer sets for a question in turn index (from 1; 0
// before the first turn), in the order they are tried: the turn's, then
// the scenario's.
func (b *answerBook) sets(index int) []scenario.AnswerSet {
	if b == nil {
		return nil
	}
	var out []scenario.AnswerSet
	if index >= 1 && index <= len(b.turns) {
		out = append(out, b.turns[index-1]...)
	}
	return append(out, b.scenario...)
}

// elicit answers an elicitation/create of the agent, in its place in the
// stream: from the answers of the running turn and the scenario for a form
// it can fill, else declined (a URL elicitation always is), or cancelled
// when the turn is being cancelled; the question and its answer are
// recorded with the running turn (or the setup), and a declined one gets a
// warning. Like a permission request, a cancelled answer goes out only
// after session/cancel.
func (s *session) elicit(ctx context.Context, req *acp.Request) (any, error) {
	var p acp.CreateElicitationRequest
	if err := req.DecodeParams(&p); err != nil {
		s.violation(fmt.Sprintf("elicitation/create: %v", err))
		return nil, acp.NewError(acp.CodeInvalidParams, "elicitation/create: %v", err)
	}
	s.mu.Lock()
	t := s.current()
	index := 0
	if t != nil {
		index = t.rec.Index
	}
	var resp acp.CreateElicitationResponse
	var rec report.Elicitation
	cancelled := t != nil && isClosed(t.cancelled)
	if cancelled {
		resp, rec = acp.CreateElicitationResponse{Action: acp.ElicitationCancel}, questionRecord(&p)
		rec.Action, rec.Reason = acp.ElicitationCancel, "the turn was being cancelled"
	} else {
		resp, rec = answerQuestion(&p, s.answers != nil, s.answers.sets(index))
	}
	warn := ""
	if rec.Action == acp.ElicitationDecline {
		warn = fmt.Sprintf("the agent asked %s; acprun declined: %s", describeQuestion(s.red, rec), rec.Reason)
	}
	recs, warnings, log := &s.setup.elicitations, &s.setup.warnings, &s.setup.requestLog
	var a arrival // the turn's end waits for its answer, as for a permission request's
	if t != nil {
		rec.Late = t.late()
		recs, warnings, log = &t.elicitations, &t.warnings, &t.requestLog
		if !rec.Late {
			t.inflight.Add(1)
			a.waits = t.inflight.Done
		}
	}
	defer a.answered(ctx)
	if len(*recs) < maxElicitations { // an agent that asks without end is still answered
		*recs = append(*recs, rec)
		if warn != "" {
			*warnings = append(*warnings, warn)
		}
	}
	prev, out := log.answerPlace()
	s.mu.Unlock()
	if cancelled {
		acp.Async(ctx) // session/cancel goes out first, as for permission requests
		waitFor(ctx, t.cancelSent)
	}
	answerInPlace(ctx, prev, out) // after the answers to the requests before it
	return resp, nil
}

// elicitationComplete records that the agent said, with
// elicitation/complete, that the URL elicitation id is done.
func (s *session) elicitationComplete(params json.RawMessage) {
	var n acp.CompleteElicitationNotification
	if err := json.Unmarshal(params, &n); err != nil || n.ElicitationID == "" {
		s.violation(fmt.Sprintf("elicitation/complete: no elicitationId in %s", shorten(s.red, string(params), 200)))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lists := []*[]report.Elicitation{&s.setup.elicitations}
	for _, t := range s.turns {
		lists = append(lists, &t.elicitations)
	}
	for _, l := range lists {
		for i := range *l {
			if (*l)[i].ElicitationID == n.ElicitationID {
				(*l)[i].Completed = true
			}
		}
	}
}

// describeQuestion names a question in a warning: its mode, message and
// fields.
func describeQuestion(red *redact.Redactor, rec report.Elicitation) string {
	s := fmt.Sprintf("%s %s", termtext.OneLine(rec.Mode), quoted(red, rec.Message))
	switch {
	case rec.URL != "":
		s += " (" + termtext.OneLine(rec.URL) + ")"
	case len(rec.Fields) > 0:
		s += " (fields: " + strings.Join(mapped(rec.Fields, termtext.OneLine), ", ") + ")"
	}
	return s
}

// questionRecord is the record of question p, not yet answered.
func questionRecord(p *acp.CreateElicitationRequest) report.Elicitation {
	rec := report.Elicitation{Mode: p.Mode, Message: p.Message, ToolCallID: p.ToolCallID, ElicitationID: p.ElicitationID, URL: p.URL}
	if p.Mode == acp.ElicitationForm && p.RequestedSchema != nil {
		rec.Fields = p.RequestedSchema.Fields()
		rec.Required = slices.Clone(p.RequestedSchema.Required)
	}
	return rec
}

// answerQuestion decides the answer to question p from sets, the answer
// sets to try in order; scripted says whether the scenario scripts any
// answers (acprun advertised form elicitation). A form is accepted when
// every required field, and at least one field, has an answer that fits
// its type and choices; each field takes its value from the first set
// whose match (if any) matches the message and that has the field. Any
// other question is declined, with the reason in the record.
func answerQuestion(p *acp.CreateElicitationRequest, scripted bool, sets []scenario.AnswerSet) (acp.CreateElicitationResponse, report.Elicitation) {
	rec := questionRecord(p)
	decline := func(format string, args ...any) (acp.CreateElicitationResponse, report.Elicitation) {
		rec.Action, rec.Reason = acp.ElicitationDecline, fmt.Sprintf(format, args...)
		return acp.CreateElicitationResponse{Action: acp.ElicitationDecline}, rec
	}
	switch {
	case p.Mode == acp.ElicitationURL:
		return decline("acprun declines URL elicitations: no one is there to open it")
	case p.Mode != acp.ElicitationForm:
		return decline("unknown elicitation mode %q", p.Mode)
	case !scripted:
		return decline("the scenario scripts no answers, and acprun did not advertise elicitation (give them in answers)")
	case len(rec.Fields) == 0:
		return decline("the form has no fields, so no answer can accept it")
	}
	content := map[string]any{}
	from := map[string]string{}
	var missing, wrong []string
	for _, field := range rec.Fields {
		prop := p.RequestedSchema.Properties[field]
		a, ok := findAnswer(sets, p.Message, field)
		if !ok {
			if slices.Contains(rec.Required, field) {
				missing = append(missing, field)
			}
			continue
		}
		v, err := answerValue(prop, a)
		if err != nil {
			wrong = append(wrong, fmt.Sprintf("%s: the answer for %s %v", a.Pos, field, err))
			continue
		}
		content[field], from[field] = v, a.Pos.String()
	}
	switch {
	case len(wrong) > 0:
		return decline("%s", strings.Join(wrong, "; "))
	case len(missing) > 0:
		return decline("no answer for the required %s %s (give %s in answers)", pluralWord(len(missing), "field", "fields"), strings.Join(mapped(missing, termtext.OneLine), ", "),
			pluralWord(len(missing), "it", "them"))
	case len(content) == 0:
		return decline("no answer for any of its fields (give them in answers)")
	}
	raw, err := json.Marshal(content)
	if err != nil { // strings, numbers, booleans and lists of strings always marshal
		return decline("%v", err)
	}
	rec.Action, rec.Content, rec.AnsweredFrom = acp.ElicitationAccept, raw, from
	return acp.CreateElicitationResponse{Action: acp.ElicitationAccept, Content: content}, rec
}

// findAnswer returns the answer for field from the first set that
// matches message and has it.
func findAnswer(sets []scenario.AnswerSet, message, field string) (scenario.AnswerValue, bool) {
	for _, set := range sets {
		if set.Match != nil && !set.Match.MatchString(message) {
			continue
		}
		for _, v := range set.Values {
			if v.Field == field {
				return v, true
			}
		}
	}
	return scenario.AnswerValue{}, false
}

// answerValue turns an answer into the value a field of type prop takes:
// a string (one of its choices, if it has any), an integer, a number, a
// boolean, or for a multi-select a list of its choices. A field of a type
// ACP does not define takes the answer's text, or list.
func answerValue(prop acp.ElicitationProperty, a scenario.AnswerValue) (any, error) {
	choices := prop.Choices()
	if prop.Type == acp.PropertyArray {
		list := a.List
		if !a.IsList {
			list = []string{a.Text}
		}
		for _, s := range list {
			if len(choices) > 0 && !slices.Contains(choices, s) {
				return nil, fmt.Errorf("has %q, which is not one of its choices (%s)", s, strings.Join(mapped(choices, termtext.OneLine), ", "))
			}
		}
		return slices.Clone(list), nil
	}
	if a.IsList {
		if prop.Type == acp.PropertyString || prop.Type == acp.PropertyNumber || prop.Type == acp.PropertyInteger || prop.Type == acp.PropertyBoolean {
			return nil, fmt.Errorf("is a list; the field takes one %s", prop.Type)
		}
		return slices.Clone(a.List), nil
	}
	switch prop.Type {
	case acp.PropertyInteger:
		i, err := strconv.ParseInt(a.Text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("is %q; the field takes an integer", a.Text)
		}
		return i, nil
	case acp.PropertyNumber:
		f, err := strconv.ParseFloat(a.Text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("is %q; the field takes a number", a.Text)
		}
		return f, nil
	case acp.PropertyBoolean:
		switch strings.ToLower(a.Text) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("is %q; the field takes true or false", a.Text)
	}
	if len(choices) > 0 && !slices.Contains(choices, a.Text) {
		return nil, fmt.Errorf("is %q, which is not one of its choices (%s)", a.Text, strings.Join(mapped(choices, termtext.OneLine), ", "))
	}
	return a.Text, nil
}

// cloneElicitations deep-copies records of elicitations.
func cloneElicitations(recs []report.Elicitation) []report.Elicitation {
	out := slices.Clone(recs)
	for i := range out {
		e := &out[i]
		e.Fields, e.Required = slices.Clone(e.Fields), slices.Clone(e.Required)
		e.Content, e.AnsweredFrom = slices.Clone(e.Content), maps.Clone(e.AnsweredFrom)
	}
	return out
}
