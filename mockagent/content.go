package mockagent

import (
	json "github.com/go-json-experiment/json/v1"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/yamlnode"
)

// The steps of this file speak to what the client advertised in
// initialize, as a well-behaved agent does: notices and compaction updates
// only with the client's session.notices and session.compaction (else the
// step says so in a text chunk, as the spec suggests), questions only in a
// mode the client offers (else the step says so, unless force).

// noticeStep sends a notice update.
type noticeStep struct {
	notice acp.Notice
}

func (st *noticeStep) parse(p *parser, a action) {
	n := &st.notice
	p.object(a.V, "notice", fields{
		"severity":    func(v *yaml.Node) { s, _ := p.nonEmpty(v, "notice.severity"); n.Severity = acp.NoticeSeverity(s) },
		"title":       set(&n.Title, p.nonEmpty, "notice.title"),
		"description": set(&n.Description, p.str, "notice.description"),
	})
	if n.Severity == "" || n.Title == "" {
		p.Errorf(yamlnode.Deref(a.V), "notice: severity and title are required")
	}
}

func (st *noticeStep) play(pl *player) *ending {
	if s := pl.a.clientCaps().Session; s == nil || s.Notices == nil {
		return check(pl.say("notice (not sent: the client takes no notices): %s: %s", st.notice.Severity, st.notice.Title))
	}
	n := st.notice
	return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateNotice, Notice: &n}))
}

// compactionStep sends a compaction_update, or with chunk a
// compaction_summary_chunk.
type compactionStep struct {
	update *acp.CompactionUpdate
	chunk  *acp.CompactionSummaryChunk
}

func (st *compactionStep) parse(p *parser, a action) {
	var id, status, errText string
	var summary, chunk *string
	given, _ := p.object(a.V, "compaction", fields{
		"compactionId": set(&id, p.nonEmpty, "compaction.compactionId"),
		"status":       set(&status, p.nonEmpty, "compaction.status"),
		"summary":      setPtr(&summary, p.str, "compaction.summary"),
		"error":        set(&errText, p.str, "compaction.error"),
		"chunk":        setPtr(&chunk, p.str, "compaction.chunk"),
	})
	n := yamlnode.Deref(a.V)
	switch {
	case !given["compactionId"]:
		p.Errorf(n, "compaction: compactionId is required")
	case chunk != nil && (status != "" || summary != nil || errText != ""):
		p.Errorf(n, "compaction: chunk goes alone (a summary chunk); status, summary and error make a compaction_update step of their own")
	case chunk != nil:
		st.chunk = &acp.CompactionSummaryChunk{CompactionID: id, Content: acp.TextBlock(*chunk)}
	case !given["status"]:
		p.Errorf(n, "compaction: status is required (or chunk, for a summary chunk)")
	default:
		st.update = &acp.CompactionUpdate{CompactionID: id, Status: acp.CompactionStatus(status), Error: errText}
		if summary != nil {
			st.update.Summary = []acp.ContentBlock{acp.TextBlock(*summary)}
		}
	}
}

func (st *compactionStep) play(pl *player) *ending {
	if s := pl.a.clientCaps().Session; s == nil || s.Compaction == nil {
		return check(pl.say("compaction (not sent: the client takes no compaction updates)"))
	}
	if st.chunk != nil {
		c := *st.chunk
		return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateCompactionSummaryChunk, CompactionSummaryChunk: &c}))
	}
	u := *st.update
	return check(pl.notify(acp.SessionUpdate{Kind: acp.UpdateCompactionUpdate, CompactionUpdate: &u}))
}

// elicitStep asks the client a question (elicitation/create) and says the
// answer.
type elicitStep struct {
	req   elicitRequest
	force bool
}

// elicitRequest is the params of elicitation/create as the script gives
// them: the requested schema verbatim.
type elicitRequest struct {
	SessionID       string          `json:"sessionId"`
	ToolCallID      string          `json:"toolCallId,omitempty"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	URL             string          `json:"url,omitempty"`
}

// elicitFieldTypes are the types a field of elicit.fields may have.
var elicitFieldTypes = []string{acp.PropertyString, acp.PropertyNumber, acp.PropertyInteger, acp.PropertyBoolean}

func (st *elicitStep) parse(p *parser, a action) {
	r := &st.req
	r.Mode = acp.ElicitationForm
	var fieldsNode, schemaNode *yaml.Node
	given, _ := p.object(a.V, "elicit", fields{
		"message":       set(&r.Message, p.str, "elicit.message"),
		"mode":          set(&r.Mode, p.nonEmpty, "elicit.mode"),
		"toolCallId":    set(&r.ToolCallID, p.nonEmpty, "elicit.toolCallId"),
		"fields":        func(v *yaml.Node) { fieldsNode = v },
		"schema":        func(v *yaml.Node) { schemaNode = v },
		"url":           set(&r.URL, p.nonEmpty, "elicit.url"),
		"elicitationId": set(&r.ElicitationID, p.nonEmpty, "elicit.elicitationId"),
		"force":         set(&st.force, p.bool, "elicit.force"),
	})
	n := yamlnode.Deref(a.V)
	if !given["message"] {
		p.Errorf(n, "elicit: message is required")
	}
	switch {
	case fieldsNode != nil && schemaNode != nil:
		p.Errorf(n, "elicit: give fields or schema, not both")
	case schemaNode != nil:
		r.RequestedSchema, _ = p.rawObject(schemaNode, "elicit.schema")
	case fieldsNode != nil:
		r.RequestedSchema = p.elicitFields(fieldsNode)
	case r.Mode == acp.ElicitationForm:
		r.RequestedSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if r.Mode == acp.ElicitationURL {
		if r.URL == "" {
			p.Errorf(n, "elicit: mode url needs url")
		}
		if r.ElicitationID == "" {
			r.ElicitationID = "elicitation-1"
		}
	}
}

// elicitFields reads elicit.fields, field names mapped to a type or to a
// list of choices (a string field), into a requested schema whose fields
// are all required.
func (p *parser) elicitFields(n *yaml.Node) json.RawMessage {
	kvs, ok := p.entries(n, "elicit.fields")
	if !ok {
		return nil
	}
	s := acp.ElicitationSchema{Type: "object", Properties: map[string]acp.ElicitationProperty{}}
	for _, kv := range kvs {
		v := yamlnode.Deref(kv.V)
		var prop acp.ElicitationProperty
		if v.Kind == yaml.SequenceNode {
			prop.Type = acp.PropertyString
			prop.Enum, _ = p.strings(v, "elicit.fields."+kv.Key)
		} else if t, ok := p.oneOf(v, "elicit.fields."+kv.Key, elicitFieldTypes...); ok {
			prop.Type = t
		}
		s.Properties[kv.Key] = prop
		s.Required = append(s.Required, kv.Key)
	}
	raw, _ := json.Marshal(s) // plain strings and lists always marshal
	return raw
}

func (st *elicitStep) play(pl *player) *ending {
	r := st.req
	r.SessionID = pl.sess.id
	if !st.force && !offers(pl.a.clientCaps().Elicitation, r.Mode) {
		return check(pl.say("elicit: not asked (the client offers no %s elicitation)", r.Mode))
	}
	var res acp.CreateElicitationResponse
	err := pl.call(pl.a.ctx, acp.MethodElicitationCreate, r, &res)
	switch {
	case pl.gone():
		return died()
	case err != nil:
		return check(pl.sayErr(acp.MethodElicitationCreate, err))
	case res.Action == acp.ElicitationAccept:
		content, _ := json.Marshal(res.Content) // decoded from JSON: marshals
		return check(pl.say("elicit: accept %s", content))
	}
	return check(pl.say("elicit: %s", res.Action))
}

// offers reports whether caps advertise elicitation mode.
func offers(caps *acp.ElicitationCapabilities, mode string) bool {
	switch {
	case caps == nil:
		return false
	case mode == acp.ElicitationForm:
		return caps.Form != nil
	case mode == acp.ElicitationURL:
		return caps.URL != nil
	}
	return false
}
