package runner

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/report"
)

// This file tells the agent's provider refusing the work (a rate limit, a
// quota, an overload: an invalid measurement, see valid.go) from the agent
// failing it. It is kept small and strict on purpose: what it finds is not
// counted against the agent, so a word inside another word ("quotation"),
// or a 429 that is no HTTP status (a line number of a stack trace), must
// not be found.

// upstreamWordRE finds the words of a provider's refusal, as the agents
// send them: "rate limit" (claude's rate_limit_error, RateLimitError), a
// quota (openai's insufficient_quota, "Quota exceeded"), an overload
// (claude's overloaded_error, codex's serverOverloaded), a usage limit
// ("Claude AI usage limit reached", codex's usage_limit_exceeded), "Too
// Many Requests" (HTTP 429's reason) and Google's RESOURCE_EXHAUSTED. A
// match counts only as whole words (see wordAt).
var upstreamWordRE = regexp.MustCompile(`(?i)rate[ _-]?limit(?:ed|s|ing)?|quotas?|overloaded|usage[ _-]?limits?|too[ _-]many[ _-]requests|resource[ _-]exhausted`)

// upstreamStatusRE finds an HTTP status 429 (too many requests) or 529
// (overloaded, Anthropic's) where a status goes: after "status", "status
// code", "HTTP", "HTTP/1.1", "code", "error code", "API Error:" (claude's
// "API Error: 529 {…}"), "rejected (" (claude's "Request rejected (429)"),
// or a JSON member of those names quoted in text ("statusCode": 429). The
// group 1 is the phrase from the name to the number.
var upstreamStatusRE = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])((?:(?:http[ _-]?)?status(?:[ _-]?code)?|http(?:/[0-9.]+)?|(?:api[ _-]?)?error(?:[ _-]?code)?|code|rejected)["']?[ \t]*[:=]?[ \t]*["']?\(?(?:429|529)\)?)(?:[^0-9]|$)`)

// upstream says why e, the error that answered session/prompt, is the
// agent's provider refusing the work ("its data says \"overloaded_error\""),
// or returns "" when it is the agent's own error: its code is 429 or 529,
// or its message or data says so (see upstreamText and upstreamData).
// (A turn whose expect lists stopReason error measures the error: runTurn
// leaves it valid.)
func upstream(e *acp.Error) string {
	if e.Code == 429 || e.Code == 529 {
		return fmt.Sprintf("its code is %d", e.Code)
	}
	if s := upstreamText(e.Message); s != "" {
		return "its message says " + s
	}
	if s := upstreamData(e.Data); s != "" {
		return "its data says " + s
	}
	return ""
}

// upstreamNotice returns the first of a turn's notices, sent before its
// answer, that says the agent's provider refused the work, and what said
// so: severity error, and a title or description in which upstreamText
// finds it. An info or warning notice ("rate limited, retrying") leaves
// the measurement valid.
func upstreamNotice(ns []report.Notice) (*report.Notice, string) {
	for i, n := range ns {
		if n.Late || n.Severity != "error" {
			continue
		}
		if s := cmp.Or(upstreamText(n.Title), upstreamText(n.Description)); s != "" {
			return &ns[i], "it says " + s
		}
	}
	return nil, ""
}

// noticeQuoted says the notice n in a message: its title quoted, then its
// description after a colon when it has one.
func noticeQuoted(n report.Notice) string {
	if n.Description == "" {
		return strconv.Quote(n.Title)
	}
	return strconv.Quote(n.Title) + ": " + n.Description
}

// upstreamText returns, quoted, the first phrase of s that says a provider
// refused the work (upstreamWordRE as whole words, upstreamStatusRE), or
// "".
func upstreamText(s string) string {
	start, phrase := -1, ""
	for _, m := range upstreamWordRE.FindAllStringIndex(s, -1) {
		if wordAt(s, m[0], m[1]) {
			start, phrase = m[0], wordAround(s, m[0], m[1])
			break
		}
	}
	if m := upstreamStatusRE.FindStringSubmatchIndex(s); m != nil && (start < 0 || m[2] < start) {
		start, phrase = m[2], s[m[2]:m[3]]
	}
	if start < 0 {
		return ""
	}
	return fmt.Sprintf("%q", phrase)
}

// upstreamData returns what in data, the JSON data of an error, says that a
// provider refused the work, in the order of the document: a member named
// as a status (statusKey) whose value is 429 or 529 (gemini's {"error":
// {"code": 429}}, codex's {"http_status_code": 429}), or a string in which
// upstreamText finds it (claude's "API Error: 529 …", codex's
// "usage_limit_exceeded"). Names are not read, nor other numbers. Data that
// is not JSON is read as text.
func upstreamData(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	s, err := upstreamValue(dec, "")
	if err != nil {
		return upstreamText(string(data))
	}
	return s
}

// upstreamValue reads the next value of dec, that of the member named key
// ("" in an array or at the top), and returns what in it says that a
// provider refused the work, or "" (see upstreamData).
func upstreamValue(dec *jsontext.Decoder, key string) (string, error) {
	switch dec.PeekKind() {
	case '{', '[':
		if _, err := dec.ReadToken(); err != nil {
			return "", err
		}
		for dec.PeekKind() != '}' && dec.PeekKind() != ']' {
			name := ""
			if kind, _ := dec.StackIndex(dec.StackDepth()); kind == '{' {
				tok, err := dec.ReadToken()
				if err != nil {
					return "", err
				}
				name = tok.String()
			}
			if s, err := upstreamValue(dec, name); s != "" || err != nil {
				return s, err
			}
		}
		_, err := dec.ReadToken()
		return "", err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return "", err
	}
	switch tok.Kind() {
	case '0':
		if n := tok.String(); statusKey(key) && (n == "429" || n == "529") {
			return fmt.Sprintf("%q: %s", key, n), nil
		}
	case '"':
		v := tok.String()
		if statusKey(key) && (v == "429" || v == "529") {
			return fmt.Sprintf("%q: %q", key, v), nil
		}
		return upstreamText(v), nil
	}
	return "", nil
}

// statusKey reports whether a JSON member named key holds an HTTP status:
// status, statusCode, status_code, httpStatus, httpStatusCode,
// http_status_code, code (gemini's), errorCode, in any case.
func statusKey(key string) bool {
	k := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(key))
	switch k {
	case "status", "statuscode", "httpstatus", "httpstatuscode", "code", "errorcode":
		return true
	}
	return false
}

// wordAt reports whether s[i:j] is made of whole words: neither end is
// inside a word ("quota" in "quotation", "QUOTATION"), where a word ends at
// a character that is neither a letter nor a digit (so "_" and "-" part
// words: "rate_limit_error") and between a lower-case and an upper-case
// letter ("serverOverloaded").
func wordAt(s string, i, j int) bool {
	return wordEdge(s, i) && wordEdge(s, j)
}

// wordEdge reports whether a word of s starts or ends at byte i (see
// wordAt).
func wordEdge(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	a, b := s[i-1], s[i]
	return !alnum(a) || !alnum(b) || isLower(a) && isUpper(b)
}

// wordAround returns s[i:j] with the letters and underscores joined to it
// on either side, at most 30 on each ("rate_limit_error",
// "serverOverloaded"): the name the agent gave its refusal. Digits are left
// out, so that no part of a key comes with it.
func wordAround(s string, i, j int) string {
	joined := func(c byte) bool { return c == '_' || isLower(c) || isUpper(c) }
	for n := 0; i > 0 && joined(s[i-1]) && n < 30; n++ {
		i--
	}
	for n := 0; j < len(s) && joined(s[j]) && n < 30; n++ {
		j++
	}
	return s[i:j]
}

// alnum reports whether c is part of a word: an ASCII letter or digit, or
// a byte of a non-ASCII character (a letter, as likely as not).
func alnum(c byte) bool { return isLower(c) || isUpper(c) || '0' <= c && c <= '9' || c >= 0x80 }

// isLower reports whether c is an ASCII lower-case letter.
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// isUpper reports whether c is an ASCII upper-case letter.
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
