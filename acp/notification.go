package acp

import jsonv1 "github.com/go-json-experiment/json/v1"

// DecodeSessionNotification decodes the params of a session/update
// notification.
func DecodeSessionNotification(data []byte) (SessionNotification, error) {
	var n SessionNotification
	err := jsonv1.Unmarshal(data, &n)
	return n, err
}
