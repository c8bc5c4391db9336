package app

import (
	"github.com/switchboard-app/switchboard/internal/approval"
)

// PendingApprovals returns the tool calls waiting for a decision, so a
// reloaded frontend shows them again.
func (a *App) PendingApprovals() ([]approval.Request, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return orEmpty(svc.Broker.Pending()), nil
}

// DecideApproval records the user's decision on a pending call:
// allow_once, allow_always, allow_all or deny.
func (a *App) DecideApproval(id string, decision approval.Decision) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Broker.Decide(a.life, id, decision)
}

// ApprovalPolicy returns the yolo switch and the "always" grants.
func (a *App) ApprovalPolicy() (approval.Policy, error) {
	svc, err := a.services()
	if err != nil {
		return approval.Policy{}, err
	}
	return svc.Broker.Policy(a.life)
}

// RevokeGrant forgets an "always allow".
func (a *App) RevokeGrant(serverID, tool string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Broker.Revoke(a.life, serverID, tool)
}

// SetYolo turns "allow every tool without asking" on or off.
func (a *App) SetYolo(on bool) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Broker.SetYolo(a.life, on)
}

// SetToolPrivate marks a tool of a server (the server's own name for it)
// as reading private data, or removes the mark: the lethal-trifecta guard
// then counts its results as private data.
func (a *App) SetToolPrivate(serverID, tool string, on bool) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.SetPrivate(a.life, serverID, tool, on)
}

// UnmarkPrivate removes a private mark as the policy lists it (by the
// server's fingerprint and the tool), also one of a deleted server.
func (a *App) UnmarkPrivate(fingerprint, tool string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Broker.SetPrivate(a.life, "", fingerprint, tool, false)
}
