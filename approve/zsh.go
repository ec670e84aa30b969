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
// here-documents whose bodies start at the next line; stack holds the
// contexts the reading is in, innermost last: '(' a command
// substitution $(…) or a process substitution <(…), 'a' an arithmetic
// expansion $((…)), '{' a parameter expansion ${…}, '"' double quotes,
// '`' backquotes. Where it cannot follow the script as zsh does, it says
// so: the script is not plain.
type zshScan struct {
	s        string
	i        int
	heredocs []zshHeredoc
	stack    []byte
}

// zshHeredoc is a here-document to skip: its delimiter, whether its body
// is text (its delimiter quoted), and whether the lines of <<- may start
// with tabs.
type zshHeredoc struct {
	delim       string
	quoted, tab bool
}

// zshWords are the words that change how zsh reads or runs the rest,
// wherever they stand (a command's place is not always plain to see:
// A=1 setopt x, >/dev/null setopt x).
var zshWords = map[string]bool{"setopt": true, "unsetopt": true, "emulate": true, "repeat": true, "noglob": true, "nocorrect": true}

// zshSetLetters and zshSetNames are the options of set that leave the
// rest of a script read as bash reads it.
const zshSetLetters = "euxvo"

var zshSetNames = map[string]bool{"pipefail": true, "errexit": true, "nounset": true, "xtrace": true, "verbose": true}

// zshBreaks are the bytes that end an unquoted word.
const zshBreaks = " \t\n;&|()<>"

func (z *zshScan) scan() string {
	s := z.s
	for z.i < len(s) {
		c, t := s[z.i], z.top()
		// In every context.
		switch {
		case c == '\\':
			z.i += 2
			continue
		case t == '"' && c == '"', t == '`' && c == '`':
			z.pop(1)
			continue
		case c == '`':
			z.push('`', 1)
			continue
		case strings.HasPrefix(s[z.i:], "$(("):
			z.push('a', 3)
			continue
		case strings.HasPrefix(s[z.i:], "$("):
			z.push('(', 2)
			continue
		case c == '$':
			if why := zshDollar(s[z.i:]); why != "" {
				return why
			}
			switch {
			case strings.HasPrefix(s[z.i:], "${"):
				z.push('{', 2)
				continue
			case t != '"' && (strings.HasPrefix(s[z.i:], "$'") || strings.HasPrefix(s[z.i:], `$"`)):
				return "a $'…' string" // its escapes are zsh's own
			}
			z.i++
			continue
		case t == '"':
			z.i++ // text
			continue
		}
		// In code, ${…} and $((…)).
		switch {
		case t == 'a' && (c == '\'' || c == '"'):
			return "a quote in an arithmetic expansion"
		case c == '\'':
			z.skipTo('\'')
			continue
		case c == '"':
			z.push('"', 1)
			continue
		case t == 'a' && strings.HasPrefix(s[z.i:], "))"):
			z.pop(2)
			continue
		case t == '(' && c == ')', t == '{' && c == '}':
			z.pop(1)
			continue
		case (t == 'a' || t == '{') && c == ')':
			return "a ) it cannot follow"
		case c == '(' && z.substitution():
			z.push('(', 1)
			continue
		case c == '(':
			return "a parenthesis"
		case t == 'a' || t == '{':
			z.i++ // no words, comments or here-documents there
			continue
		}
		// In code.
		wordStart := z.i == 0 || strings.IndexByte(zshBreaks, s[z.i-1]) >= 0
		switch {
		case c == '#' && (z.i == 0 || strings.IndexByte(" \t\n;&|", s[z.i-1]) >= 0):
			// A comment only where a word surely starts: after the ) of
			// $(…) a # is the word's.
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
		case wordStart:
			if why := z.word(); why != "" {
				return why
			}
			z.i++ // what follows in the word is read too ($~x)
		default:
			z.i++
		}
	}
	if len(z.stack) > 0 {
		return "a quote or an expansion it cannot follow to its end"
	}
	return ""
}

// word returns what makes the word at i, in code, other than plain.
func (z *zshScan) word() string {
	s := z.s
	end := z.i
	for end < len(s) && strings.IndexByte(zshBreaks+`"'\$`+"`", s[end]) < 0 {
		end++
	}
	switch w := s[z.i:end]; {
	case w == "{":
		return "a brace"
	case w == "[[":
		return "[["
	case zshWords[w]:
		return w
	case strings.HasPrefix(w, "options["):
		return "options["
	case len(w) > 1 && w[0] == '=':
		return "an = expansion" // zsh's =cmd is the path of cmd
	case w == "set" && !z.plainSet():
		return "set"
	case w == "case" && len(z.stack) > 0:
		return "a case in a command substitution" // its patterns' ) end it early
	case w == "-" && z.commandAt():
		return "the precommand modifier -"
	}
	return ""
}

// commandAt reports whether the word at i is surely a command's first:
// at the start or after a separator.
func (z *zshScan) commandAt() bool {
	before := strings.TrimRight(z.s[:z.i], " \t")
	return before == "" || strings.IndexByte(";&|(\n`", before[len(before)-1]) >= 0
}

// substitution reports whether the ( at i opens a process substitution:
// < or > at a word's start before it.
func (z *zshScan) substitution() bool {
	i, s := z.i, z.s
	return i >= 1 && (s[i-1] == '<' || s[i-1] == '>') && (i == 1 || strings.IndexByte(" \t\n;&|(", s[i-2]) >= 0)
}

// top is the innermost context, 0 for none; push enters context c at i,
// which it moves past the n bytes that open it; pop leaves the innermost
// context, past the n bytes that close it.
func (z *zshScan) top() byte {
	if len(z.stack) == 0 {
		return 0
	}
	return z.stack[len(z.stack)-1]
}

func (z *zshScan) push(c byte, n int) { z.stack = append(z.stack, c); z.i += n }

func (z *zshScan) pop(n int) { z.stack = z.stack[:len(z.stack)-1]; z.i += n }

// plainSet reports whether the set command at i sets only options that
// leave the rest read as bash reads it (set -euo pipefail).
func (z *zshScan) plainSet() bool {
	end := len(z.s)
	if j := strings.IndexAny(z.s[z.i:], ";&|\n"); j >= 0 {
		end = z.i + j
	}
	words := strings.Fields(z.s[z.i:end])[1:]
	for k := 0; k < len(words); k++ {
		w := words[k]
		if w == "--" || w[0] != '-' && w[0] != '+' {
			return true // its arguments: $1…
		}
		if strings.Trim(w[1:], zshSetLetters) != "" {
			return false
		}
		for range strings.Count(w, "o") {
			if k++; k >= len(words) || !zshSetNames[words[k]] {
				return false
			}
		}
	}
	return true
}

// skipTo moves past the next c after the one at i.
func (z *zshScan) skipTo(c byte) {
	if j := strings.IndexByte(z.s[z.i+1:], c); j >= 0 {
		z.i += j + 2
		return
	}
	z.i = len(z.s)
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
				// Expansions, but no command, unless substituted: one is
				// not followed there.
				for j := range len(line) {
					if j > 0 && line[j-1] == '\\' {
						continue
					}
					if line[j] == '`' || strings.HasPrefix(line[j:], "$(") {
						return "a command substitution in a here-document"
					}
					if line[j] == '$' {
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

// zshOptionsWhy returns the first option of the zsh or ksh command line
// args (up to its script) that may change how the script is read (-o
// globsubst, -i, whose interactive shell reads no comments), "" when
// none does: letters of zshArgLetters and set's plain -o names alone.
func zshOptionsWhy(args []string) string {
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--" || a == "--login" || a == "--no-rcs":
			continue
		case a == "" || a[0] != '-' && a[0] != '+':
			return "" // the script
		case strings.HasPrefix(a, "--") || strings.Trim(a[1:], zshArgLetters) != "":
			return "the option " + a
		}
		for range strings.Count(a, "o") {
			if k++; k >= len(args) || !zshSetNames[args[k]] {
				return "the option " + a
			}
		}
	}
	return ""
}

// zshArgLetters are the letters of zsh's and ksh's command line that
// leave a script read as bash reads it: -c, -l (login), -f (no rc
// files), and those of zshSetLetters.
const zshArgLetters = "clf" + zshSetLetters
