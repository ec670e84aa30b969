package main

import (
	"testing"
)

// TestLastWordsEraseTheLiveArea: what acprun writes when it exits at
// once starts with what erases run's live area (the halt given to
// onExitAtOnce, called then), so that its line is not glued to the bar;
// without a live area, the line alone.
func TestLastWordsEraseTheLiveArea(t *testing.T) {
	const line = "acprun: interrupted a third time: exiting at once; the outputs not written yet are lost\n"
	var g globals
	if got := g.lastWords(); got != line {
		t.Errorf("without a live area: %q; want %q", got, line)
	}
	halted := 0
	g.onExitAtOnce(func() string { halted++; return "\r\x1b[2A\x1b[J" })
	if got, want := g.lastWords(), "\r\x1b[2A\x1b[J"+line; got != want || halted != 1 {
		t.Errorf("with a live area: %q, halted %d times; want %q, once", got, halted, want)
	}
}
