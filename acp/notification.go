package acp

import json "github.com/go-json-experiment/json/v1"

// DecodeSessionNotification decodes the params of a session/update
// notification.
func DecodeSessionNotification(data []byte) (SessionNotification, error) {
	var n SessionNotification
	err := json.Unmarshal(data, &n)
	return n, err
}
