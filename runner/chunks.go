package runner

import (
	"slices"

	"github.com/acprun/acprun/internal/redact"
)

// agentChunk is a piece of the text of an agent's streamed message or
// thoughts.
type agentChunk struct {
	thought bool   // of its thoughts, not its message
	id      string // its messageId; "" goes on with the message
	text    string
}

// chunkCarry passes on the text chunks of a session's message and
// thoughts, in arrival order, redacted where a secret goes on from the
// message into the thoughts or back: the chunks make one text for
// redaction (redact.Redactor.Pieces), and such a secret is replaced by
// redact.Marker in the chunk where it starts and dropped from the others.
// Other chunks go on as they came, each its message's or its thoughts',
// to be redacted with what that makes (a secret within a chunk, or split
// between chunks of the message). What the carry holds is the end of the
// text that may begin a secret: a few bytes, whatever its length.
type chunkCarry struct {
	held []agentChunk // as they came
}

// add returns the chunks that are final once c came, in order.
func (cc *chunkCarry) add(red *redact.Redactor, c agentChunk) []agentChunk {
	if c.text == "" && c.id == "" {
		return nil // nothing to write
	}
	// Only the end of c that may begin a secret may wait: c goes in two,
	// so that what is held stays short.
	chunks := []agentChunk{c}
	u := red.Unfinished(c.text)
	if k := len(c.text) - u; k > 0 && u > 0 {
		head, tail := c, c
		head.text, tail.text = c.text[:k], c.text[k:]
		chunks = []agentChunk{head, tail}
	}
	if len(cc.held) == 0 {
		// No secret goes on into c from before: c goes on as it came,
		// but for its end that may begin one.
		if u > 0 {
			cc.held, chunks = chunks[len(chunks)-1:], chunks[:len(chunks)-1]
		}
		return chunks
	}
	chunks = append(slices.Clip(cc.held), chunks...)
	out, n := crossRedacted(red, chunks)
	cc.held = slices.Clone(chunks[len(chunks)-n:]) // not the final ones with them
	return out[:len(out)-n]
}

// rest returns the chunks held, as they are if nothing follows them.
func (cc *chunkCarry) rest(red *redact.Redactor) []agentChunk {
	out, _ := crossRedacted(red, cc.held)
	return out
}

// crossRedacted returns chunks, those that a secret going on from the
// message into the thoughts or back touches redacted: those whose text
// redacted as part of all (redact.Redactor.Pieces) differs from their
// text redacted with the message and the thoughts apart. held is as
// Pieces says.
func crossRedacted(red *redact.Redactor, chunks []agentChunk) (out []agentChunk, held int) {
	var texts, apart []string
	var at []int // at[i]: where chunks[i] is in apart
	for i, c := range chunks {
		texts = append(texts, c.text)
		if i > 0 && c.thought != chunks[i-1].thought {
			apart = append(apart, "\x00") // which no secret holds
		}
		at = append(at, len(apart))
		apart = append(apart, c.text)
	}
	joined, held := red.Pieces(texts)
	apart, _ = red.Pieces(apart)
	out = slices.Clone(chunks)
	for i := range out {
		if joined[i] != apart[at[i]] {
			out[i].text = joined[i]
		}
	}
	return out, held
}

// write writes c to text, or to thoughts when it is a thought.
func (c agentChunk) write(text, thoughts *textBuf) {
	if c.thought {
		text = thoughts
	}
	text.WriteChunk(c.id, c.text)
}

// texts returns the texts of text and thoughts, which cc's chunks final so
// far were written to, each with the chunks cc holds of it after it, as
// they are if nothing follows them (rest). With ended (no chunk follows
// them), those are written to text and thoughts; otherwise copies of the
// texts take them, and cc holds on to them.
func (cc *chunkCarry) texts(red *redact.Redactor, text, thoughts *textBuf, ended bool) (string, string) {
	rest := cc.rest(red)
	if ended {
		for _, c := range rest {
			c.write(text, thoughts)
		}
		cc.held, rest = nil, nil
	}
	if len(rest) == 0 {
		return text.String(), thoughts.String()
	}
	// Copies in memory, written to as text and thoughts would be.
	t, th := textBuf{joined: text.String(), message: text.message}, textBuf{joined: thoughts.String(), message: thoughts.message}
	for _, c := range rest {
		c.write(&t, &th)
	}
	return t.String(), th.String()
}
