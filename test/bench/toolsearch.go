package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/approval"
	"github.com/switchboard-app/switchboard/internal/chat"
	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/switchboard-app/switchboard/internal/toolsearch"
	"github.com/switchboard-app/switchboard/internal/toolsearch/toolsearchtest"
)

// benchToolSearch measures tool search with the 300 realistic tools of ten
// servers (toolsearchtest.Catalog) through the real chat engine, store and
// search, against a scripted OpenAI-compatible model (llmtest with a
// Respond): the bytes of tool definitions per request with tool search
// on, against the same conversation with every tool offered (the
// baseline, in the same run); and, for each of the 300 tools named as a
// target, whether the model found it with a search made of words from its
// description and called it through call_tool within two round trips.
func benchToolSearch(cfg *config, rep *Report) {
	const (
		bytesKey, ratioKey, missedKey = "toolsearch_request_bytes", "toolsearch_bytes_ratio", "toolsearch_not_found"
		queryWords                    = 5
	)
	bytesTarget, ratioTarget, missedTarget := ptr(8192.0), ptr(0.1), ptr(0.0)
	fail := func(why string) {
		rep.add(bytesKey, notMeasured("bytes", bytesTarget, why))
		rep.add(ratioKey, notMeasured("×", ratioTarget, why))
		rep.add(missedKey, notMeasured("tools", missedTarget, why))
	}
	catalog := toolsearchtest.Catalog()
	byName := map[string]toolsearchtest.Tool{}
	for _, t := range catalog {
		byName[t.Exposed()] = t
	}
	model := &searchingModel{byName: byName, words: queryWords}
	srv := llmtest.NewServer(nil, &llmtest.Options{Respond: model.respond})
	defer srv.Close()

	ctx := context.Background()
	dir := filepath.Join(cfg.tmp, "toolsearch")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err.Error())
		return
	}
	st, err := store.Open(ctx, filepath.Join(dir, "bench.db"), nil)
	if err != nil {
		fail(fmt.Sprintf("opening a store: %v", err))
		return
	}
	defer st.Close()
	source := &catalogSource{tools: catalogTools(catalog)}
	engine := chat.NewEngine(&chat.Options{
		Store: st,
		Provider: func(context.Context, string) (*llm.Client, string, error) {
			c, err := llm.NewClient(llm.ProviderConfig{BaseURL: srv.URL, APIKey: "k"})
			return c, "scripted", err
		},
		Tools:         source,
		Approver:      allowAll{},
		MaxToolRounds: 4,
	})
	defer engine.Close()

	// turn runs one turn naming target and returns its requests.
	turn := func(target string) ([]llmtest.Request, error) {
		before := len(srv.Requests())
		conv, err := st.CreateConversation(ctx, store.Conversation{})
		if err != nil {
			return nil, err
		}
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		res, err := engine.Run(tctx, conv.ID, "use "+target)
		if err != nil {
			return nil, err
		}
		if res.Status != store.StatusDone {
			return nil, fmt.Errorf("turn %s: %s", res.Status, res.Error)
		}
		return srv.Requests()[before:], nil
	}

	// The baseline: every tool offered, the model calls the target itself.
	engine.SetToolSearch(toolsearch.Settings{Mode: toolsearch.ModeOff})
	reqs, err := turn(catalog[0].Exposed())
	if err != nil || len(reqs) == 0 {
		fail(fmt.Sprintf("the baseline turn (every tool offered): %v", err))
		return
	}
	all := len(requestTools(reqs[0]))
	allTurn := 0
	for _, r := range reqs {
		allTurn += len(requestTools(r))
	}

	// Tool search on (auto: 300 tools are past 64), each tool a target.
	engine.SetToolSearch(toolsearch.Settings{})
	var perRequest, resultBytes, turnBytes, rounds []float64
	var missed []string
	start := time.Now()
	turns := 0
	for _, t := range catalog {
		target := t.Exposed()
		model.reset(target)
		before := source.count(target)
		reqs, err := turn(target)
		if err != nil {
			missed = append(missed, fmt.Sprintf("%s (%v)", target, err))
			continue
		}
		turns++
		tb := 0
		for _, r := range reqs {
			n := len(requestTools(r))
			perRequest = append(perRequest, float64(n))
			tb += n
		}
		// The search's answer rides along in every later request.
		res := model.result(target)
		resultBytes = append(resultBytes, float64(len(res)))
		tb += len(res) * max(0, len(reqs)-2)
		turnBytes = append(turnBytes, float64(tb))
		// Found within two round trips: the call is the second request's
		// answer, and the target ran.
		calledAt := model.calledAt(target)
		rounds = append(rounds, float64(calledAt))
		if source.count(target) != before+1 || calledAt == 0 || calledAt > 2 {
			missed = append(missed, fmt.Sprintf("%s (searched %q, call at round trip %d)", target, model.query(target), calledAt))
		}
	}
	took := time.Since(start)
	if len(perRequest) == 0 {
		fail("no turn with tool search ran: " + strings.Join(missed[:min(3, len(missed))], "; "))
		return
	}
	maxReq := slices.Max(perRequest)

	// The search alone, 300 tools, as the engine runs it.
	var searchUs []float64
	docs := make([]toolsearch.Tool, len(catalog))
	for i, t := range catalog {
		docs[i] = toolsearch.Tool{Name: t.Exposed(), OriginalName: t.Name, Server: t.ServerName, Description: t.Description, InputSchema: t.InputSchema}
	}
	for _, t := range catalog {
		s := time.Now()
		toolsearch.NewIndex(docs).Search(toolsearchtest.QueryFor(t, queryWords), toolsearch.DefaultResults)
		searchUs = append(searchUs, float64(time.Since(s).Microseconds()))
	}

	how := fmt.Sprintf("bytes of the \"tools\" array of each request to a scripted OpenAI-compatible model, through the real chat engine, store and "+
		"tool search (setting auto, default thresholds), for 300 turns each naming one of the 300 generated tools of 10 servers "+
		"(toolsearch/toolsearchtest.Catalog: %d KB of definitions); the largest request; baseline: the same turn with tool search off", all/1024)
	extra := map[string]any{"allOfferedBytes": all, "maxRequestToolBytes": maxReq, "searchResultBytesP50": median(resultBytes),
		"searchResultBytesMax": slices.Max(resultBytes), "turnToolBytesWithSearchP50": median(turnBytes), "turnToolBytesAllOffered": allTurn,
		"turnToolBytesRatio": round(median(turnBytes)/float64(allTurn), 3), "searchOnlyP50us": median(searchUs), "turns": turns, "tookS": round(took.Seconds(), 1)}
	rep.add(bytesKey, Figure{Value: ptr(maxReq), Unit: "bytes", Runs: 1, Target: bytesTarget,
		Baseline: ptr(float64(all)), BaselineUnit: "bytes", BaselineWhat: "every one of the 300 tools offered in the request",
		How: how, Extra: extra,
		Note: fmt.Sprintf("a whole turn (search, call, answer) carries a median %.0f bytes of tool definitions with search (the pair in three requests, "+
			"the search's answer in two) against %d with every tool offered (300 tools in two requests)", median(turnBytes), allTurn)})
	rep.add(ratioKey, Figure{Value: ptr(round(maxReq/float64(all), 4)), Unit: "×", Runs: 1, Target: ratioTarget,
		Baseline: ptr(float64(all)), BaselineUnit: "bytes", BaselineWhat: "every one of the 300 tools offered in the request",
		How: "the largest request's tool bytes with tool search on, over the same request's with every tool offered"})
	f := Figure{Value: ptr(float64(len(missed))), Unit: "tools", Runs: 1, Target: missedTarget,
		How: fmt.Sprintf("of 300 target tools, how many the scripted model did not find and call within two round trips: it searches with the first %d words "+
			"(of three letters or more) of the target's description and calls the target through call_tool only if the search returned it", queryWords),
		Extra: map[string]any{"found": 300 - len(missed), "of": 300, "callRoundTripP50": median(rounds)}}
	if len(missed) > 0 {
		f.Note = "MISSED: " + strings.Join(missed[:min(10, len(missed))], "; ")
	}
	rep.add(missedKey, f)
	cfg.logf("tool search: %d of 300 found; largest request %.0f bytes of tools against %d", 300-len(missed), maxReq, all)
}

// requestTools is the raw "tools" array of a recorded request.
func requestTools(r llmtest.Request) json.RawMessage {
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	json.Unmarshal(r.Body, &body)
	return body.Tools
}

// A searchingModel is the scripted model: asked to "use TARGET", it
// calls the target directly when offered, else searches with words of the
// target's description and, if the search returned the target, calls it
// through call_tool; then it answers.
type searchingModel struct {
	byName map[string]toolsearchtest.Tool
	words  int

	mu      sync.Mutex
	queries map[string]string
	results map[string]string
	called  map[string]int // the round trip whose answer called the target
}

func (m *searchingModel) respond(req llmtest.ChatRequest, n int) llmtest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queries == nil {
		m.queries, m.results, m.called = map[string]string{}, map[string]string{}, map[string]int{}
	}
	target, round := "", 0
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			target = strings.TrimPrefix(msg.Content, "use ")
		case "assistant":
			round++
		}
	}
	round++ // this request's answer
	t, ok := m.byName[target]
	if !ok {
		return llmtest.Text("no such target")
	}
	last := req.Messages[len(req.Messages)-1]
	offered := map[string]bool{}
	for _, tool := range req.Tools {
		offered[tool.Function.Name] = true
	}
	call := func(name, args string) llmtest.Reply {
		return llmtest.Calls(llmtest.ToolCall{ID: fmt.Sprintf("call_%d", n), Name: name, Arguments: []string{args}})
	}
	switch {
	case last.Role == "user" && offered[target]:
		m.called[target] = round
		return call(target, "{}")
	case last.Role == "user" && offered[toolsearch.SearchName]:
		q := toolsearchtest.QueryFor(t, m.words)
		m.queries[target] = q
		args, _ := json.Marshal(map[string]string{"query": q})
		return call(toolsearch.SearchName, string(args))
	case last.Role == "tool" && m.queries[target] != "" && m.results[target] == "":
		m.results[target] = last.Content
		var r struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		json.Unmarshal([]byte(last.Content), &r)
		if !slices.ContainsFunc(r.Tools, func(x struct {
			Name string `json:"name"`
		}) bool {
			return x.Name == target
		}) {
			return llmtest.Text("the search did not find it")
		}
		m.called[target] = round
		args, _ := json.Marshal(map[string]any{"name": target, "arguments": map[string]any{}})
		return call(toolsearch.CallName, string(args))
	}
	return llmtest.Text("done")
}

// reset forgets what the model did for target.
func (m *searchingModel) reset(target string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.queries, target)
	delete(m.results, target)
	delete(m.called, target)
}

func (m *searchingModel) query(target string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.queries[target]
}

func (m *searchingModel) result(target string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.results[target]
}

func (m *searchingModel) calledAt(target string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.called[target]
}

func catalogTools(catalog []toolsearchtest.Tool) []chat.Tool {
	out := make([]chat.Tool, len(catalog))
	for i, t := range catalog {
		out[i] = chat.Tool{Name: t.Exposed(), ServerID: t.ServerID, ServerName: t.ServerName, OriginalName: t.Name,
			Description: t.Description, InputSchema: t.InputSchema, Enabled: true}
	}
	return out
}

// A catalogSource serves the catalog's tools: a call answers "ok" and is
// counted.
type catalogSource struct {
	tools []chat.Tool

	mu    sync.Mutex
	calls map[string]int
}

func (s *catalogSource) Tools() []chat.Tool { return slices.Clone(s.tools) }

func (s *catalogSource) CallTool(_ context.Context, ref chat.ToolRef, _ json.RawMessage, _ func(chat.Progress)) (chat.ToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[ref.ServerID+"__"+ref.Tool]++
	return chat.ToolResult{Text: "ok"}, nil
}

func (s *catalogSource) count(exposed string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[exposed]
}

// allowAll approves every call, as a user with "allow all" on would.
type allowAll struct{}

func (allowAll) Request(_ context.Context, r approval.Request) (approval.Outcome, error) {
	return approval.Outcome{Allowed: true, Decision: approval.AllowAll, DecidedBy: approval.ByPolicy, Arguments: r.Arguments}, nil
}
