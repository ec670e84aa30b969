package yamlnode

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/acprun/acprun/internal/srcerr"
)

// maxCopied bounds the nodes ExpandAliases copies in one file: aliases
// can make a document's expansion exponential.
const maxCopied = 100_000

// ExpandAliases replaces each alias under root with a copy of the node it
// stands for, placed where the alias is: every node of the copy has the
// alias's line and column, so that a problem found in it is reported
// where the value is used (an anchor defined once and used in many places
// may be wrong in one of them only), and Origin says where it is written.
// The aliases of the value are copied too, placed at the same alias.
// Past maxCopied nodes in the file (an alias bomb) the aliases left are
// kept: Deref follows them, and their problems are at the anchor.
//
// An alias inside the value it stands for (&t {expect: *t}) is an error
// at the alias, and stands for an empty value of that kind.
//
// The walk visits every node written in the file once, so it also
// reports each tag that is not one of YAML's own (see checkTag).
func (r *Reader) ExpandAliases(root *yaml.Node) { r.expand(root, nil) }

// expand is ExpandAliases under n, inside the values outer.
func (r *Reader) expand(n *yaml.Node, outer []*yaml.Node) {
	if n == nil {
		return
	}
	r.checkTag(n)
	outer = append(outer, n)
	for i, c := range n.Content {
		switch {
		case c.Kind != yaml.AliasNode:
			r.expand(c, outer)
		case c.Alias != nil && slices.Contains(outer, c.Alias):
			r.record(c, fmt.Sprintf("the alias *%s is inside the value it stands for (&%s, at line %d, column %d); an alias can only repeat a value that does not contain it",
				c.Value, c.Value, c.Alias.Line, c.Alias.Column))
			n.Content[i] = &yaml.Node{Kind: c.Alias.Kind, Tag: c.Alias.Tag, Line: c.Line, Column: c.Column}
		default:
			if cp := r.aliasCopy(c); cp != nil {
				n.Content[i] = cp
			}
		}
	}
}

// coreTags are the tags acprun's files may carry: YAML's own, which only
// say how to read the value as written ("!!str 12" is the text 12).
var coreTags = []string{"!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq"}

// checkTag reports a tag written on n that is not one of coreTags
// (!include, !env, !!binary…): acprun would read the value as written, a
// literal file name or variable name, where the file meant something else.
// The non-specific tag "!" is no tag to the decoder.
func (r *Reader) checkTag(n *yaml.Node) {
	if n.Style&yaml.TaggedStyle == 0 || slices.Contains(coreTags, n.Tag) {
		return
	}
	r.record(n, fmt.Sprintf(`unknown YAML tag %s: acprun reads only YAML's own tags (%s); write the value without it: "${VAR}" for an environment variable (where acprun expands them), prompt: [{file: PATH}] for a prompt's text from a file`,
		n.Tag, strings.Join(coreTags, ", ")))
}

// Origin returns where n is written when it is a copy that ExpandAliases
// made of what an alias stands for; the zero Origin otherwise.
func (r *Reader) Origin(n *yaml.Node) srcerr.Origin { return r.origins[n] }

// Copied records that c is a copy of n made after ExpandAliases (a
// document with its templates rendered): it is written where n is, and
// Source leads back from it to n.
func (r *Reader) Copied(c, n *yaml.Node) {
	if o, ok := r.origins[n]; ok {
		r.origins[c] = o
	}
	if r.copies == nil {
		r.copies = map[*yaml.Node]*yaml.Node{}
	}
	r.copies[c] = n
}

// Source returns the node of the document as read that n stands for: for
// a copy Copied recorded (a rendered template), the node it was made of,
// whose value is the one written; n itself otherwise. An alias is
// followed (see Deref).
func (r *Reader) Source(n *yaml.Node) *yaml.Node {
	n = Deref(n)
	for n != nil && r.copies[n] != nil {
		n = Deref(r.copies[n])
	}
	return n
}

// aliasCopy returns the copy of what alias a stands for, at a; nil once
// the copies would pass maxCopied.
func (r *Reader) aliasCopy(a *yaml.Node) *yaml.Node {
	left := maxCopied - r.copied
	if a.Alias == nil || left <= 0 {
		return nil
	}
	n := expandedSize(a, left)
	if n > left {
		r.copied = maxCopied // copy no more: the rest of the file keeps its aliases
		return nil
	}
	r.copied += n
	if r.origins == nil {
		r.origins = map[*yaml.Node]srcerr.Origin{}
	}
	return r.copyAt(a, a, "")
}

// copyAt returns a copy of n and what is under it, aliases followed, each
// node at the position of alias at; anchor is the name of the alias that
// led to n ("" when n is that alias). A node that is itself a copy keeps
// its origin.
func (r *Reader) copyAt(n, at *yaml.Node, anchor string) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n, anchor = n.Alias, n.Value
	}
	c := *n
	c.Line, c.Column, c.Anchor = at.Line, at.Column, ""
	o, ok := r.origins[n]
	if !ok {
		o = srcerr.Origin{Anchor: anchor, Line: n.Line, Col: n.Column}
	}
	r.origins[&c] = o
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = r.copyAt(child, at, anchor)
		}
	}
	return &c
}

// expandedSize counts the nodes of n, aliases followed, up to limit+1.
func expandedSize(n *yaml.Node, limit int) int {
	count := 0
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		n = Deref(n)
		count++
		for _, c := range n.Content {
			if count > limit {
				return
			}
			walk(c)
		}
	}
	walk(n)
	return count
}
