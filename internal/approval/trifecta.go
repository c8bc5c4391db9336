package approval

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The lethal trifecta: a conversation that has read private data, taken
// in content from outside (which can carry instructions the model
// follows) and can call a tool that sends data out can be made to leak
// the private data. Each leg alone is ordinary; the three together are
// what an attacker needs. The guard therefore looks at the conversation,
// not at the tool: the caller (chat) works out whether the conversation's
// earlier results brought the first two legs and the called tool is the
// third, and then sets Request.Guard; the Broker asks even when a
// standing policy would allow the call.
//
// A tool's legs come from its MCP annotations, with the spec's defaults
// when it says nothing (readOnlyHint false, openWorldHint true), and from
// the user's marks (PrivateTool).

// Legs says which legs of the lethal trifecta a tool brings to a
// conversation. The zero value brings none.
type Legs struct {
	// Private: its results may hold private data. The user marked it
	// private, or it runs on this machine (a local, stdio server) and does
	// not claim to be read-only, so it may do anything a program of the
	// user can, reading files included.
	Private bool `json:"private,omitempty"`
	// Untrusted: its results may hold content from outside (web pages,
	// mail, other people's data): an open-world tool.
	Untrusted bool `json:"untrusted,omitempty"`
	// Outbound: it can send data out: an open-world tool, read-only or not
	// (a fetch leaks what it puts in its URL), or any tool of a remote
	// server, whose arguments leave the machine whatever it claims.
	Outbound bool `json:"outbound,omitempty"`
}

// ToolLegs classifies a tool: h is what its server says (nil: nothing,
// and the spec's defaults apply), local whether the server runs on this
// machine (stdio), markedPrivate whether the user marked the tool
// private. A read-only claim that is also destructive is no read-only
// claim (ToolHints.ClaimsReadOnly).
func ToolLegs(h *ToolHints, local, markedPrivate bool) Legs {
	openWorld := h == nil || h.OpenWorld == nil || *h.OpenWorld
	return Legs{
		Private:   markedPrivate || local && !h.ClaimsReadOnly(),
		Untrusted: openWorld,
		Outbound:  openWorld || !local,
	}
}

// A Guard says why the lethal-trifecta guard holds for a call: the
// conversation has read private data and taken in outside content (the
// tools that did it, "server tool", at most MaxGuardNames of each), and the
// called tool can send data out. A Request that carries one asks the user
// whatever the standing policy.
type Guard struct {
	// PrivateFrom and UntrustedFrom name the tools whose results brought
	// the private data and the outside content, earliest first.
	PrivateFrom   []string `json:"privateFrom"`
	UntrustedFrom []string `json:"untrustedFrom"`
	// Tool is the called tool, which can send data out.
	Tool string `json:"tool"`
	// Reason says all of it in a sentence, for the user and the model
	// (what to do about it is the asker's to add).
	Reason string `json:"reason"`
}

// MaxGuardNames is how many tools a Guard names for each leg; more are
// summed up as "and others".
const MaxGuardNames = 3

// NewGuard returns the Guard of a call of tool in a conversation whose
// results from privateFrom brought private data and from untrustedFrom
// outside content. Each list is cut to MaxGuardNames; more=true says
// there were others (the lists a store returns are bounded too).
func NewGuard(tool string, privateFrom, untrustedFrom []string, morePrivate, moreUntrusted bool) *Guard {
	g := &Guard{Tool: clipName(tool)}
	g.PrivateFrom, morePrivate = names(privateFrom, morePrivate)
	g.UntrustedFrom, moreUntrusted = names(untrustedFrom, moreUntrusted)
	g.Reason = fmt.Sprintf("This conversation has read private data (%s) and taken in outside content (%s); %s can send data out.",
		list(g.PrivateFrom, morePrivate), list(g.UntrustedFrom, moreUntrusted), g.Tool)
	return g
}

// names clips each name and cuts the list to MaxGuardNames.
func names(in []string, more bool) ([]string, bool) {
	out := make([]string, 0, min(len(in), MaxGuardNames))
	for _, n := range in {
		if len(out) == MaxGuardNames {
			return out, true
		}
		out = append(out, clipName(n))
	}
	return out, more
}

func list(names []string, more bool) string {
	s := strings.Join(names, ", ")
	if more {
		s += " and others"
	}
	return cmp.Or(s, "an earlier tool")
}

// clipName bounds a name a server or the user chose, for the reason.
func clipName(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// A PrivateTool is the user's mark that a tool reads private data: its
// results count as the private leg (Legs.Private) whatever its
// annotations say. It is tied to what runs, the server's Fingerprint,
// and to the server's own name for the tool; ServerID is the server it
// was made on, for display. Unlike a grant it is a restriction, so it
// never lapses by itself: ServerChanged carries a server's marks over to
// its new fingerprint.
type PrivateTool struct {
	Fingerprint string    `json:"fingerprint"`
	Tool        string    `json:"tool"`
	ServerID    string    `json:"serverId"`
	CreatedAt   time.Time `json:"createdAt" ts_type:"string"`
}

// MaxPrivateTools bounds the marks the Broker keeps; SetPrivate refuses
// one more.
const MaxPrivateTools = 1000

// A PrivateStore persists the tools the user marked private. A
// PolicyStore that is one too keeps them; with one that is not, the
// Broker keeps them in memory only (until restart).
type PrivateStore interface {
	// PrivateTools returns every stored mark.
	PrivateTools(ctx context.Context) ([]PrivateTool, error)
	// PutPrivateTool stores p, replacing any for the same fingerprint
	// and tool.
	PutPrivateTool(ctx context.Context, p PrivateTool) error
	// DeletePrivateTool removes the mark of fingerprint and tool;
	// removing one that does not exist is not an error.
	DeletePrivateTool(ctx context.Context, fingerprint, tool string) error
}

type privateKey struct{ fingerprint, tool string }

// SetPrivate marks tool (the server's own name for it) of server serverID,
// whose fingerprint is fingerprint, as reading private data (on), or
// removes the mark; it emits EventPolicy. The mark is a restriction, so
// a store failure never leaves less guarded than asked: marking still
// happens in memory (until restart), unmarking does not; either way the
// error is returned.
func (b *Broker) SetPrivate(ctx context.Context, serverID, fingerprint, tool string, on bool) error {
	if fingerprint == "" || tool == "" || len(tool) > 256 {
		return fmt.Errorf("%w: a private mark needs the server's fingerprint and a tool name of at most 256 bytes", ErrInvalidRequest)
	}
	p := PrivateTool{Fingerprint: fingerprint, Tool: tool, ServerID: serverID, CreatedAt: b.now()}
	k := privateKey{fingerprint, tool}
	if on {
		b.mu.Lock()
		_, had := b.private[k]
		full := !had && len(b.private) >= MaxPrivateTools
		b.mu.Unlock()
		if full {
			return fmt.Errorf("%d tools are marked private already; unmark some in Settings → Approvals first", MaxPrivateTools)
		}
	}
	return b.change(ctx, func() error {
		ps, ok := b.store.(PrivateStore)
		switch {
		case !ok:
			return nil
		case on:
			if err := ps.PutPrivateTool(ctx, p); err != nil {
				return fmt.Errorf("saving the private mark of %s: %w; it holds until Switchboard restarts, try again", tool, err)
			}
		default:
			if err := ps.DeletePrivateTool(ctx, fingerprint, tool); err != nil {
				return fmt.Errorf("removing the private mark of %s: %w", tool, err)
			}
		}
		return nil
	}, func(err error) {
		if on {
			b.private[k] = p
			return
		}
		if err == nil {
			delete(b.private, k)
		}
	})
}

// IsPrivate reports whether the user marked tool (the server's own name
// for it) of the server with fingerprint as reading private data. It is
// false for every tool until the policy has been loaded (Load, which
// Services.Start calls).
func (b *Broker) IsPrivate(fingerprint, tool string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.private[privateKey{fingerprint, tool}]
	return ok
}

// privateLocked returns the marks sorted by fingerprint, then tool; nil
// when there are none.
func (b *Broker) privateLocked() []PrivateTool {
	var out []PrivateTool
	for _, p := range b.private {
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y PrivateTool) int {
		return cmp.Or(cmp.Compare(x.Fingerprint, y.Fingerprint), cmp.Compare(x.Tool, y.Tool))
	})
	return out
}

// savePrivateMove carries server serverID's marks over to fingerprint in
// the store, if it keeps them: each new mark is saved before the old one
// goes, so a failure leaves a mark too many, never one too few. It runs
// in change's write; movePrivateLocked then does the same in memory.
func (b *Broker) savePrivateMove(ctx context.Context, serverID, fingerprint string) []error {
	ps, ok := b.store.(PrivateStore)
	if !ok {
		return nil
	}
	b.mu.Lock()
	moved := b.marksToMoveLocked(serverID, fingerprint)
	b.mu.Unlock()
	var errs []error
	for _, p := range moved {
		np := p
		np.Fingerprint = fingerprint
		if err := ps.PutPrivateTool(ctx, np); err != nil {
			errs = append(errs, fmt.Errorf("keeping the private mark of %s on changed server %s: %w", p.Tool, serverID, err))
			continue
		}
		if err := ps.DeletePrivateTool(ctx, p.Fingerprint, p.Tool); err != nil {
			errs = append(errs, fmt.Errorf("moving the private mark of %s on changed server %s: %w", p.Tool, serverID, err))
		}
	}
	return errs
}

// movePrivateLocked carries server serverID's marks over to fingerprint
// in memory, whatever the store did.
func (b *Broker) movePrivateLocked(serverID, fingerprint string) {
	for _, p := range b.marksToMoveLocked(serverID, fingerprint) {
		delete(b.private, privateKey{p.Fingerprint, p.Tool})
		p.Fingerprint = fingerprint
		b.private[privateKey{fingerprint, p.Tool}] = p
	}
}

func (b *Broker) marksToMoveLocked(serverID, fingerprint string) []PrivateTool {
	var out []PrivateTool
	for _, p := range b.private {
		if p.ServerID == serverID && p.Fingerprint != fingerprint {
			out = append(out, p)
		}
	}
	return out
}
