package core

import (
	"slices"
	"testing"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/store"
)

// TestEveryDecisionHasAWho: the activity view's "who decided" words cover
// every decision the approval package records, and each maps to a word
// the view's filter knows.
func TestEveryDecisionHasAWho(t *testing.T) {
	for _, by := range approval.DecidedBys {
		for _, d := range approval.Decisions {
			if who := store.WhoOf(string(d), string(by)); !slices.Contains(store.Whos, who) {
				t.Errorf("WhoOf(%s, %s) = %q, not one of %v", d, by, who, store.Whos)
			}
		}
	}
	for _, tc := range []struct {
		d    approval.Decision
		by   approval.DecidedBy
		want string
	}{
		{approval.AllowOnce, approval.ByUser, store.WhoUser},
		{approval.AllowAlways, approval.ByPolicy, store.WhoAlways},
		{approval.AllowAll, approval.ByPolicy, store.WhoYolo},
		{approval.AllowReadOnly, approval.ByPolicy, store.WhoReadOnly},
		{approval.AllowOnce, approval.ByPolicy, store.WhoApp}, // a connected app's allowed tool (clients.go)
		{approval.Deny, approval.ByGuard, store.WhoGuard},
		{approval.Cancelled, approval.BySystem, store.WhoSystem},
		{"", "", store.WhoNone},
	} {
		if got := store.WhoOf(string(tc.d), string(tc.by)); got != tc.want {
			t.Errorf("WhoOf(%s, %s) = %q; want %q", tc.d, tc.by, got, tc.want)
		}
	}
}
