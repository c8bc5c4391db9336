package mcpconn

// A tool call may fail with a URL-elicitation-required error (-32042,
// MCP 2025-11-25): the server needs the user to visit pages first (to sign
// in to a third party, to pay) and names them in the error's data. The
// Manager hands them to Options.URLSteps, which asks the user (consent
// before anything opens) and waits until each step is done; then the call
// runs once more. A call that still cannot run, or whose steps were not
// done, ends in a result that tells the model the user must complete
// them, so a chat can say so instead of failing.
//
// The SDK has a middleware for this, unexported, which would wait on the
// user inside the call's timeout; here each attempt has its own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxURLSteps bounds the steps of one URL-elicitation-required error put
// to the user; an error with more is not shown at all.
const MaxURLSteps = 3

// A urlStepsError is a call's URL-elicitation-required error, read.
type urlStepsError struct {
	server  string // display name
	message string
	steps   []*mcp.ElicitParams
}

func (e *urlStepsError) Error() string {
	return fmt.Sprintf("%s needs %d step(s) done in the browser first: %s", e.server, len(e.steps), e.message)
}

// urlStepsOf reads the steps of a -32042 error of server (its display
// name). Data that cannot be read names no step.
func urlStepsOf(server string, rpcErr *jsonrpc.Error) *urlStepsError {
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if len(rpcErr.Data) > 0 {
		_ = json.Unmarshal(rpcErr.Data, &data)
	}
	msg, cut := clipBytes(rpcErr.Message, 300)
	if cut {
		msg += "…"
	}
	return &urlStepsError{server: server, message: msg, steps: data.Elicitations}
}

// withURLSteps runs attempt and, when it fails for steps the user must
// take in the browser, has the user take them (Options.URLSteps) and runs
// it once more. name is the tool's, for errors.
func (m *Manager) withURLSteps(ctx context.Context, name, serverID string, attempt func() (*Result, error)) (*Result, error) {
	res, err := attempt()
	var need *urlStepsError
	if !errors.As(err, &need) {
		return res, err
	}
	var why error
	switch {
	case m.opts.URLSteps == nil:
		why = errors.New("Switchboard cannot show them here")
	case len(need.steps) == 0:
		why = errors.New("the server named no step")
	case len(need.steps) > MaxURLSteps:
		why = fmt.Errorf("the server asks for %d steps, more than the %d Switchboard puts to the user at once", len(need.steps), MaxURLSteps)
	default:
		why = m.opts.URLSteps(ctx, serverID, need.steps)
	}
	if why == nil {
		res, err = attempt()
		if !errors.As(err, &need) {
			return res, err
		}
		why = errors.New("the server asked for steps again once the user had completed them, so the call was not retried a second time")
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("calling %s: %w", name, context.Cause(ctx))
	}
	return errorResult(need.forModel(why), m.opts.ResultLimit), nil
}

// forModel is the result a model gets for a call whose steps were not
// done: what the server asked for, and why it did not happen. The pages'
// hosts are named, not their URLs, which may carry a one-time token.
func (e *urlStepsError) forModel(why error) string {
	var steps []string
	for i, s := range e.steps {
		if i == MaxURLSteps {
			steps = append(steps, "…")
			break
		}
		if s == nil {
			continue
		}
		msg, cut := clipBytes(s.Message, 300)
		if cut {
			msg += "…"
		}
		host := "an unreadable address"
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" && len(u.Host) <= 255 {
			host = u.Host
		}
		steps = append(steps, fmt.Sprintf("“%s” (at %s)", msg, host))
	}
	what := ""
	if len(steps) > 0 {
		what = ": " + strings.Join(steps, "; ")
	}
	return fmt.Sprintf("%s needs the user to complete a step in their browser before this tool can run (%s)%s. It was not completed: %v. "+
		"Tell the user what is needed; once they have done it, call the tool again.", e.server, e.message, what, why)
}
