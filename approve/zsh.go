package approve

import "strings"

// zshWhy returns what makes a zsh or ksh script other than plain, "" when
// nothing does. Such a script is read as bash reads it only when plain.
// Outside quotes it holds no ( other than that of $(…), $((…)), <(…) or
// >(…) (zsh's parameter flags ${(e)…} and ${(P)…}, =(…), glob qualifiers
// *(e:…:), ksh's and zsh's patterns run code or differ), no { or [[ word
// (zsh's short loops: while true { rm x }, if [[ … ]] rm x), no ${~…} or
// $~ (GLOB_SUBST), and none of the words setopt, unsetopt, emulate,
// repeat, noglob or nocorrect, nor options[…], which change how the rest
// is read or run a command bash does not see. In double quotes and
// unquoted here-documents, where only expansions mean anything, it holds
// no ${(…)}, ${~…} or $~. Single quotes, escaped characters, comments and
// quoted here-documents are text to zsh as to bash.
func zshWhy(script string) string {
	z := zshScan{s: script}
	return z.scan()
}

// zshScan is zshWhy's reading of a script s, at i; heredocs are the
// here-documents whose bodies start at the next line.
type zshScan struct {
	s        string
	i        int
	heredocs []zshHeredoc
}

// zshHeredoc is a here-document to skip: its delimiter, whether its body
// is text (its delimiter quoted), and whether the lines of <<- may start
// with tabs.
type zshHeredoc struct {
	delim       string
	quoted, tab bool
}

// zshWords are the words that change how zsh reads or runs the rest.
var zshWords = map[string]bool{"setopt": true, "unsetopt": true, "emulate": true, "repeat": true, "noglob": true, "nocorrect": true}

// zshBreaks are the bytes that end an unquoted word.
const zshBreaks = " \t\n;&|()<>"

func (z *zshScan) scan() string {
	s := z.s
	for z.i < len(s) {
		c := s[z.i]
		wordStart := z.i == 0 || strings.IndexByte(zshBreaks, s[z.i-1]) >= 0
		switch {
		case c == '\\':
			z.i += 2
		case c == '\'':
			z.skipTo('\'')
		case c == '"':
			if why := z.double(); why != "" {
				return why
			}
		case c == '#' && wordStart:
			for z.i < len(s) && s[z.i] != '\n' {
				z.i++
			}
		case c == '\n':
			z.i++
			if why := z.bodies(); why != "" {
				return why
			}
		case strings.HasPrefix(s[z.i:], "<<") && !strings.HasPrefix(s[z.i:], "<<<"):
			z.heredoc()
		case c == '$' && strings.HasPrefix(s[z.i:], "$(("):
			z.i += 3 // arithmetic: its parentheses are zsh's and bash's alike
		case c == '$':
			if why := zshDollar(s[z.i:]); why != "" {
				return why
			}
			z.i++
		case c == '(' && (z.i == 0 || strings.IndexByte("$<>", s[z.i-1]) < 0):
			return "a parenthesis"
		case wordStart:
			end := z.i
			for end < len(s) && strings.IndexByte(zshBreaks+`"'\`, s[end]) < 0 {
				end++
			}
			switch w := s[z.i:end]; {
			case w == "{":
				return "a brace"
			case w == "[[":
				return "[["
			case zshWords[w] && z.commandAt():
				return w
			case strings.HasPrefix(w, "options[") && z.commandAt():
				return "options["
			}
			z.i++ // what follows in the word is read too ($~x)
		default:
			z.i++
		}
	}
	return ""
}

// commandAt reports whether the word at i may be a command's first: at
// the start, after a separator, or after a reserved word that a command
// follows.
func (z *zshScan) commandAt() bool {
	before := strings.TrimRight(z.s[:z.i], " \t")
	if before == "" || strings.IndexByte(";&|(\n{", before[len(before)-1]) >= 0 {
		return true
	}
	prev := before[strings.LastIndexAny(before, zshBreaks)+1:]
	switch prev {
	case "then", "do", "else", "elif", "if", "while", "until", "!", "time", "nocorrect", "noglob", "command", "builtin", "exec":
		return true
	}
	return false
}

// skipTo moves past the next c after the one at i.
func (z *zshScan) skipTo(c byte) {
	if j := strings.IndexByte(z.s[z.i+1:], c); j >= 0 {
		z.i += j + 2
		return
	}
	z.i = len(z.s)
}

// double reads the double-quoted text at i, up to its end, and returns
// what in it makes the script other than plain.
func (z *zshScan) double() string {
	s := z.s
	for z.i++; z.i < len(s); z.i++ {
		switch s[z.i] {
		case '\\':
			z.i++
		case '"':
			z.i++
			return ""
		case '$':
			if why := zshDollar(s[z.i:]); why != "" {
				return why
			}
		}
	}
	return ""
}

// zshDollar returns what the expansion s starts makes other than plain:
// a parameter flag ${(…)…} or GLOB_SUBST (${~…}, $~).
func zshDollar(s string) string {
	switch {
	case strings.HasPrefix(s, "${("):
		return "a parenthesis"
	case strings.HasPrefix(s, "${~"), strings.HasPrefix(s, "$~"):
		return "a ~ expansion"
	}
	return ""
}

// heredoc reads the operator << or <<- at i and its delimiter, and queues
// the here-document, whose body starts at the next line.
func (z *zshScan) heredoc() {
	s := z.s
	z.i += 2
	h := zshHeredoc{}
	if z.i < len(s) && s[z.i] == '-' {
		h.tab = true
		z.i++
	}
	for z.i < len(s) && (s[z.i] == ' ' || s[z.i] == '\t') {
		z.i++
	}
	var d strings.Builder
	for z.i < len(s) && strings.IndexByte(zshBreaks, s[z.i]) < 0 {
		switch c := s[z.i]; c {
		case '\'', '"':
			h.quoted = true
			end := strings.IndexByte(s[z.i+1:], c)
			if end < 0 {
				end = len(s) - z.i - 1
			}
			d.WriteString(s[z.i+1 : z.i+1+end])
			z.i += end + 2
		case '\\':
			h.quoted = true
			if z.i+1 < len(s) {
				d.WriteByte(s[z.i+1])
			}
			z.i += 2
		default:
			d.WriteByte(c)
			z.i++
		}
	}
	h.delim = d.String()
	z.heredocs = append(z.heredocs, h)
}

// bodies reads the bodies of the queued here-documents, from i (a line's
// start): a quoted one is text, an unquoted one is read as double quotes.
func (z *zshScan) bodies() string {
	s := z.s
	for _, h := range z.heredocs {
		for z.i < len(s) {
			end := strings.IndexByte(s[z.i:], '\n')
			if end < 0 {
				end = len(s) - z.i
			}
			line := s[z.i : z.i+end]
			z.i = min(len(s), z.i+end+1)
			if h.tab {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
			if !h.quoted {
				for j := range len(line) {
					if line[j] == '$' && (j == 0 || line[j-1] != '\\') {
						if why := zshDollar(line[j:]); why != "" {
							return why
						}
					}
				}
			}
		}
	}
	z.heredocs = z.heredocs[:0]
	return ""
}
