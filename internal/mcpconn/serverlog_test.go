package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// loggingServer is an in-process server that declares logging; its tool
// "say" logs one message at each of debug, info and warning, and "flood"
// logs n messages.
func loggingServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "logger", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "say"}, func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "t", Data: "quiet"})
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "t", Data: "hello"})
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: map[string]any{"k": 1}})
		return &mcp.CallToolResult{}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "flood"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{ N int }) (*mcp.CallToolResult, any, error) {
		for i := range in.N {
			req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: fmt.Sprintf("line %d %s", i, strings.Repeat("x", 4000))})
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	return srv
}

// connectInProcess makes m connect every server to srv in process.
func connectInProcess(m *Manager, srv *mcp.Server) {
	m.testTransport = func(serverconf.Config) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// serverLines are the texts of the ring's lines that are not Switchboard's.
func serverLines(r *logbuf.Ring) []string {
	var out []string
	for _, l := range r.Lines(0, 0) {
		if !strings.HasPrefix(l.Text, markerPrefix) {
			out = append(out, string(l.Level)+" "+l.Text)
		}
	}
	return out
}

// TestServerLogLevel: a server's log messages land in its log at the level
// the user set, over both ways of asking (logging/setLevel before
// 2026-07-28, the request's _meta from then on), and none before one is
// set (the Go SDK's servers send nothing until asked).
func TestServerLogLevel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hints map[string]string
		proto string
	}{
		{"2026-07-28", nil, "2026-07-28"},
		{"initialize", map[string]string{"lg": "2025-11-25"}, "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1, ProtocolHints: tc.hints})
			connectInProcess(m, loggingServer())
			defer m.Close()
			m.Start(t.Context())
			cfg := serverconf.Config{ID: "lg", Enabled: true}
			m.Add(cfg)
			st := waitState(t, m, "lg", 10*time.Second, StateConnected)
			if st.ProtocolVersion != tc.proto || !st.Logging {
				t.Fatalf("status %+v, want protocol %s with logging", st, tc.proto)
			}
			ring := m.Stderr("lg")
			callText(t, m, "lg__say", `{}`)
			time.Sleep(200 * time.Millisecond) // a message may follow the result
			if got := serverLines(ring); len(got) != 0 {
				t.Fatalf("with no level set, the log got %q", got)
			}

			cfg.LogLevel = "info"
			m.Update(cfg)
			want := []string{"info [info] t: hello", `warn [warning] {"k":1}`}
			waitLines(t, m, ring, want)

			cfg.LogLevel = "debug"
			m.Update(cfg)
			waitLines(t, m, ring, []string{"debug [debug] t: quiet", "info [info] t: hello", `warn [warning] {"k":1}`})
			if st, _ := m.Status("lg"); st.State != StateConnected {
				t.Errorf("changing the level reconnected the server: %+v", st)
			}
		})
	}
}

// waitLines calls say until the lines one call logs are want (the level
// is sent in the background, so the first calls may come before it; and
// a message may arrive after the call's result).
func waitLines(t *testing.T, m *Manager, ring *logbuf.Ring, want []string) {
	t.Helper()
	ch, cancel := ring.Subscribe(100)
	defer cancel()
	var got []string
	for range 20 {
		got = nil
		callText(t, m, "lg__say", `{}`)
		settle := time.After(250 * time.Millisecond)
	read:
		for len(got) < len(want) {
			select {
			case u := <-ch:
				got = append(got, string(u.Level)+" "+u.Text)
			case <-settle:
				break read
			}
		}
		if slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("log lines of one call (-want +got):\n%s", cmp.Diff(want, got))
}

// TestServerLogFlood: a server that sends thousands of log messages costs
// logRate lines a second, and the count of the rest is said.
func TestServerLogFlood(t *testing.T) {
	m := NewManager(&Options{Logger: testLogger(t), PingInterval: -1})
	connectInProcess(m, loggingServer())
	defer m.Close()
	m.Start(t.Context())
	m.Add(serverconf.Config{ID: "lg", Enabled: true, LogLevel: "debug"})
	waitState(t, m, "lg", 10*time.Second, StateConnected)
	ring := m.Stderr("lg")
	start := time.Now()
	callText(t, m, "lg__flood", `{"N":3000}`)
	lines := serverLines(ring)
	// logRate a second, in every second the flood touched (on a loaded
	// machine it may take several).
	if most := logRate * (int(time.Since(start)/time.Second) + 2); len(lines) > most {
		t.Fatalf("%d lines of 3000 messages kept in %s, want at most %d", len(lines), time.Since(start).Round(time.Millisecond), most)
	}
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "error [error] line 0 xxx") || !strings.Contains(lines[0], "[clipped: 4,007 bytes]") {
		t.Errorf("first line %.80q…", lines)
	}
	time.Sleep(1100 * time.Millisecond)
	callText(t, m, "lg__flood", `{"N":1}`)
	all := ring.Lines(0, 0)
	note := slices.IndexFunc(all, func(l logbuf.Line) bool {
		return strings.Contains(l.Text, "log messages of the server: it sent more than")
	})
	if note < 0 {
		t.Fatalf("no note of the dropped messages in %d lines", len(all))
	}
	if n := regexp.MustCompile(`dropped (\d+) log`).FindStringSubmatch(all[note].Text); n == nil || n[1] == "0" {
		t.Errorf("note %q", all[note].Text)
	}
}

func TestLogGate(t *testing.T) {
	var g logGate
	t0 := time.Unix(1000, 0)
	kept := 0
	for i := range logRate + 5 {
		if ok, dropped, _ := g.admit(t0.Add(time.Duration(i) * time.Millisecond)); ok {
			kept++
		} else if dropped != 0 {
			t.Fatalf("dropped reported mid-second: %d", dropped)
		}
	}
	if kept != logRate {
		t.Errorf("kept %d in one second, want %d", kept, logRate)
	}
	ok, dropped, _ := g.admit(t0.Add(time.Second))
	if !ok || dropped != 5 {
		t.Errorf("next second: ok %v, dropped %d; want true, 5", ok, dropped)
	}
	if _, dropped, _ := g.admit(t0.Add(1100 * time.Millisecond)); dropped != 0 {
		t.Errorf("dropped said twice: %d", dropped)
	}
}

// TestLogGateFlushesAFloodThatStops: the first message dropped in a second
// asks for a flush at its end, and take counts what no later message said.
func TestLogGateFlushesAFloodThatStops(t *testing.T) {
	var g logGate
	t0 := time.Unix(1000, 0)
	var flushes []time.Time
	for i := range logRate + 3 {
		if _, _, at := g.admit(t0.Add(time.Duration(i) * time.Millisecond)); !at.IsZero() {
			flushes = append(flushes, at)
		}
	}
	if len(flushes) != 1 || !flushes[0].Equal(t0.Add(time.Second)) {
		t.Fatalf("flushes %v, want one at the end of the second", flushes)
	}
	if n := g.take(); n != 3 {
		t.Errorf("take = %d, want 3", n)
	}
	if _, dropped, _ := g.admit(t0.Add(2 * time.Second)); dropped != 0 {
		t.Errorf("dropped said again after take: %d", dropped)
	}
}

func TestFormatLogMessage(t *testing.T) {
	long := strings.Repeat("é", maxLogData) // two bytes each
	tests := []struct {
		name string
		p    mcp.LoggingMessageParams
		want string
	}{
		{"string", mcp.LoggingMessageParams{Level: "notice", Logger: "db", Data: "ready"}, "[notice] db: ready"},
		{"no logger", mcp.LoggingMessageParams{Level: "info", Data: "x"}, "[info] x"},
		{"json", mcp.LoggingMessageParams{Level: "error", Data: map[string]any{"b": "<a&b>", "a": []any{1.0, true}}}, `[error] {"a":[1,true],"b":"<a&b>"}`},
		{"nil data", mcp.LoggingMessageParams{Level: "debug", Logger: "x"}, "[debug] x: "},
		{"newlines", mcp.LoggingMessageParams{Level: "info", Data: "one\r\ntwo\nthree"}, "[info] one ⏎ two ⏎ three"},
		{"controls", mcp.LoggingMessageParams{Level: "info", Data: "bell\a esc\x1b[31m nul\x00"}, `[info] bell\u0007 esc\u001b[31m nul\u0000`},
		{"bidi", mcp.LoggingMessageParams{Level: "info", Logger: "a\u202eb", Data: "x\u2066y"}, `[info] a\u202eb: x\u2066y`},
		{"bad utf8", mcp.LoggingMessageParams{Level: "info", Data: "a\xffb"}, "[info] a\ufffdb"},
		{"level clipped", mcp.LoggingMessageParams{Level: mcp.LoggingLevel(strings.Repeat("v", 40)), Data: "x"}, "[" + strings.Repeat("v", 16) + "] x"},
		{"logger clipped", mcp.LoggingMessageParams{Level: "info", Logger: strings.Repeat("L", 100), Data: "x"}, "[info] " + strings.Repeat("L", maxLoggerName) + "…: x"},
		{"clipped", mcp.LoggingMessageParams{Level: "info", Data: long}, "[info] " + strings.Repeat("é", maxLogData/2) + " … [clipped: 4,096 bytes]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatLogMessage(&tt.p); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestEverythingLogging: server-everything's simulated logging (random
// levels, the first at once) lands in its log over stdio and streamable
// HTTP once a level is set.
func TestEverythingLogging(t *testing.T) {
	e := requireNode(t)
	for _, transport := range []serverconf.Transport{serverconf.TransportStdio, serverconf.TransportHTTP} {
		t.Run(string(transport), func(t *testing.T) {
			m, _ := newTestManager(t, &Options{ShellPATH: e.PATH})
			cfg := everythingStdio("ev")
			if transport == serverconf.TransportHTTP {
				cfg = serverconf.Config{ID: "ev", Transport: transport, URL: startEverythingHTTP(t, e, "streamableHttp") + "/mcp", Enabled: true}
			}
			cfg.LogLevel = "debug"
			m.Add(cfg)
			if st := waitState(t, m, "ev", 30*time.Second, StateConnected, StateFailed); !st.Logging {
				t.Fatalf("status %+v, want logging", st)
			}
			ring := m.Stderr("ev")
			seq := ring.LastSeq()
			callText(t, m, "ev__toggle-simulated-logging", `{}`)
			defer callText(t, m, "ev__toggle-simulated-logging", `{}`)
			re := regexp.MustCompile(`^\[(debug|info|notice|warning|error|critical|alert|emergency)\] (\w+)[- ]level[- ]message`)
			deadline := time.Now().Add(10 * time.Second)
			for {
				lines := ring.Lines(seq, 0)
				i := slices.IndexFunc(lines, func(l logbuf.Line) bool { return re.MatchString(l.Text) })
				if i >= 0 {
					l := lines[i]
					lv := re.FindStringSubmatch(l.Text)[1]
					if l.Level != ringLevel(mcp.LoggingLevel(lv)) {
						t.Errorf("line %q has level %s", l.Text, l.Level)
					}
					t.Logf("%s: %s %s", transport, l.Level, l.Text)
					return
				}
				if time.Now().After(deadline) {
					raw, _ := json.Marshal(lines)
					t.Fatalf("no simulated log message in %s", raw)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
