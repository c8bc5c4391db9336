package app

import (
	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/store"
)

// ListResources returns a connected server's resources and resource
// templates, and which resources Switchboard follows.
func (a *App) ListResources(serverID string) (*mcpconn.ResourceList, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.Manager.ListResources(a.life, serverID)
}

// ExpandResourceTemplate fills in a resource template's variables and
// returns the URI of the resource to read.
func (a *App) ExpandResourceTemplate(template string, values map[string]string) (string, error) {
	return mcpconn.ExpandTemplate(template, values)
}

// PreviewResource reads a server's resource for the preview: text clipped,
// images as data URLs, binary data described.
func (a *App) PreviewResource(serverID, uri string) (core.ResourcePreview, error) {
	svc, err := a.services()
	if err != nil {
		return core.ResourcePreview{}, err
	}
	return svc.PreviewResource(a.life, serverID, uri)
}

// PreviewContent shapes a block a server sent (an embedded resource in a
// tool result or a prompt) as PreviewResource shapes a resource.
func (a *App) PreviewContent(serverID string, c mcpconn.Content) (core.ResourcePreview, error) {
	return core.PreviewContent(serverID, c), nil
}

// AttachResource reads a server's resource and attaches it (each of its
// parts) to the next message.
func (a *App) AttachResource(serverID, uri string) ([]store.Attachment, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	list, err := svc.AttachResource(a.life, serverID, uri)
	return orEmpty(list), err
}

// AttachContent attaches a block a server sent (an embedded resource or an
// image) to the next message.
func (a *App) AttachContent(serverID string, c mcpconn.Content) (store.Attachment, error) {
	svc, err := a.services()
	if err != nil {
		return store.Attachment{}, err
	}
	return svc.AttachContent(a.life, serverID, c)
}

// SubscribeResource follows a resource's updates (resource:updated), also
// after the server reconnects.
func (a *App) SubscribeResource(serverID, uri string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Manager.Subscribe(a.life, serverID, uri)
}

// UnsubscribeResource stops following a resource's updates.
func (a *App) UnsubscribeResource(serverID, uri string) error {
	svc, err := a.services()
	if err != nil {
		return err
	}
	return svc.Manager.Unsubscribe(a.life, serverID, uri)
}

// CompleteArgument asks a server for values of a prompt's argument or a
// resource template's variable, as typed so far, with the arguments
// already filled in.
func (a *App) CompleteArgument(serverID string, ref mcpconn.CompletionRef, arg, value string, filled map[string]string) (*mcpconn.Completion, error) {
	svc, err := a.services()
	if err != nil {
		return nil, err
	}
	return svc.Manager.Complete(a.life, serverID, ref, arg, value, filled)
}
