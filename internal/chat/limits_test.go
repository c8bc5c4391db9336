package chat

import "testing"

func TestSetLimitsDefaultsZeroes(t *testing.T) {
	e := NewEngine(&Options{MaxToolRounds: 3, ResultLimit: 500, DefaultSystemPrompt: "a"})
	if got := e.currentLimits(); got != (Limits{MaxToolRounds: 3, ResultLimit: 500, DefaultSystemPrompt: "a"}) {
		t.Fatalf("initial limits = %+v", got)
	}
	e.SetLimits(Limits{DefaultSystemPrompt: "b"})
	if got := e.currentLimits(); got != (Limits{MaxToolRounds: DefaultMaxToolRounds, ResultLimit: DefaultResultLimit, DefaultSystemPrompt: "b"}) {
		t.Fatalf("limits after SetLimits = %+v", got)
	}
}
