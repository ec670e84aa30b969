package acp

import (
	"encoding/json"
	"unicode/utf8"
)

// DecodeSessionNotification decodes the params of a session/update
// notification, with the result and the error json.Unmarshal gives.
//
// The common update, a text chunk of a message or thought with nothing
// else in it, is decoded in one pass without reflection: encoding/json
// validates and walks it once per level of UnmarshalJSON (the update, its
// content block), which made session/update the runner's main cost under a
// flood. Anything else goes to json.Unmarshal.
func DecodeSessionNotification(data []byte) (SessionNotification, error) {
	var n SessionNotification
	if fastChunk(data, &n) {
		return n, nil
	}
	return slowNotification(data)
}

// slowNotification is json.Unmarshal, apart so that the fast path's
// result does not escape to the heap.
func slowNotification(data []byte) (SessionNotification, error) {
	n := new(SessionNotification)
	err := json.Unmarshal(data, n)
	return *n, err
}

// fastChunk decodes data into n when it is exactly
// {"sessionId": S, "update": {"sessionUpdate": K, "content": {"type": "text", "text": T}}}
// with the members in any order, each once, K a chunk kind, and reports
// whether it did. Every other input (other members, escaped or differently
// cased names, other types, invalid JSON) is left to json.Unmarshal.
func fastChunk(data []byte, n *SessionNotification) bool {
	var st chunkScan
	end, ok := st.members(data, skipWS(data, 0), levelTop)
	if !ok || skipWS(data, end) != len(data) || st.seen != seenAll || st.typ != ContentText {
		return false
	}
	chunk := &ContentChunk{Content: ContentBlock{Type: ContentText, Text: st.text}}
	u := SessionUpdate{Kind: st.kind, Raw: append(json.RawMessage(nil), st.update...)}
	switch st.kind {
	case UpdateAgentMessageChunk:
		u.AgentMessageChunk = chunk
	case UpdateAgentThoughtChunk:
		u.AgentThoughtChunk = chunk
	case UpdateUserMessageChunk:
		u.UserMessageChunk = chunk
	default:
		return false
	}
	*n = SessionNotification{SessionID: st.sid, Update: u}
	return true
}

// chunkScan is what fastChunk found so far.
type chunkScan struct {
	sid, kind, typ, text string
	update               []byte
	seen                 uint8 // seen* bits of the members found
}

// The objects fastChunk walks, and levelAny for an object only skipped.
const (
	levelAny = iota
	levelTop
	levelUpdate
	levelContent
)

const (
	seenSID = 1 << iota
	seenUpdate
	seenKind
	seenContent
	seenType
	seenText
	seenAll = seenSID | seenUpdate | seenKind | seenContent | seenType | seenText
)

// member takes one member of an object of the level given; false when it
// is one fastChunk does not take, or a second one of the same name.
func (st *chunkScan) member(level int, key, val []byte) bool {
	var bit uint8
	var ok bool
	switch {
	case level == levelAny:
		return true
	case level == levelTop && string(key) == "sessionId":
		bit, ok = seenSID, plainString(val, &st.sid)
	case level == levelTop && string(key) == "update":
		_, ok = st.members(val, 0, levelUpdate)
		bit, st.update = seenUpdate, val
	case level == levelUpdate && string(key) == "sessionUpdate":
		bit, ok = seenKind, knownString(val, &st.kind)
	case level == levelUpdate && string(key) == "content":
		_, ok = st.members(val, 0, levelContent)
		bit = seenContent
	case level == levelContent && string(key) == "type":
		bit, ok = seenType, knownString(val, &st.typ)
	case level == levelContent && string(key) == "text":
		bit, ok = seenText, plainString(val, &st.text)
	default:
		return false
	}
	if st.seen&bit != 0 {
		return false
	}
	st.seen |= bit
	return ok
}

// members walks the JSON object that starts at b[i], passing each member's
// name and value to st.member, where the value must be a string or an
// object (the only kinds fastChunk takes). It returns the index after the
// object and false as soon as the object is not valid JSON, a name has an
// escape, or st.member says no.
func (st *chunkScan) members(b []byte, i, level int) (int, bool) {
	return walkObject(b, i, func(b, key []byte, start int) (int, bool) {
		var end int
		var ok bool
		switch {
		case start >= len(b):
			return start, false
		case b[start] == '"':
			end, _, ok = skipString(b, start)
		case b[start] == '{':
			end, ok = st.members(b, start, levelAny)
		default:
			return start, false
		}
		return end, ok && st.member(level, key, b[start:end])
	})
}

// plainString stores the JSON string val (a whole, valid string token) in
// s; false when val is not a string. Escapes and invalid UTF-8 are decoded
// by encoding/json, which replaces invalid bytes with U+FFFD.
func plainString(val []byte, s *string) bool {
	if len(val) < 2 || val[0] != '"' {
		return false
	}
	_, plain, _ := skipString(val, 0)
	return stringToken(val, plain, s)
}

// stringToken stores the JSON string token q in s; plain says q has no
// escapes. A plain token of valid UTF-8 is copied as it is; the others go
// through encoding/json, which decodes escapes and replaces invalid bytes
// with U+FFFD.
func stringToken(q []byte, plain bool, s *string) bool {
	if plain && utf8.Valid(q) {
		*s = string(q[1 : len(q)-1])
		return true
	}
	return unquote(q, s)
}

// chunkWords are the values of "sessionUpdate" and "type" fastChunk takes,
// as their JSON tokens, so that decoding them allocates nothing.
var chunkWords = map[string]string{
	`"` + UpdateAgentMessageChunk + `"`: UpdateAgentMessageChunk,
	`"` + UpdateAgentThoughtChunk + `"`: UpdateAgentThoughtChunk,
	`"` + UpdateUserMessageChunk + `"`:  UpdateUserMessageChunk,
	`"` + ContentText + `"`:             ContentText,
}

// knownString is plainString that takes the chunk words without a copy.
func knownString(val []byte, s *string) bool {
	if w, ok := chunkWords[string(val)]; ok {
		*s = w
		return true
	}
	return plainString(val, s)
}
