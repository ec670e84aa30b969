package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
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
// (see New): decoded, as Go writes it (url.Userinfo.String) and as rawURL
// writes it (an escape spelled otherwise, such as %2f or %65, kept as it
// is: a line of a file shows it so), each once, and the credentials of
// the "Authorization: Basic X" header an HTTP client sends for that
// userinfo (X, user:password in base64); nil when rawURL has no password,
// or is not a URL.
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
	_, goes, _ := strings.Cut(u.User.String(), ":")
	for _, p := range []string{goes, writtenPassword(rawURL)} {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// writtenPassword returns the password of the userinfo of rawURL, a URL
// url.Parse reads with a userinfo ([scheme:]//userinfo@host…), as its
// text writes it: the authority after the "//", up to the first "/", "?"
// or "#"; its userinfo, up to its last "@"; the password, after the
// userinfo's first ":". "" when there is none.
func writtenPassword(rawURL string) string {
	_, rest, _ := strings.Cut(rawURL, "//")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pass, _ := strings.Cut(rest[:at], ":")
	return pass
}

// URLSecrets returns the secrets of rawURL: its password (URLPassword),
// and the value of each of its query parameters whose name looks like it
// holds a secret (SecretParam: "?api_key=…", "&token=…"), as rawURL writes
// it and decoded, where that differs; nil when there are none, or rawURL
// is not a URL.
func URLSecrets(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	out := URLPassword(rawURL)
	for param := range strings.SplitSeq(u.RawQuery, "&") {
		name, value, _ := strings.Cut(param, "=")
		if name, err := url.QueryUnescape(name); err != nil || !SecretParam(name) || value == "" {
			continue
		}
		out = append(out, value)
		if dec, err := url.QueryUnescape(value); err == nil && dec != value {
			out = append(out, dec)
		}
	}
	return out
}

// SecretParam reports whether a header or query parameter of this name
// looks like it holds a secret: its name holds key, token, secret, passw,
// auth, sig or credential, in any case.
func SecretParam(name string) bool {
	name = strings.ToLower(name)
	return slices.ContainsFunc([]string{"key", "token", "secret", "passw", "auth", "sig", "credential"}, func(w string) bool {
		return strings.Contains(name, w)
	})
}
