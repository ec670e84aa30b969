package htmlreport

import (
	"strings"
	"unicode/utf8"

	json "github.com/go-json-experiment/json/v1"
)

// contentItem is one item of a tool call's content, ready to show.
type contentItem struct {
	Kind       string // text | diff | terminal | other
	Text       string
	Path       string
	NewFile    bool
	Diff       []diffLine
	TerminalID string
}

// maxDiffText caps the old and new text of a diff that is compared.
const maxDiffText = 256 << 10

// toolContent decodes ACP ToolCallContent items: {"type":"content",
// "content":{ContentBlock}}, {"type":"diff", path, oldText, newText} and
// {"type":"terminal", terminalId}. Anything else, or content that is not
// such a list, is shown as JSON.
func toolContent(raw json.RawMessage) []contentItem {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return []contentItem{{Kind: "other", Text: prettyJSON(raw)}}
	}
	out := make([]contentItem, 0, len(items))
	for _, it := range items {
		var c struct {
			Type       string  `json:"type"`
			Path       string  `json:"path"`
			OldText    *string `json:"oldText"`
			NewText    string  `json:"newText"`
			TerminalID string  `json:"terminalId"`
			Content    struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(it, &c); err != nil {
			out = append(out, contentItem{Kind: "other", Text: prettyJSON(it)})
			continue
		}
		switch {
		case c.Type == "diff":
			old := ""
			if c.OldText != nil {
				old = *c.OldText
			}
			out = append(out, contentItem{Kind: "diff", Path: c.Path, NewFile: c.OldText == nil, Diff: textDiff(old, c.NewText)})
		case c.Type == "terminal":
			out = append(out, contentItem{Kind: "terminal", TerminalID: c.TerminalID})
		case c.Type == "content" && c.Content.Type == "text":
			out = append(out, contentItem{Kind: "text", Text: cut(c.Content.Text, maxDiffText)})
		default:
			out = append(out, contentItem{Kind: "other", Text: prettyJSON(it)})
		}
	}
	return out
}

// diffLine is one line of a rendered diff.
type diffLine struct {
	Op   string // "+", "-", " ", "@" (hunk or file header) or "…" (a note)
	Text string
}

// Class is the line's CSS class.
func (l diffLine) Class() string {
	switch l.Op {
	case "+":
		return "add"
	case "-":
		return "del"
	case "@":
		return "hunk"
	case "…":
		return "note"
	}
	return "ctx"
}

// maxDiffCells bounds the table of the line diff (old lines × new lines,
// after the common head and tail are taken off); larger changes are shown
// as the old lines removed and the new ones added.
const maxDiffCells = 4 << 20

// textDiff is a line diff of old and new: the longest common subsequence
// of their lines, the common head and tail taken off first.
func textDiff(old, new string) []diffLine {
	var note []diffLine
	if len(old) > maxDiffText || len(new) > maxDiffText {
		note = []diffLine{{Op: "…", Text: "the texts are longer than 256 KiB: only their start is compared"}}
		old, new = cutBytes(old, maxDiffText), cutBytes(new, maxDiffText)
	}
	a, b := splitLines(old), splitLines(new)
	var out []diffLine
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	for _, l := range a[:head] {
		out = append(out, diffLine{Op: " ", Text: l})
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma)*len(mb) > maxDiffCells {
		for _, l := range ma {
			out = append(out, diffLine{Op: "-", Text: l})
		}
		for _, l := range mb {
			out = append(out, diffLine{Op: "+", Text: l})
		}
	} else {
		out = append(out, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-tail:] {
		out = append(out, diffLine{Op: " ", Text: l})
	}
	return append(note, out...)
}

// lcsDiff diffs a and b by dynamic programming.
func lcsDiff(a, b []string) []diffLine {
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, diffLine{Op: " ", Text: a[i]})
			i++
			j++
		case i < n && (j == m || l[i+1][j] >= l[i][j+1]):
			// Removed lines before added ones, as diff -u shows them.
			out = append(out, diffLine{Op: "-", Text: a[i]})
			i++
		default:
			out = append(out, diffLine{Op: "+", Text: b[j]})
			j++
		}
	}
	return out
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// cutBytes is s cut to at most n bytes, on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// maxGitDiff caps the workspace diff shown (the results already cut it).
const maxGitDiff = 1 << 20

// gitDiffLines classes the lines of a unified diff (git diff output).
func gitDiffLines(diff string) []diffLine {
	var out []diffLine
	cutAt := len(diff) > maxGitDiff
	if cutAt {
		diff = cutBytes(diff, maxGitDiff)
	}
	for _, l := range splitLines(diff) {
		op := " "
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "),
			strings.HasPrefix(l, "index "), strings.HasPrefix(l, "@@"):
			op = "@"
		case strings.HasPrefix(l, "+"):
			op = "+"
		case strings.HasPrefix(l, "-"):
			op = "-"
		}
		// Keep the line as git wrote it, its +/- included.
		out = append(out, diffLine{Op: op, Text: l})
	}
	if cutAt {
		out = append(out, diffLine{Op: "…", Text: "diff cut at 1 MiB"})
	}
	return out
}
