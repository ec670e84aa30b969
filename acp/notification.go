package acp

import "encoding/json"

// DecodeSessionNotification decodes the params of a session/update
// notification.
func DecodeSessionNotification(data []byte) (SessionNotification, error) {
	var n SessionNotification
	err := json.Unmarshal(data, &n)
	return n, err
}
