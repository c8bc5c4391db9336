package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/mcpconn"
	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
	"github.com/switchboard-app/switchboard/internal/store"
)

// BenchmarkToolCallOverhead measures what a tool call costs the app beyond
// the call itself: each iteration makes one call of server-everything's
// echo tool through the app's path and one through a bare go-sdk client
// session to another process of the same server, in alternating order, and
// reports the difference of their medians.
//
// The app's path is Engine.runTools with one call, as a model reply with
// one tool call runs it: the registry lookup (the tool source's Tools, as
// core's adapter does), the checks, the approval broker under an "always"
// grant, the audit record (insert, decision with start, finish), the call through
// mcpconn.Manager, and the tool message appended to the conversation.
// Events go to a no-op emitter (the window's would marshal them for the
// frontend).
//
//	go test -run '^$' -bench ToolCallOverhead -benchtime 1000x ./internal/chat/
//
// Metrics: overhead-µs (p50 app − p50 direct, the bench's figure),
// app-p50-µs, direct-p50-µs, paired-p50-µs (median of per-iteration
// differences), manager-p50-µs (mcpconn.Manager.CallTool alone on the
// app's server process: the app's call without chat, approval and audit,
// taking turns with the other two), store-p50-µs (the four database writes
// of one call, timed on their own afterwards).
func BenchmarkToolCallOverhead(b *testing.B) {
	node, script := everythingServer(b)
	ctx := context.Background()
	dir := b.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()

	cfg := serverconf.Config{ID: "everything", Name: "Everything", Transport: serverconf.TransportStdio,
		Command: node, Args: []string{script, "stdio"}, Enabled: true}
	raw, _ := json.Marshal(cfg)
	fp := serverconf.Fingerprint(&cfg)
	if err := st.PutServers(ctx, store.Server{ID: cfg.ID, Name: cfg.Name, Transport: string(cfg.Transport), Enabled: true, Config: string(raw), Fingerprint: fp}); err != nil {
		b.Fatal(err)
	}
	m := mcpconn.NewManager(&mcpconn.Options{PingInterval: -1, ShellPATH: func() string { return filepath.Dir(node) + ":/usr/bin:/bin" }})
	defer m.Close()
	if err := m.Add(cfg); err != nil {
		b.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	waitConnected(b, m, cfg.ID)

	grants := &approval.MemoryPolicyStore{}
	echo, ok := m.Lookup("everything__echo")
	if !ok {
		b.Fatal("no everything__echo tool")
	}
	grants.PutGrant(ctx, approval.Grant{ServerID: cfg.ID, Tool: "echo", Fingerprint: fp, DefinitionHash: echo.DefinitionHash, CreatedAt: time.Now()})
	broker := approval.NewBroker(&approval.Options{Store: grants})
	if err := broker.Load(ctx); err != nil {
		b.Fatal(err)
	}
	e := NewEngine(&Options{Store: st, Tools: benchToolSource{m: m}, Approver: broker})
	defer e.Close()
	conv, err := st.CreateConversation(ctx, store.Conversation{Title: "tool-call bench"})
	if err != nil {
		b.Fatal(err)
	}
	msg, err := st.AppendMessage(ctx, store.Message{ConversationID: conv.ID, Role: store.RoleAssistant})
	if err != nil {
		b.Fatal(err)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(node, script, "stdio")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	args := json.RawMessage(`{"message":"hello from the bench"}`)
	n := 0
	appCall := func() time.Duration {
		n++
		call := llm.ToolCall{ID: fmt.Sprintf("call_%d", n), Name: "everything__echo", Arguments: string(args)}
		start := time.Now()
		e.runTools(ctx, ctx, conv, msg, []llm.ToolCall{call}, e.allTools(), false)
		return time.Since(start)
	}
	directCall := func() time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: args})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("direct call: %v %+v", err, res)
		}
		return d
	}
	managerCall := func() time.Duration {
		start := time.Now()
		if _, err := m.CallTool(ctx, "everything__echo", args, nil); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// Warm both Node processes' JIT and the database's pages.
	for range 200 {
		appCall()
		directCall()
		managerCall()
	}
	if calls, _ := st.ToolCalls(ctx, conv.ID, 0); len(calls) == 0 || calls[len(calls)-1].Status != store.CallDone || calls[len(calls)-1].Decision != "allow_always" {
		b.Fatalf("the app's call did not run by the always grant: %+v", calls[len(calls)-1])
	}

	// The three paths take turns, each first as often as the others, so a
	// slow moment of the machine hits them alike.
	var app, direct, manager, paired []float64
	i := 0
	for b.Loop() {
		var a, d, mg time.Duration
		switch i % 3 {
		case 0:
			a, d, mg = appCall(), directCall(), managerCall()
		case 1:
			d, mg, a = directCall(), managerCall(), appCall()
		default:
			mg, a, d = managerCall(), appCall(), directCall()
		}
		i++
		app, direct, manager = append(app, us(a)), append(direct, us(d)), append(manager, us(mg))
		paired = append(paired, us(a)-us(d))
	}
	b.StopTimer()

	// The database writes of one call alone, for the reader who wants to
	// know where the overhead goes.
	var writes []float64
	for j := range 200 {
		start := time.Now()
		rec, _ := st.InsertToolCall(ctx, store.ToolCall{CallID: fmt.Sprintf("w%d", j), ConversationID: conv.ID, MessageID: msg.ID,
			ServerID: cfg.ID, ServerName: cfg.Name, Tool: "everything__echo", Arguments: string(args), Status: store.CallRunning,
			Decision: "allow_always", DecidedBy: "policy", RequestedAt: time.Now(), StartedAt: time.Now()})
		st.FinishToolCallWithReply(ctx, rec.ID, store.ToolCallEnd{Status: store.CallDone, Result: json.RawMessage(`{"content":[]}`)},
			store.Message{ConversationID: conv.ID, Role: store.RoleTool, Content: "Echo: hello", ToolCallID: rec.CallID})
		writes = append(writes, us(time.Since(start)))
	}

	b.ReportMetric(p50(app)-p50(direct), "overhead-µs")
	b.ReportMetric(p50(app), "app-p50-µs")
	b.ReportMetric(p50(direct), "direct-p50-µs")
	b.ReportMetric(p50(paired), "paired-p50-µs")
	b.ReportMetric(p50(manager), "manager-p50-µs")
	b.ReportMetric(p50(writes), "store-p50-µs")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func p50(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// everythingServer finds Node 22 and server-everything in test/node, or
// skips (fails when SWITCHBOARD_REQUIRE_NODE_SERVERS=1, as make bench
// sets it).
func everythingServer(b *testing.B) (node, script string) {
	n := mcptest.Node(b, "mcp-server-everything")
	return n.Node, n.Script("server-everything")
}

func waitConnected(b *testing.B, m *mcpconn.Manager, id string) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, _ := m.Status(id)
		switch st.State {
		case mcpconn.StateConnected:
			return
		case mcpconn.StateFailed:
			b.Fatalf("%s failed: %s", id, st.Reason)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatalf("%s did not connect", id)
}

// benchToolSource is core's adapter of the connection manager to
// ToolSource (internal/core/chatadapt.go), repeated here because chat may
// not import core.
type benchToolSource struct {
	m *mcpconn.Manager
}

func (t benchToolSource) Tools() []Tool {
	tools := t.m.Tools()
	out := make([]Tool, len(tools))
	for i, x := range tools {
		out[i] = Tool{Name: x.Name, ServerID: x.ServerID, ServerName: x.ServerName, OriginalName: x.OriginalName,
			Description: x.Description, InputSchema: x.InputSchema, Enabled: x.Enabled, Fingerprint: x.Fingerprint,
			DefinitionHash: x.DefinitionHash}
	}
	return out
}

func (t benchToolSource) CallTool(ctx context.Context, ref ToolRef, args json.RawMessage, onProgress func(Progress)) (ToolResult, error) {
	if ref.Fingerprint != "" {
		for _, x := range t.m.Tools() {
			if x.ServerID == ref.ServerID && x.OriginalName == ref.Tool && x.Fingerprint != ref.Fingerprint {
				return ToolResult{}, fmt.Errorf("%w: the configuration of server %s changed", ErrToolChanged, ref.ServerID)
			}
		}
	}
	mref := mcpconn.ToolRef{ServerID: ref.ServerID, Tool: ref.Tool, DefinitionHash: ref.DefinitionHash}
	res, err := t.m.CallToolRef(ctx, mref, args, func(p mcpconn.Progress) {
		if onProgress != nil {
			onProgress(Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
		}
	})
	if err != nil {
		return ToolResult{}, err
	}
	full, _ := json.Marshal(res)
	return ToolResult{Text: res.ForModel(1 << 30), IsError: res.IsError, Full: full}, nil
}
