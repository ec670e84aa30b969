package runner

import (
	"strings"
	"testing"

	"github.com/acprun/acprun/acp"
	"github.com/acprun/acprun/internal/redact"
)

// TestChunkCarry: a secret an agent spreads over its message and its
// thoughts, in chunks of any size, is redacted where it starts and
// dropped from the chunks after it, each chunk staying its message's or
// its thoughts'; what the carry holds is never longer than the secret,
// however long the text.
func TestChunkCarry(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	red := redact.New(secret)
	text := strings.Repeat("x", 4000) + " key " + secret + " more words"
	for size := 1; size <= 9; size += 4 {
		var cc chunkCarry
		var got [2]strings.Builder // text, thoughts
		write := func(chunks []agentChunk) {
			for _, c := range chunks {
				got[boolIndex(c.thought)].WriteString(c.text)
			}
		}
		thought := false
		for i := 0; i < len(text); i += size {
			write(cc.add(red, agentChunk{thought: thought, text: text[i:min(i+size, len(text))]}))
			thought = !thought
			held := 0
			for _, c := range cc.held {
				held += len(c.text)
			}
			if held >= len(secret)+size {
				t.Fatalf("%d bytes a chunk: %d bytes held", size, held)
			}
		}
		write(cc.rest(red))
		for _, g := range got {
			if piece := partOf(secret, g.String()); piece != "" {
				t.Errorf("%d bytes a chunk: %q of the secret left in %q", size, piece, g.String())
			}
		}
		if all := got[0].String() + got[1].String(); strings.Count(all, redact.Marker) != 1 || len(all) != len(text)-len(secret)+len(redact.Marker) {
			t.Errorf("%d bytes a chunk: want the secret once [REDACTED], the rest kept: %q", size, all)
		}
	}
}

// TestChunkCarryKeepsOtherSecrets: a secret within one chunk, or split
// between chunks of the message only, goes on as it came, to be redacted
// with the rest of the message (the turn's checks see the text as sent).
func TestChunkCarryKeepsOtherSecrets(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	red := redact.New(secret)
	var cc chunkCarry
	var got []agentChunk
	for _, c := range []agentChunk{{text: "a " + secret}, {thought: true, text: "hmm"}, {text: " b " + secret[:9]}, {text: secret[9:]}, {thought: true, text: "c"}} {
		got = append(got, cc.add(red, c)...)
	}
	got = append(got, cc.rest(red)...)
	var text strings.Builder
	for _, c := range got {
		if !c.thought {
			text.WriteString(c.text)
		}
	}
	if want := "a " + secret + " b " + secret; text.String() != want {
		t.Errorf("the message's chunks make %q, want %q", text.String(), want)
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTurnTextSplitWithThoughts: a turn's text and thoughts in the results
// keep no part of a secret the agent splits between them; a record taken
// while the end of what came may begin one has all of it, held or not.
func TestTurnTextSplitWithThoughts(t *testing.T) {
	t.Parallel()
	const secret = "ghp_Interleave1234567890abcdefXYZ"
	s := &session{sessionID: "s", red: redact.New(secret), obs: (&observer{}).forJob(Ref{Name: "a"}, redact.New())}
	tr := s.startTurn(1, "one", nil, false)
	update := func(u *acp.SessionUpdate) { s.update(acp.SessionNotification{SessionID: "s", Update: *u}) }
	update(textChunk("key " + secret[:19]))
	if r := s.snapshot(tr); r.Text != "key "+secret[:19] {
		t.Errorf("text while its end may begin a secret %q, want all of it", r.Text)
	}
	update(thoughtChunk(secret[19:] + " rest"))
	update(textChunk(" more words, ghp_"))
	tr.answered = true // what it holds is the turn's last: written once
	for range 2 {
		r := s.snapshot(tr)
		if r.Text != "key [REDACTED] more words, ghp_" || r.Thoughts != " rest" {
			t.Errorf("text %q, thoughts %q; want the secret redacted where it starts, dropped from the thoughts", r.Text, r.Thoughts)
		}
	}
}
