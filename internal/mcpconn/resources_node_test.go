package mcpconn

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// server-everything's resources, templates, prompts and completions, over
// stdio and streamable HTTP: what the Tools panel, the composer's "/" and
// switchboard resources|prompts use.
func TestEverythingResourcesAndPrompts(t *testing.T) {
	e := requireNode(t)
	for _, mode := range []string{"stdio", "streamableHttp"} {
		t.Run(mode, func(t *testing.T) {
			m, rec := newTestManager(t, &Options{ShellPATH: e.PATH})
			cfg := everythingStdio("ev")
			if mode != "stdio" {
				cfg = serverconf.Config{ID: "ev", Transport: serverconf.TransportHTTP, URL: startEverythingHTTP(t, e, mode) + "/mcp", Enabled: true}
			}
			m.Add(cfg)
			st := waitState(t, m, "ev", 30*time.Second, StateConnected, StateFailed)
			if st.State != StateConnected {
				t.Fatalf("%s: %s", st.State, st.Reason)
			}
			if diff := cmp.Diff(&Offers{Resources: true, Subscribe: true, Prompts: true, Completions: true}, st.Offers); diff != "" {
				t.Errorf("offers (-want +got):\n%s", diff)
			}
			ctx := t.Context()

			list, err := m.ListResources(ctx, "ev")
			if err != nil {
				t.Fatal(err)
			}
			const doc = "demo://resource/static/document/features.md"
			i := slices.IndexFunc(list.Resources, func(r Resource) bool { return r.URI == doc })
			if i < 0 {
				t.Fatalf("no %s among %+v", doc, list.Resources)
			}
			if r := list.Resources[i]; r.Name != "features.md" || r.MIMEType != "text/markdown" {
				t.Errorf("resource = %+v", r)
			}
			const textTmpl = "demo://resource/dynamic/text/{resourceId}"
			j := slices.IndexFunc(list.Templates, func(t ResourceTemplate) bool { return t.URITemplate == textTmpl })
			if j < 0 {
				t.Fatalf("no template %s among %+v", textTmpl, list.Templates)
			}
			if diff := cmp.Diff([]string{"resourceId"}, list.Templates[j].Variables); diff != "" {
				t.Errorf("variables (-want +got):\n%s", diff)
			}

			read, err := m.ReadResource(ctx, "ev", doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Contents) != 1 || read.Contents[0].Binary || !strings.Contains(read.Contents[0].Text, "#") {
				t.Errorf("read %s = %+v", doc, read)
			}
			uri, err := ExpandTemplate("demo://resource/dynamic/blob/{resourceId}", map[string]string{"resourceId": "3"})
			if err != nil || uri != "demo://resource/dynamic/blob/3" {
				t.Fatalf("expand = %q, %v", uri, err)
			}
			blob, err := m.ReadResource(ctx, "ev", uri)
			if err != nil {
				t.Fatal(err)
			}
			if len(blob.Contents) != 1 || !blob.Contents[0].Binary || !strings.HasPrefix(string(blob.Contents[0].Blob), "Resource 3: This is a base64 blob") {
				t.Errorf("read %s = %+v", uri, blob)
			}
			if _, err := m.ReadResource(ctx, "ev", "demo://resource/nowhere"); !errors.Is(err, ErrServerRefused) {
				t.Errorf("reading an unknown resource: %v, want ErrServerRefused", err)
			}

			prompts, err := m.ListPrompts(ctx, "ev")
			if err != nil {
				t.Fatal(err)
			}
			k := slices.IndexFunc(prompts.Prompts, func(p Prompt) bool { return p.Name == "args-prompt" })
			if k < 0 {
				t.Fatalf("no args-prompt among %+v", prompts.Prompts)
			}
			// (The server's SDK loses the description of its optional argument.)
			want := []PromptArgument{{Name: "city", Description: "Name of the city", Required: true}, {Name: "state"}}
			if diff := cmp.Diff(want, prompts.Prompts[k].Arguments); diff != "" {
				t.Errorf("args-prompt's arguments (-want +got):\n%s", diff)
			}
			got, err := m.GetPrompt(ctx, "ev", "args-prompt", map[string]string{"city": "Lyon", "state": "Rhône"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]PromptMessage{{Role: RoleUser, Content: Content{Type: ContentText, Text: "What's weather in Lyon, Rhône?"}}}, got.Messages); diff != "" {
				t.Errorf("args-prompt's messages (-want +got):\n%s", diff)
			}
			if _, err := m.GetPrompt(ctx, "ev", "args-prompt", nil); !errors.Is(err, ErrServerRefused) {
				t.Errorf("a missing required argument: %v, want ErrServerRefused", err)
			}
			emb, err := m.GetPrompt(ctx, "ev", "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "2"})
			if err != nil {
				t.Fatal(err)
			}
			if len(emb.Messages) != 2 || emb.Messages[1].Content.Type != ContentResource || emb.Messages[1].Content.URI != "demo://resource/dynamic/text/2" {
				t.Errorf("resource-prompt = %+v", emb.Messages)
			}

			// Completion: of a prompt's argument, narrowed by another already
			// filled in, and of a template's variable.
			comp := func(ref CompletionRef, arg, value string, filled map[string]string) []string {
				t.Helper()
				c, err := m.Complete(ctx, "ev", ref, arg, value, filled)
				if err != nil {
					t.Fatalf("complete %s=%q: %v", arg, value, err)
				}
				return c.Values
			}
			prompt := CompletionRef{Type: RefPrompt, Name: "completable-prompt"}
			if diff := cmp.Diff([]string{"Engineering"}, comp(prompt, "department", "En", nil)); diff != "" {
				t.Errorf("department (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"Alice", "Bob", "Charlie"}, comp(prompt, "name", "", map[string]string{"department": "Engineering"})); diff != "" {
				t.Errorf("name in Engineering (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"Grace"}, comp(prompt, "name", "G", map[string]string{"department": "Marketing"})); diff != "" {
				t.Errorf("name in Marketing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"7"}, comp(CompletionRef{Type: RefResource, URI: textTmpl}, "resourceId", "7", nil)); diff != "" {
				t.Errorf("resourceId (-want +got):\n%s", diff)
			}

			// Subscribed, a resource's updates arrive as events (the
			// server sends them once the toggle tool starts them).
			from := rec.Len()
			if err := m.Subscribe(ctx, "ev", doc); err != nil {
				t.Fatal(err)
			}
			if l, _ := m.ListResources(ctx, "ev"); l == nil || !slices.Equal(l.Subscribed, []string{doc}) {
				t.Errorf("subscribed = %v", l)
			}
			callText(t, m, "ev__toggle-subscriber-updates", `{}`)
			wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			defer cancel()
			if _, err := rec.Wait(wctx, from, eventtest.Is(EventResourceUpdated, func(u ResourceUpdated) bool { return u.ServerID == "ev" && u.URI == doc })); err != nil {
				t.Fatalf("no update of %s: %v", doc, err)
			}
			if err := m.Unsubscribe(ctx, "ev", doc); err != nil {
				t.Fatal(err)
			}
			callText(t, m, "ev__toggle-subscriber-updates", `{}`) // off again
		})
	}
}
