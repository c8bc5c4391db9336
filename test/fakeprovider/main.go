// Command fakeprovider runs the llmtest fake OpenAI-compatible provider on
// an address, for end-to-end tests and benchmarks.
//
//	fakeprovider [-addr 127.0.0.1:0] [-script FILE] [-tps N] [-key KEY]
//
// The first line on stdout is the base URL to configure
// (http://host:port/v1). Without -script it echoes: "You said: <last user
// message>" (each of its image parts described: "[image image/png, 1234
// bytes]"), and a user message containing "use tool NAME {json}" is first
// answered with that tool call (through Switchboard's tool search, when the
// request offers search_tools and call_tool instead of the tool: it
// searches for the tool's name, then calls it). A script is the JSON of
// llmtest.Options:
//
//	{"models": ["m1"], "tokensPerSecond": 50, "replies": [
//	  {"content": ["Hel", "lo"]},
//	  {"toolCalls": [{"name": "get", "arguments": ["{\"a\"", ":1}"]}]},
//	  {"status": 429, "retryAfter": "2", "error": {"message": "slow down", "type": "requests"}},
//	  {"content": ["cut "], "fault": {"kind": "cut", "after": 1}}
//	]}
//
// Replies are used in order, then it echoes. It runs until interrupted.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/test/internal/testcmd"
)

func main() { testcmd.Main("fakeprovider", run) }

// run serves until stop receives.
func run(args []string, stdout io.Writer, stop <-chan os.Signal) error {
	fs := flag.NewFlagSet("fakeprovider", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	script := fs.String("script", "", "JSON file of llmtest.Options (models, replies, tokensPerSecond, apiKey)")
	tps := fs.Float64("tps", 0, "tokens per second for every reply (0: as fast as possible; overrides the script)")
	key := fs.String("key", "", "the only API key accepted (empty: any)")
	if err := fs.Parse(args); err != nil {
		return err
	}

	var opts llmtest.Options
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err != nil {
			return fmt.Errorf("reading script: %w", err)
		}
		if err := json.Unmarshal(data, &opts); err != nil {
			return fmt.Errorf("parsing script %s: %w", *script, err)
		}
	}
	if *tps > 0 {
		opts.TokensPerSecond = *tps
	}
	if *key != "" {
		opts.APIKey = *key
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *addr, err)
	}
	opts.Listener = ln
	srv := llmtest.NewServer(nil, &opts)
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL)
	<-stop
	return nil
}
