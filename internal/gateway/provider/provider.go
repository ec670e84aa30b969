// Package provider knows the model providers' HTTP APIs as the gateway
// sees them: which API a request is for (by its path), which model it asks
// for, the usage each API reports in its answer (streamed as server-sent
// events or whole), the parts of a request that change from run to run
// (left out when matching a replay), and each API's own error shapes.
//
// The APIs: Anthropic Messages (POST …/v1/messages, also count_tokens),
// OpenAI Chat Completions (POST …/chat/completions), OpenAI Responses
// (POST …/responses) and Gemini (POST …/models/M:generateContent,
// :streamGenerateContent and :countTokens).
package provider

import (
	"maps"
	"net/http"
	"strings"

	json "github.com/go-json-experiment/json/v1"
)

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
// other request. The path is matched by its end, so a base URL's own path
// before it ("/r/abc/v1/messages") does not matter, and a base URL that
// ends in /v1 leaves "/messages"; a query, if any, is ignored.
func Detect(method, path string) API {
	if method != http.MethodPost {
		return Unknown
	}
	path, _, _ = strings.Cut(path, "?")
	path = strings.TrimSuffix(path, "/")
	segs := strings.Split(path, "/")
	last := segs[len(segs)-1]
	switch {
	case last == "messages" && !(len(segs) >= 3 && segs[len(segs)-3] == "threads"), // not OpenAI's threads/ID/messages
		last == "count_tokens" && len(segs) >= 2 && segs[len(segs)-2] == "messages":
		return Anthropic
	case last == "completions" && len(segs) >= 2 && segs[len(segs)-2] == "chat":
		return OpenAIChat
	case last == "responses":
		return OpenAIResponses
	}
	if _, call, ok := geminiCall(path); ok {
		switch call {
		case "generateContent", "streamGenerateContent", "countTokens":
			return Gemini
		}
	}
	return Unknown
}

// geminiCall splits a Gemini path ending in models/NAME:CALL (or
// tunedModels/NAME:CALL; Vertex AI's …/publishers/google/models/NAME:CALL
// too) into the model's name and the call.
func geminiCall(path string) (name, call string, ok bool) {
	path = strings.ReplaceAll(strings.ReplaceAll(path, "%3A", ":"), "%3a", ":")
	segs := strings.Split(path, "/")
	if len(segs) < 2 {
		return "", "", false
	}
	if s := segs[len(segs)-2]; s != "models" && s != "tunedModels" {
		return "", "", false
	}
	name, call, ok = strings.Cut(segs[len(segs)-1], ":")
	return name, call, ok && name != "" && call != ""
}

// Model is the model a request asks for: the body's "model", or for Gemini
// the path's models/NAME (tunedModels/NAME: NAME); "" when it names none.
func Model(api API, path string, body []byte) string {
	if api == Gemini {
		p, _, _ := strings.Cut(path, "?")
		if name, _, ok := geminiCall(p); ok {
			return name
		}
	}
	var b struct {
		Model any `json:"model"`
	}
	json.Unmarshal(body, &b) // a model that is no string is none
	s, _ := b.Model.(string)
	return s
}

// Volatile lists the top-level keys of a request body of api left out when
// matching a replay: the system prompt (it holds the date, the OS version,
// the git status…), request metadata and ids, cache keys. The system
// prompt of OpenAI Chat Completions (messages with role system or
// developer) and the developer messages of OpenAI Responses' input are no
// top-level keys: Strip removes them too.
//
// Responses' previous_response_id is kept: it is an id the upstream made
// in an earlier answer, which a replay serves again as recorded, so the
// agent sends the same one.
func Volatile(api API) []string {
	switch api {
	case Anthropic:
		return []string{"metadata", "system"}
	case OpenAIChat:
		return []string{"metadata", "prompt_cache_key", "safety_identifier", "user"}
	case OpenAIResponses:
		return []string{"instructions", "metadata", "prompt_cache_key", "safety_identifier", "user"}
	case Gemini:
		return []string{"systemInstruction"}
	}
	return nil
}

// Strip is a decoded request body (as encoding/json decodes into an any)
// without its volatile parts: the Volatile keys, and the messages with
// role system or developer of OpenAI Chat Completions' "messages" and
// OpenAI Responses' "input". body itself is not changed; a body that is no
// JSON object is returned as it is.
func Strip(api API, body any) any {
	obj, ok := body.(map[string]any)
	if !ok {
		return body
	}
	out := maps.Clone(obj)
	for _, k := range Volatile(api) {
		delete(out, k)
	}
	switch api {
	case OpenAIChat:
		stripSystem(out, "messages")
	case OpenAIResponses:
		stripSystem(out, "input")
	}
	return out
}

// stripSystem replaces obj[key], a list of messages, by the list without
// the messages with role system or developer.
func stripSystem(obj map[string]any, key string) {
	list, ok := obj[key].([]any)
	if !ok {
		return
	}
	kept := make([]any, 0, len(list))
	for _, item := range list {
		if m, ok := item.(map[string]any); ok && (m["role"] == "system" || m["role"] == "developer") {
			continue
		}
		kept = append(kept, item)
	}
	obj[key] = kept
}

// RateLimited is the answer api gives to a request over its rate limit,
// with message as its error message: status 429 and the API's error body.
// It has no retry-after header (agents would wait for it) and says
// "x-should-retry: false", which the Anthropic and OpenAI SDKs obey.
func RateLimited(api API, message string) (status int, header http.Header, body []byte) {
	return answer(api, http.StatusTooManyRequests, message)
}

// Invalid is the answer api gives to a request it will not serve (a
// replay divergence), which clients do not retry: status 400 and the
// API's invalid-request error body.
func Invalid(api API, message string) (status int, header http.Header, body []byte) {
	return answer(api, http.StatusBadRequest, message)
}

// answer is api's error answer with status (429 or 400) and message. An
// Unknown API answers in OpenAI's shape, the one most clients read.
func answer(api API, status int, message string) (int, http.Header, []byte) {
	header := http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set("X-Should-Retry", "false")
	var v any
	switch api {
	case Anthropic:
		kind := "invalid_request_error"
		if status == http.StatusTooManyRequests {
			kind = "rate_limit_error"
		}
		v = anthropicError{Type: "error", Error: anthropicErrorBody{Type: kind, Message: message}}
	case Gemini:
		s := "INVALID_ARGUMENT"
		if status == http.StatusTooManyRequests {
			s = "RESOURCE_EXHAUSTED"
		}
		header.Set("Content-Type", "application/json; charset=UTF-8")
		v = geminiError{Error: geminiErrorBody{Code: status, Message: message, Status: s}}
	default:
		e := openAIErrorBody{Message: message, Type: "invalid_request_error"}
		if status == http.StatusTooManyRequests {
			code := "rate_limit_exceeded"
			e.Type, e.Code = "requests", &code
		}
		v = openAIError{Error: e}
	}
	body, _ := json.Marshal(v) // plain structs of strings: never fails
	return status, header, body
}

// The APIs' error bodies, fields in the order the providers send them.
type (
	anthropicError struct {
		Type  string             `json:"type"`
		Error anthropicErrorBody `json:"error"`
	}
	anthropicErrorBody struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	openAIError struct {
		Error openAIErrorBody `json:"error"`
	}
	openAIErrorBody struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	geminiError struct {
		Error geminiErrorBody `json:"error"`
	}
	geminiErrorBody struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	}
)

// DefaultUpstream is the API's public base URL as agents' SDKs have it
// (Anthropic "https://api.anthropic.com", OpenAI "https://api.openai.com/v1",
// Gemini "https://generativelanguage.googleapis.com"); "" for Unknown.
func DefaultUpstream(api API) string {
	switch api {
	case Anthropic:
		return "https://api.anthropic.com"
	case OpenAIChat, OpenAIResponses:
		return "https://api.openai.com/v1"
	case Gemini:
		return "https://generativelanguage.googleapis.com"
	}
	return ""
}
