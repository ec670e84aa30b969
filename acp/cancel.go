package acp

import json "github.com/go-json-experiment/json/v1"

// MethodCancelRequest is "$/cancel_request", the protocol-level
// notification by which the side that sent a request cancels it. The
// receiver may stop the work, but still answers the request: with a result
// (partial, or a cancellation marker) or with the error
// CodeRequestCancelled. To stop a prompt turn, use session/cancel instead.
const MethodCancelRequest = "$/cancel_request"

// CancelRequestNotification is the params of "$/cancel_request": the id of
// the request to cancel, as it was sent.
type CancelRequestNotification struct {
	RequestID ID              `json:"requestId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}
