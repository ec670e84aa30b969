package gateway

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/gateway/provider"
	"github.com/acprun/acprun/internal/pathtext"
	"github.com/acprun/acprun/internal/redact"
)

// normaliseBody is a request body as replay matches it and the cassette
// keeps it: for JSON, the value without the API's volatile keys (and, for
// OpenAI, without system and developer messages), with the paths
// replaced by their names and UUIDs, dates and times by placeholders in
// every string and key, keys sorted; for anything else, "sha256:HEX" of
// the bytes. An empty body is nil.
func normaliseBody(api provider.API, body []byte, paths *pathNames) json.RawMessage {
	if len(body) == 0 {
		return nil
	}
	if !json.Valid(body) {
		sum := sha256.Sum256(body)
		out, _ := json.Marshal("sha256:" + hex.EncodeToString(sum[:]))
		return out
	}
	return encode(normalise(provider.Strip(api, decode(body)), paths))
}

// encode is v as compact JSON, keys sorted, with no HTML escaping.
func encode(v any) json.RawMessage {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	e.Encode(v) // values decoded from JSON always encode
	return bytes.TrimRight(buf.Bytes(), "\n")
}

var (
	uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	// dateRE and timeRE match ISO 8601 dates and times (with seconds, so
	// that "10:30" in a sentence stays) not inside a longer number; the
	// first group is the character before.
	dateRE = regexp.MustCompile(`(^|[^0-9])[0-9]{4}-[01][0-9]-[0-3][0-9]`)
	timeRE = regexp.MustCompile(`(^|[^0-9])[0-2][0-9]:[0-5][0-9]:[0-6][0-9](?:[.,][0-9]+)?(?:Z|[+-][0-2][0-9]:?[0-5][0-9])?`)
)

// normalise returns v with every string and key normalised (see str).
func normalise(v any, paths *pathNames) any {
	switch v := v.(type) {
	case string:
		return normaliseString(v, paths)
	case []any:
		for i := range v {
			v[i] = normalise(v[i], paths)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[normaliseString(k, paths)] = normalise(x, paths)
		}
		return out
	}
	return v
}

// normaliseString replaces in s the paths by their names, and UUIDs,
// dates and times by placeholders.
func normaliseString(s string, paths *pathNames) string {
	s = paths.name(s)
	s = uuidRE.ReplaceAllLiteralString(s, "<uuid>")
	s = dateRE.ReplaceAllString(s, "${1}<date>")
	return timeRE.ReplaceAllString(s, "${1}<time>")
}

// pathNames swaps an attempt's paths (Config.Paths) for their names in
// what is kept, and back in what is replayed.
type pathNames struct {
	// byForm holds {form, name} for every form of every path (the path
	// and its escaped forms, redact.QuotedForms), longest form first.
	byForm [][2]string
	// byName holds {path, name} for the first path of each name, longest
	// name first.
	byName [][2]string
}

// newPathNames returns the pathNames of paths (name → its paths, the one
// replay writes back first); paths that are "" or "/" are left out. What
// is kept is redacted before its paths are named, so a path holding a
// secret (a workspace named after a scenario whose name holds an env
// value) is also named in the form red leaves it in, unless red leaves
// nothing of it but markers and slashes.
func newPathNames(paths map[string][]string, red *redact.Redactor) *pathNames {
	p := &pathNames{}
	for name, list := range paths {
		first := true
		for _, path := range list {
			if path = strings.TrimRight(path, "/"); path == "" || name == "" {
				continue
			}
			if first {
				p.byName = append(p.byName, [2]string{path, name})
				first = false
			}
			for _, f := range redact.QuotedForms(path) {
				p.byForm = append(p.byForm, [2]string{f, name})
				if r := red.String(f); r != f && strings.Trim(strings.ReplaceAll(r, redact.Marker, ""), `/\`) != "" {
					p.byForm = append(p.byForm, [2]string{r, name})
				}
			}
		}
	}
	longest := func(i int) func(a, b [2]string) int {
		return func(a, b [2]string) int {
			return cmp.Or(cmp.Compare(len(b[i]), len(a[i])), strings.Compare(a[1-i], b[1-i]), strings.Compare(a[i], b[i]))
		}
	}
	slices.SortFunc(p.byForm, longest(0))
	p.byForm = slices.Compact(p.byForm)
	slices.SortFunc(p.byName, longest(1))
	return p
}

// name replaces in s each path that stands as a path of its own, written
// as it is or escaped as in a JSON or Go string, by its name.
func (p *pathNames) name(s string) string {
	for _, pf := range p.byForm {
		s = pathtext.Replace(s, pf[0], pf[1])
	}
	return s
}

// pieces names the paths in a text that comes in pieces, as name does,
// one piece for each: a path split between pieces is moved, with the few
// bytes after it that tell whether it ends there, into the piece where it
// starts, and named there.
func (p *pathNames) pieces(pieces []string) []string {
	text := strings.Join(pieces, "")
	ends := make([]int, len(pieces)) // where each piece ends in text
	n := 0
	for i, s := range pieces {
		n += len(s)
		ends[i] = n
	}
	for _, pf := range p.byForm {
		for i := 0; ; {
			j := strings.Index(text[i:], pf[0])
			if j < 0 {
				break
			}
			start := i + j
			end := min(start+len(pf[0])+2, len(text)) // pathtext looks at 2 bytes after a path
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
			// The pieces that end inside: ends stays sorted, so they
			// follow the last that ends at or before start.
			k, _ := slices.BinarySearch(ends, start+1)
			for ; k < len(ends) && ends[k] < end; k++ {
				ends[k] = end
			}
			i = start + 1
		}
	}
	out := make([]string, len(pieces))
	start := 0
	for k, e := range ends {
		out[k] = p.name(text[start:e])
		start = e
	}
	return out
}

// expand replaces in s each name by its path, as it would be written in a
// JSON string (the answers replayed are JSON, or text where paths are
// written as they are).
func (p *pathNames) expand(s string) string {
	for _, pn := range p.byName {
		s = strings.ReplaceAll(s, pn[1], jsonInner(pn[0]))
	}
	return s
}

// jsonInner is s as it appears inside a JSON string (without the quotes).
func jsonInner(s string) string {
	b := encode(s)
	return string(b[1 : len(b)-1])
}
