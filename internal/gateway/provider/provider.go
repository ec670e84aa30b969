// Package provider knows the model providers' HTTP APIs as the gateway
// sees them: which API a request is for (by its path), which model it asks
// for, the usage each API reports in its answer (streamed as server-sent
// events or whole), the parts of a request that change from run to run
// (left out when matching a replay), and each API's own error shapes.
//
// The APIs: Anthropic Messages (POST …/v1/messages, also count_tokens),
// OpenAI Chat Completions (POST …/chat/completions), OpenAI Responses
// (POST …/responses) and Gemini (POST …/models/M:generateContent and
// :streamGenerateContent).
package provider

import "net/http"

// API is a provider API.
type API string

// The APIs.
const (
	Unknown         API = ""
	Anthropic       API = "anthropic-messages"
	OpenAIChat      API = "openai-chat"
	OpenAIResponses API = "openai-responses"
	Gemini          API = "gemini"
)

// Detect tells the API of a request by its method and path (the part after
// the base URL, e.g. "/v1/messages", "/chat/completions",
// "/v1beta/models/gemini-2.5-pro:streamGenerateContent"); Unknown for any
// other request.
func Detect(method, path string) API { return Unknown }

// Model is the model a request asks for: the body's "model", or for Gemini
// the path's models/NAME; "" when it names none.
func Model(api API, path string, body []byte) string { return "" }

// Volatile lists the top-level keys of a request body of api left out when
// matching a replay: the system prompt (it holds the date, the OS version,
// the git status…), request metadata and ids, cache keys.
func Volatile(api API) []string { return nil }

// RateLimited is the answer api gives to a request over its rate limit,
// with message as its error message: status 429 and the API's error body.
func RateLimited(api API, message string) (status int, header http.Header, body []byte) {
	return 429, nil, nil
}

// Invalid is the answer api gives to a request it will not serve (a
// replay divergence), which clients do not retry: status 400 and the
// API's invalid-request error body.
func Invalid(api API, message string) (status int, header http.Header, body []byte) {
	return 400, nil, nil
}

// DefaultUpstream is the API's public base URL as agents' SDKs have it
// (Anthropic "https://api.anthropic.com", OpenAI "https://api.openai.com/v1",
// Gemini "https://generativelanguage.googleapis.com").
func DefaultUpstream(api API) string { return "" }
