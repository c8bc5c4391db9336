package chat

import "context"

// A CallOrigin is the conversation a tool call runs for. The engine puts
// it in the context of ToolSource.CallTool, so that what a server asks
// while the call runs (a completion, through sampling) can use that
// conversation's model.
type CallOrigin struct {
	ConversationID string
	// ProviderID and Model are the conversation's; empty means the
	// default provider and that provider's default model.
	ProviderID, Model string
}

type originKey struct{}

func withOrigin(ctx context.Context, o CallOrigin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginOf returns the origin of the tool call ctx belongs to.
func OriginOf(ctx context.Context) (CallOrigin, bool) {
	o, ok := ctx.Value(originKey{}).(CallOrigin)
	return o, ok
}

// A TurnClient is the connected app (an external MCP client) a turn runs
// for: its tool calls go to the Approver as asked by that app
// (approval.RequestedByClient), and their audit records say so.
type TurnClient struct {
	ID, Name string
}

type clientKey struct{}

// WithClient marks the turns run with ctx (Engine.Run) as started by the
// connected app id, called name.
func WithClient(ctx context.Context, id, name string) context.Context {
	return context.WithValue(ctx, clientKey{}, TurnClient{ID: id, Name: name})
}

// ClientOf returns the connected app whose turn ctx belongs to; ok is
// false for the user's own turns.
func ClientOf(ctx context.Context) (TurnClient, bool) {
	c, ok := ctx.Value(clientKey{}).(TurnClient)
	return c, ok && c.ID != ""
}
