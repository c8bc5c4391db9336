package clients

import (
	"context"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Record adds e to the audit; a zero At means now. Its text fields are
// cut to bounded lengths (what a client sends is not trusted to be
// short), and the audit keeps its newest entries only (Options.AuditKeep).
func (r *Registry) Record(ctx context.Context, e AuditEntry) error {
	if e.At.IsZero() {
		e.At = r.now()
	}
	_, err := r.st.InsertClientAudit(ctx, store.ClientAuditEntry{
		ClientID:       clip(e.ClientID, maxRefLen),
		ClientName:     clip(e.ClientName, 4*MaxNameLen),
		Transport:      clip(e.Transport, 16),
		Operation:      clip(oneLine(e.Operation), maxAuditOp),
		ConversationID: clip(e.ConversationID, maxRefLen),
		Allowed:        e.Allowed,
		Reason:         clip(e.Reason, maxReason),
		At:             e.At.Truncate(time.Millisecond),
	}, r.opts.AuditKeep)
	return err
}

// Audit returns the entries f selects, newest first.
func (r *Registry) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	list, err := r.st.ClientAudit(ctx, store.ClientAuditFilter{Client: strings.TrimSpace(f.Client), Operation: f.Operation,
		ConversationID: f.ConversationID, Allowed: f.Allowed, Since: f.Since, Until: f.Until, Query: f.Query,
		Before: f.Before, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]AuditEntry, len(list))
	for i, e := range list {
		out[i] = AuditEntry{ID: e.ID, ClientID: e.ClientID, ClientName: e.ClientName, Transport: e.Transport,
			Operation: e.Operation, ConversationID: e.ConversationID, Allowed: e.Allowed, Reason: e.Reason, At: e.At}
	}
	return out, nil
}

// oneLine replaces line breaks and other control characters with spaces,
// so an operation a client named prints on one line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
