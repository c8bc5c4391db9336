package approval

import (
	"errors"
	"fmt"
	"testing"
)

var (
	allDecisions   = []Decision{AllowOnce, AllowAlways, AllowAll, Deny, Cancelled}
	terminalStates = []state{stateAllowedOnce, stateAllowedAlways, stateAllowedAll, stateDenied, stateCancelled}
)

func TestStateNextFromPending(t *testing.T) {
	tests := []struct {
		decision Decision
		want     state
		wantErr  error
	}{
		{AllowOnce, stateAllowedOnce, nil},
		{AllowAlways, stateAllowedAlways, nil},
		{AllowAll, stateAllowedAll, nil},
		{Deny, stateDenied, nil},
		{Cancelled, stateCancelled, nil},
		{"", statePending, ErrInvalidDecision},
		{"allow", statePending, ErrInvalidDecision},
	}
	for _, tt := range tests {
		t.Run(string(tt.decision), func(t *testing.T) {
			got, err := statePending.next(tt.decision)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("next(%q) error = %v, want %v", tt.decision, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("next(%q) = %s, want %s", tt.decision, got, tt.want)
			}
		})
	}
}

// Every state but pending is final: no decision moves it.
func TestStateNextFromTerminal(t *testing.T) {
	for _, from := range terminalStates {
		for _, d := range append(allDecisions, "bogus") {
			t.Run(fmt.Sprintf("%s/%s", from, d), func(t *testing.T) {
				wantErr := ErrUnknownRequest
				if d == "bogus" {
					wantErr = ErrInvalidDecision
				}
				got, err := from.next(d)
				if !errors.Is(err, wantErr) {
					t.Errorf("next(%q) error = %v, want %v", d, err, wantErr)
				}
				if got != from {
					t.Errorf("next(%q) = %s, want unchanged %s", d, got, from)
				}
			})
		}
	}
}

func TestDecisionAllows(t *testing.T) {
	want := map[Decision]bool{AllowOnce: true, AllowAlways: true, AllowAll: true, Deny: false, Cancelled: false, "": false}
	for d, w := range want {
		if got := d.Allows(); got != w {
			t.Errorf("%q.Allows() = %v, want %v", d, got, w)
		}
	}
}
