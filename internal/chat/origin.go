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
