package provider

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	json "github.com/go-json-experiment/json/v1"

	"github.com/acprun/acprun/internal/jsonpos"
)

// Delta is a piece of text that one event of a streamed answer adds to a
// part of the answer (a content block, a choice's content, a tool call's
// arguments): a model streams a text in such pieces, cut anywhere.
type Delta struct {
	// Part tells the parts of one answer apart: the deltas of a part have
	// the same, those of other parts other ones.
	Part string
	// Start and End are where the piece's JSON string, quotes included,
	// is in the event.
	Start, End int
	// Text is the piece, decoded.
	Text string
	// Cut: the event was cut short inside the piece's JSON string (see
	// CutDeltas), which End leaves open: End is where the cut is, and Text
	// leaves out an escape or a UTF-8 character the cut went through.
	Cut bool
}

// Deltas returns the text pieces in event, one server-sent event (as
// Feed returns it) of a streamed answer of api, in their order in it:
// Anthropic's text, thinking and tool input (input_json_delta) deltas of
// a content block; OpenAI Chat Completions' deltas of a choice's content,
// reasoning, refusal and tool call arguments; OpenAI Responses' events
// whose type ends in ".delta" (output text, function call arguments,
// reasoning…); Gemini's text parts of a candidate. An event whose data is
// not one line of JSON has none.
func Deltas(api API, event []byte) []Delta {
	return deltas(api, event, false)
}

// CutDeltas is Deltas for the last event of an answer that broke off in
// the middle of it: its data's JSON text may end anywhere. The pieces it
// holds whole are found as Deltas finds them, and so is the one the cut
// goes through (Delta.Cut), when the cut leaves what tells its part.
func CutDeltas(api API, event []byte) []Delta {
	return deltas(api, event, true)
}

// EventData is the data of event, one server-sent event, when it has one
// data field (as Deltas reads it), and where that starts in event.
func EventData(event []byte) (data []byte, at int, ok bool) {
	lines := 0
	fields(event, func(field, value []byte, start int) {
		if string(field) == "data" {
			data, at = value, start
			lines++
		}
	})
	return data, at, lines == 1
}

// deltas is Deltas, or CutDeltas with cut.
func deltas(api API, event []byte, cut bool) []Delta {
	data, at, ok := EventData(event)
	if !ok {
		return nil
	}
	open, dataEnd := -1, at+len(data)
	if !json.Valid(data) {
		if !cut {
			return nil
		}
		if data, open, _ = cutJSON(data); data == nil {
			return nil
		}
	}
	var out []Delta
	add := func(part, path string) {
		if d, ok := stringAt(data, path); ok {
			if d.Start == open {
				d.End, d.Cut = dataEnd-at, true
			}
			d.Part, d.Start, d.End = part, d.Start+at, d.End+at
			out = append(out, d)
		}
	}
	switch api {
	case Anthropic:
		var a struct {
			Type  string `json:"type"`
			Index int    `json:"index"`
		}
		json.Unmarshal(data, &a)
		if a.Type == "content_block_delta" {
			for _, f := range []string{"text", "thinking", "partial_json"} {
				add(fmt.Sprintf("%d %s", a.Index, f), "delta."+f)
			}
		}
	case OpenAIChat:
		var a struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					ToolCalls []struct {
						Index int `json:"index"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		json.Unmarshal(data, &a)
		for i, c := range a.Choices {
			for _, f := range []string{"content", "reasoning_content", "reasoning", "refusal"} {
				add(fmt.Sprintf("%d %s", c.Index, f), fmt.Sprintf("choices.%d.delta.%s", i, f))
			}
			for j, t := range c.Delta.ToolCalls {
				add(fmt.Sprintf("%d tool %d", c.Index, t.Index), fmt.Sprintf("choices.%d.delta.tool_calls.%d.function.arguments", i, j))
			}
		}
	case OpenAIResponses:
		var a struct {
			Type         string `json:"type"`
			ItemID       string `json:"item_id"`
			OutputIndex  int    `json:"output_index"`
			ContentIndex int    `json:"content_index"`
			SummaryIndex int    `json:"summary_index"`
		}
		json.Unmarshal(data, &a)
		if strings.HasSuffix(a.Type, ".delta") {
			add(fmt.Sprintf("%q %q %d %d %d", a.Type, a.ItemID, a.OutputIndex, a.ContentIndex, a.SummaryIndex), "delta")
		}
	case Gemini:
		var a struct {
			Candidates []struct {
				Index   int `json:"index"`
				Content struct {
					Parts []struct {
						Thought bool `json:"thought"`
					} `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		json.Unmarshal(data, &a)
		for i, c := range a.Candidates {
			for j, p := range c.Content.Parts {
				add(fmt.Sprintf("%d %d %t", c.Index, j, p.Thought), fmt.Sprintf("candidates.%d.content.parts.%d.text", i, j))
			}
		}
	}
	return out
}

// stringAt is the string at path in data, valid JSON (see jsonpos.Offset),
// with where it is in data; false when there is no string there.
func stringAt(data []byte, path string) (Delta, bool) {
	off, ok := jsonpos.Offset(data, path)
	if !ok || data[off] != '"' {
		return Delta{}, false
	}
	v, err := jsontext.NewDecoder(bytes.NewReader(data[off:])).ReadValue()
	var s string
	if err != nil || json.Unmarshal(v, &s) != nil {
		return Delta{}, false
	}
	return Delta{Start: int(off), End: int(off) + len(v), Text: s}, true
}
