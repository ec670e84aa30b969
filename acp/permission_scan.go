package acp

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// fastPermission decodes data into r in one pass without reflection when it
// is a well-formed permission request of the usual shape, and reports
// whether it did: an object with sessionId, toolCall (toolCallId, title,
// name, kind, status, locations, rawInput, rawOutput, _meta), options
// (each with optionId, name, kind, _meta) and _meta, in any order, each
// once, every string a string and every list a list, other members
// skipped. Everything else (content, null, numbers where strings go,
// escaped or differently cased names, invalid JSON) is left to
// encoding/json, so the result is always the one json.Unmarshal gives.
func fastPermission(data []byte, r *RequestPermissionRequest) bool {
	ps := permScan{}
	end, ok := walkObject(data, skipWS(data, 0), ps.top)
	if !ok || skipWS(data, end) != len(data) {
		return false
	}
	*r = ps.r
	return true
}

// permScan is what fastPermission decoded so far.
type permScan struct {
	r    RequestPermissionRequest
	seen uint16 // bits of the members taken, so that a repeated one is left to encoding/json
	d    decoder
}

const (
	permSession = 1 << iota
	permToolCall
	permOptions
	permMeta
	callID
	callTitle
	callName
	callKind
	callStatus
	callLocations
	callRawInput
	callRawOutput
	callMeta
)

// once records the member bit; false when it was seen before.
func (ps *permScan) once(bit uint16) bool {
	if ps.seen&bit != 0 {
		return false
	}
	ps.seen |= bit
	return true
}

var (
	permNames   = []string{"sessionId", "toolCall", "options", "_meta"}
	callNames   = []string{"toolCallId", "title", "name", "kind", "status", "content", "locations", "rawInput", "rawOutput", "_meta"}
	optionNames = []string{"optionId", "name", "kind", "_meta"}
	locNames    = []string{"path", "line", "_meta"}
)

// top takes one member of the request object whose value starts at b[v].
func (ps *permScan) top(b, key []byte, v int) (int, bool) {
	var bit uint16
	switch string(key) {
	case "sessionId":
		bit = permSession
	case "toolCall":
		bit = permToolCall
	case "options":
		bit = permOptions
	case "_meta":
		bit = permMeta
	default:
		return ps.other(b, key, v, permNames)
	}
	if !ps.once(bit) {
		return v, false
	}
	switch bit {
	case permSession:
		return str(b, v, &ps.r.SessionID)
	case permToolCall:
		return walkObject(b, v, ps.call)
	case permOptions:
		ps.r.Options = make(List[PermissionOption], 0, 4) // agents offer two to four
		return walkArray(b, v, ps.option)
	}
	return ps.raw(b, v, &ps.r.Meta)
}

// option takes one item of options.
func (ps *permScan) option(b []byte, v int) (int, bool) {
	var o PermissionOption
	var seen uint8
	end, ok := walkObject(b, v, func(b, key []byte, v int) (int, bool) {
		var bit uint8
		switch string(key) {
		case "optionId":
			bit = 1
		case "name":
			bit = 2
		case "kind":
			bit = 4
		case "_meta":
			bit = 8
		default:
			return ps.other(b, key, v, optionNames)
		}
		if seen&bit != 0 {
			return v, false
		}
		seen |= bit
		switch bit {
		case 1:
			return str(b, v, &o.OptionID)
		case 2:
			return str(b, v, &o.Name)
		case 4:
			var k string
			end, ok := str(b, v, &k)
			o.Kind = PermissionOptionKind(k)
			return end, ok
		}
		return ps.raw(b, v, &o.Meta)
	})
	ps.r.Options = append(ps.r.Options, o)
	return end, ok
}

// call takes one member of the toolCall object.
func (ps *permScan) call(b, key []byte, v int) (int, bool) {
	var bit uint16
	switch string(key) {
	case "toolCallId":
		bit = callID
	case "title":
		bit = callTitle
	case "name":
		bit = callName
	case "kind":
		bit = callKind
	case "status":
		bit = callStatus
	case "locations":
		bit = callLocations
	case "rawInput":
		bit = callRawInput
	case "rawOutput":
		bit = callRawOutput
	case "_meta":
		bit = callMeta
	case "content":
		return v, false // its items have a decoding of their own
	default:
		return ps.other(b, key, v, callNames)
	}
	if !ps.once(bit) {
		return v, false
	}
	tc := &ps.r.ToolCall
	switch bit {
	case callID:
		return str(b, v, &tc.ToolCallID)
	case callTitle:
		return strPtr(b, v, &tc.Title)
	case callName:
		return strPtr(b, v, &tc.Name)
	case callKind:
		var k string
		end, ok := str(b, v, &k)
		kind := ToolKind(k)
		tc.Kind = &kind
		return end, ok
	case callStatus:
		var st string
		end, ok := str(b, v, &st)
		status := ToolCallStatus(st)
		tc.Status = &status
		return end, ok
	case callLocations:
		tc.Locations = []ToolCallLocation{}
		return walkArray(b, v, ps.location)
	case callRawInput:
		return ps.raw(b, v, &tc.RawInput)
	case callRawOutput:
		return ps.raw(b, v, &tc.RawOutput)
	}
	return ps.raw(b, v, &tc.Meta)
}

// location takes one item of toolCall.locations.
func (ps *permScan) location(b []byte, v int) (int, bool) {
	var l ToolCallLocation
	var seen uint8
	end, ok := walkObject(b, v, func(b, key []byte, v int) (int, bool) {
		var bit uint8
		switch string(key) {
		case "path":
			bit = 1
		case "line":
			bit = 2
		case "_meta":
			bit = 4
		default:
			return ps.other(b, key, v, locNames)
		}
		if seen&bit != 0 {
			return v, false
		}
		seen |= bit
		switch bit {
		case 1:
			return str(b, v, &l.Path)
		case 2:
			return smallInt(b, v, &l.Line)
		}
		return ps.raw(b, v, &l.Meta)
	})
	tc := &ps.r.ToolCall
	tc.Locations = append(tc.Locations, l)
	return end, ok
}

// other skips the value of a member the shape does not have. A name that
// encoding/json would match to one of names without regard to case, or
// that is not ASCII (encoding/json folds some non-ASCII letters), is not
// skipped.
func (ps *permScan) other(b, key []byte, v int, names []string) (int, bool) {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return v, false
		}
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return v, false
		}
	}
	return ps.d.skipValue(b, v)
}

// raw stores a copy of the JSON value at b[v] in *m, as json.RawMessage
// decodes it.
func (ps *permScan) raw(b []byte, v int, m *json.RawMessage) (int, bool) {
	end, ok := ps.d.skipValue(b, v)
	if ok {
		*m = append(json.RawMessage(nil), b[v:end]...)
	}
	return end, ok
}

// str decodes the JSON string at b[v] into *s; false for any other value.
func str(b []byte, v int, s *string) (int, bool) {
	if v >= len(b) || b[v] != '"' {
		return v, false
	}
	end, plain, ok := skipString(b, v)
	if !ok {
		return end, false
	}
	if w := permWord(b[v+1 : end-1]); plain && w != "" {
		*s = w
		return end, true
	}
	return end, stringToken(b[v:end], plain, s)
}

// unquote decodes the JSON string token q into *s as encoding/json does,
// for the strings stringToken does not copy itself. Apart, so that s does
// not escape to the heap on the path that copies.
func unquote(q []byte, s *string) bool {
	var x string
	if json.Unmarshal(q, &x) != nil {
		return false
	}
	*s = x
	return true
}

// permWord returns the word permission requests repeat (kinds, statuses,
// the usual options) that w is, without allocating, or "".
func permWord(w []byte) string {
	switch string(w) {
	case "allow_once":
		return string(AllowOnce)
	case "allow_always":
		return string(AllowAlways)
	case "reject_once":
		return string(RejectOnce)
	case "reject_always":
		return string(RejectAlways)
	case "read":
		return string(KindRead)
	case "edit":
		return string(KindEdit)
	case "delete":
		return string(KindDelete)
	case "move":
		return string(KindMove)
	case "search":
		return string(KindSearch)
	case "execute":
		return string(KindExecute)
	case "think":
		return string(KindThink)
	case "fetch":
		return string(KindFetch)
	case "switch_mode":
		return string(KindSwitchMode)
	case "other":
		return string(KindOther)
	case "pending":
		return string(StatusPending)
	case "in_progress":
		return string(StatusInProgress)
	case "completed":
		return string(StatusCompleted)
	case "failed":
		return string(StatusFailed)
	case "allow":
		return "allow"
	case "reject":
		return "reject"
	case "Allow":
		return "Allow"
	case "Reject":
		return "Reject"
	case "Always Allow":
		return "Always Allow"
	case "Always Reject":
		return "Always Reject"
	}
	return ""
}

// strPtr decodes the JSON string at b[v] into a new *s.
func strPtr(b []byte, v int, s **string) (int, bool) {
	var x string
	end, ok := str(b, v, &x)
	if ok {
		*s = &x
	}
	return end, ok
}

// smallInt decodes a plain non-negative integer of at most nine digits at
// b[v] into a new *n; false for anything else.
func smallInt(b []byte, v int, n **int) (int, bool) {
	end, ok := skipNumber(b, v)
	if !ok || end-v > 9 || b[v] == '-' {
		return v, false
	}
	x := 0
	for _, c := range b[v:end] {
		if !isDigit(c) {
			return v, false // a fraction or an exponent
		}
		x = x*10 + int(c-'0')
	}
	*n = &x
	return end, true
}

// walkObject walks the JSON object at b[i], passing each member's name and
// the index of its value to member, which returns the index after the
// value. It returns the index after the object, and false as soon as the
// object is not valid JSON, a name has an escape, or member says no.
func walkObject(b []byte, i int, member func(b, key []byte, v int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		end, plain, ok := skipString(b, i)
		if !ok || !plain {
			return i, false
		}
		key := b[i+1 : end-1]
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = member(b, key, skipWS(b, i+1)); !ok {
			return i, false
		}
		i = skipWS(b, i)
		switch {
		case i >= len(b):
			return i, false
		case b[i] == '}':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipWS(b, i+1)
	}
}

// walkArray walks the JSON array at b[i], passing the index of each item
// to item, which returns the index after it.
func walkArray(b []byte, i int, item func(b []byte, v int) (int, bool)) (int, bool) {
	if i >= len(b) || b[i] != '[' {
		return i, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = item(b, i); !ok {
			return i, false
		}
		i = skipWS(b, i)
		switch {
		case i >= len(b):
			return i, false
		case b[i] == ']':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipWS(b, i+1)
	}
}
