package reap

import (
	"slices"
	"testing"
)

func TestSetReplacesEveryDefinition(t *testing.T) {
	m := New()
	env := m.Set([]string{"A=1", Var + "=forged", "B=2", Var + "=again"})
	want := []string{Var + "=" + string(m), "A=1", "B=2"}
	if !slices.Equal(env, want) {
		t.Errorf("Set = %q, want %q", env, want)
	}
	if got := Of(env); got != m {
		t.Errorf("Of = %q, want %q", got, m)
	}
	if got := Mark("").Set([]string{Var + "=x"}); !slices.Equal(got, []string{Var + "=x"}) {
		t.Errorf("the zero Mark's Set = %q, want env unchanged", got)
	}
}

func TestSubIsCoveredByItsParentOnly(t *testing.T) {
	m := New()
	s := m.Sub()
	if !m.covers(string(s)) || !m.covers(string(m)) {
		t.Errorf("%q does not cover itself or its sub %q", m, s)
	}
	if s.covers(string(m)) {
		t.Errorf("sub %q covers its parent %q", s, m)
	}
	if other := New(); m.covers(string(other)) || m.covers(string(m)+"x") {
		t.Errorf("%q covers another mark", m)
	}
	if New() == New() {
		t.Error("two new marks are equal")
	}
}

func TestZeroMarkKillsNothing(t *testing.T) {
	if got := Mark("").Kill(); got != nil {
		t.Errorf("Kill = %v, want nothing", got)
	}
}
