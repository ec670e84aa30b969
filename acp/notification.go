package acp

import (
	"bytes"
	"errors"

	json "github.com/go-json-experiment/json/v1"
)

// DecodeSessionNotification decodes the params of a session/update
// notification. Params the schema does not allow fail it with what is
// wrong, at its path, in the schema's words: "update is required",
// "update.sessionUpdate: want a string, got number 7".
func DecodeSessionNotification(data []byte) (SessionNotification, error) {
	var wire struct {
		SessionID json.RawMessage `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
		Meta      json.RawMessage `json:"_meta"`
	}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0:
		return SessionNotification{}, errors.New("params is required")
	case data[0] != '{':
		return SessionNotification{}, errors.New("params: " + wrongType("an object", data))
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		return SessionNotification{}, &memberError{msg: at("params", problem(err, data)), err: err}
	}
	var n SessionNotification
	switch {
	case absent(wire.SessionID):
		return SessionNotification{}, errors.New("sessionId is required")
	case absent(wire.Update):
		return SessionNotification{}, errors.New("update is required")
	}
	if err := json.Unmarshal(wire.SessionID, &n.SessionID); err != nil {
		return SessionNotification{}, &memberError{msg: "sessionId: " + wrongType("a string", wire.SessionID), err: err}
	}
	if err := n.Update.UnmarshalJSON(wire.Update); err != nil {
		var ue *updateError
		if errors.As(err, &ue) {
			return SessionNotification{}, &memberError{msg: ue.at("update"), err: err}
		}
		return SessionNotification{}, err
	}
	n.Meta = wire.Meta
	return n, nil
}
