package gateway

import (
	"net/http"
	"net/url"
	"strings"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/redact"
)

// call is one request an attempt got.
type call struct {
	n        int    // its number among the attempt's admitted requests, from 1
	method   string //
	path     string // after the route's prefix, as escaped in the request
	rawQuery string // as sent, secrets included (forwarded, never kept)
	query    string // without secret parameters, sorted (kept and matched)
	api      provider.API
	model    string // the model the request names, "" for none
	body     []byte
	// keys redacts the request's own secrets: the values of its
	// credential headers and secret query parameters.
	keys *redact.Redactor

	// probe: a HEAD request, forwarded and not kept.
	probe bool

	// Under the attempt's mu:
	usage       Usage
	reported    bool      // usage was reported
	whole       bool      // answered in full with a 2xx status (see answeredWhole)
	answerModel string    // the model the answer names
	kept        *exchange // record: the exchange kept, nil when unanswered
}

// newCall reads what the gateway needs of a request.
func newCall(req *http.Request, path string, body []byte) *call {
	query, querySecrets := splitQuery(req.URL.RawQuery)
	api := provider.Detect(req.Method, path)
	return &call{
		method:   req.Method,
		path:     path,
		rawQuery: req.URL.RawQuery,
		query:    query,
		api:      api,
		model:    provider.Model(api, path, body),
		body:     body,
		keys:     redact.New(append(headerSecrets(req.Header), querySecrets...)...),
	}
}

// splitQuery returns a raw query without its secret-looking parameters
// (sorted by name), and the values of those.
func splitQuery(raw string) (kept string, secrets []string) {
	if raw == "" {
		return "", nil
	}
	vals, _ := url.ParseQuery(raw)
	for k, vs := range vals {
		if redact.SecretParam(k) {
			secrets = append(secrets, vs...)
			delete(vals, k)
		}
	}
	return vals.Encode(), secrets
}

// headerSecrets returns the values of the credential headers of h
// (Authorization, x-api-key, x-goog-api-key, api-key, cookies…), and of
// an "Authorization: Bearer X" its X.
func headerSecrets(h http.Header) []string {
	var out []string
	for k, vs := range h {
		lk := strings.ToLower(k)
		if !redact.SecretParam(lk) && lk != "cookie" && lk != "proxy-authorization" {
			continue
		}
		for _, v := range vs {
			out = append(out, v)
			if _, cred, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(cred))
			}
		}
	}
	return out
}

// text redacts s: every secret the attempt knows and the request's own.
func (c *call) text(a *Attempt, s string) string {
	return c.keys.String(a.cfg.Redact.String(s))
}

// json redacts JSON text as text does, keeping it valid JSON.
func (c *call) json(a *Attempt, raw []byte) []byte {
	return c.keys.JSON(a.cfg.Redact.JSON(raw))
}

// pieces redacts a text that comes in pieces as text does, the pieces as
// one text (redact.Redactor.Pieces; cutEnd: its end was cut off,
// redact.Redactor.PiecesCutEnd), one piece for each.
func (c *call) pieces(a *Attempt, pieces []string, cutEnd bool) []string {
	for _, r := range []*redact.Redactor{a.cfg.Redact, c.keys} {
		if cutEnd {
			pieces = r.PiecesCutEnd(pieces)
		} else {
			pieces, _ = r.Pieces(pieces)
		}
	}
	return pieces
}

// summary is the request as a cassette keeps it and replay matches it:
// redacted, then normalised. Redaction comes first: normalising replaces
// dates, times, UUIDs and paths, which would cut a secret holding one
// (an Azure SAS token holds dates) into parts no longer found.
func (c *call) summary(a *Attempt) request {
	r := request{
		Method: c.method,
		Path:   c.text(a, c.path),
		Query:  c.text(a, c.query),
		API:    c.api,
		Model:  c.text(a, c.model),
	}
	body := c.body
	if json.Valid(body) {
		body = c.json(a, body)
	} else {
		body = []byte(c.text(a, string(body)))
	}
	r.Body = normaliseBody(c.api, body, a.paths)
	return r
}

// cutEnd redacts s as text does, where s's end was cut off (an answer
// that broke off there): an end of it that may begin a secret, 4 bytes or
// more, is replaced too (redact.Redactor.CutEnd).
func (c *call) cutEnd(a *Attempt, s string) string {
	return c.keys.CutEnd(a.cfg.Redact.CutEnd(s))
}
