package core

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/eventtest"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// server-system-monitor (npm, over stdio: --stdio, never its default of
// listening on every interface): its view polls the app-only tool
// poll-system-stats, which the view may call once the user allows it and
// which is never offered to a model.
func TestSystemMonitorView(t *testing.T) {
	path := mcptest.Node(t, "mcp-system-monitor-server").PATH()
	user := &askedUser{wait: true}
	c, svc := startServices(t, t.TempDir(), "http://127.0.0.1:9", user,
		&mcpconn.Options{ShellPATH: func() string { return path }, PingInterval: -1, AppViews: true})
	user.broker = func() *approval.Broker { return svc.Broker }
	ctx := t.Context()
	cfg := serverconf.Config{ID: "monitor", Name: "Monitor", Transport: serverconf.TransportStdio, Command: "mcp-system-monitor-server",
		Args: []string{"--stdio"}, Enabled: true}
	if _, err := svc.Servers.Save(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(ctx, c.Log); err != nil {
		t.Fatal(err)
	}
	waitState(t, svc, "monitor", mcpconn.StateConnected)
	conv, err := c.Store.CreateConversation(ctx, store.Conversation{})
	if err != nil {
		t.Fatal(err)
	}

	set, err := svc.Chat.ToolsFor(ctx, conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, tc := range set.Tools {
		offered = append(offered, tc.Name)
	}
	if !strings.Contains(strings.Join(offered, " "), "monitor__get-system-info") || strings.Contains(strings.Join(offered, " "), "poll-system-stats") {
		t.Errorf("the model's tools are %q; want get-system-info and not the app-only poll-system-stats", offered)
	}

	v, err := svc.OpenAppView(ctx, conv.ID, "monitor", "get-system-info")
	if err != nil {
		t.Fatal(err)
	}
	if v.ResourceURI != "ui://system-monitor/mcp-app.html" || len(v.ExternalDomains) != 0 {
		t.Errorf("view %+v", v)
	}
	user.answer(approval.AllowOnce)
	res, err := svc.AppViewCallTool(ctx, v.ID, "poll-system-stats", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var stats map[string]any
	if res.IsError || json.Unmarshal(res.StructuredContent, &stats) != nil || stats["memory"] == nil {
		t.Errorf("poll-system-stats gave %+v", res)
	}
	asked := eventtest.Payloads[approval.Request](&user.Recorder, approval.EventRequested)
	if len(asked) != 1 || asked[0].RequestedBy != approval.RequestedByView || asked[0].Tool != "poll-system-stats" {
		t.Errorf("asked %+v; want the view's call of poll-system-stats", asked)
	}
	if calls, _ := svc.store.ViewCalls(ctx, conv.ID, 0); len(calls) != 1 || calls[0].Status != store.CallDone {
		t.Errorf("audit %+v", calls)
	}
}
