package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// URL returns rawURL as acprun shows it: the password of its userinfo (a
// proxy's credentials, "http://user:pass@proxy/…") replaced by "xxxxx", as
// url.URL.Redacted does. A value that is not a URL is returned as it is.
func URL(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Redacted()
	}
	return rawURL
}

// URLPassword returns the password of rawURL's userinfo, to be redacted
// (see New): as written in the URL and, when it differs, decoded, and the
// credentials of the "Authorization: Basic X" header an HTTP client sends
// for that userinfo (X, user:password in base64); nil when rawURL has no
// password, or is not a URL.
func URLPassword(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return nil
	}
	pass, ok := u.User.Password()
	if !ok || pass == "" {
		return nil
	}
	out := []string{pass, base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))}
	if _, written, _ := strings.Cut(u.User.String(), ":"); written != pass {
		out = append(out, written)
	}
	return out
}
