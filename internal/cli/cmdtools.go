package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// A commandFile is the file "servers add-command" reads: one server of
// command tools. It is its own verb rather than a format of "servers
// import", which reads other apps' files (none of which has command
// tools), all or nothing and never replacing a server; here a person
// writes the file, edits it and adds it again with -replace.
type commandFile struct {
	// ID is the server's ID, the prefix of its tools' names; empty means
	// one made from Name.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Cwd is the tools' folder when a tool names none.
	Cwd string `json:"cwd"`
	// Env is given to every tool; values whose names look secret go to
	// the OS keyring.
	Env        map[string]string `json:"env"`
	InheritEnv bool              `json:"inheritEnv"`
	// Disabled keeps the server from starting.
	Disabled bool                     `json:"disabled"`
	Tools    []serverconf.CommandTool `json:"tools"`
}

// maxCommandFile bounds the file add-command reads.
const maxCommandFile = 4 << 20

const addCommandUsage = "usage: switchboard servers add-command [-replace] FILE   (a JSON file of command tools; - reads standard input; see switchboard servers --help)"

// serversAddCommand adds (or with -replace, replaces) the server of
// command tools a file describes. Nothing connects.
func serversAddCommand(ctx context.Context, env *Env, args []string) int {
	fs := flag.NewFlagSet("add-command", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	replace := fs.Bool("replace", false, "replace the server of the same ID, if there is one")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(env.Stderr, addCommandUsage)
		return 2
	}
	file := fs.Arg(0)
	var r io.Reader = env.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxCommandFile+1))
	if err != nil {
		fmt.Fprintf(env.Stderr, "switchboard: reading %s: %v\n", file, err)
		return 1
	}
	if len(data) > maxCommandFile {
		fmt.Fprintf(env.Stderr, "switchboard: %s is larger than %d MiB; a file of command tools is much smaller\n", file, maxCommandFile>>20)
		return 1
	}
	cf, err := readCommandFile(data)
	if err != nil {
		fmt.Fprintf(env.Stderr, "switchboard: %s: %v\n", file, err)
		return 1
	}
	cfg := serverconf.Config{ID: cf.ID, Name: cf.Name, Transport: serverconf.TransportCommand, Cwd: cf.Cwd,
		InheritEnv: cf.InheritEnv, Enabled: !cf.Disabled, Tools: cf.Tools}
	for k, v := range cf.Env {
		if cfg.Env == nil {
			cfg.Env = map[string]serverconf.Value{}
		}
		cfg.Env[k] = serverconf.Value{Plain: v}
	}

	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	if err := s.Servers.Start(ctx); err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	verb, err := saveCommandServer(ctx, s, &cfg, *replace)
	if err != nil {
		var ve *serverconf.ValidationError
		if errors.As(err, &ve) {
			fmt.Fprintf(env.Stderr, "switchboard: %s is not valid; nothing was changed:\n", file)
			for _, fe := range ve.Errors {
				fmt.Fprintf(env.Stderr, "  %s: %s\n", fe.Field, fe.Message)
			}
			return 1
		}
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	names := make([]string, len(cfg.Tools))
	for i, t := range cfg.Tools {
		names[i] = cfg.ID + "__" + t.Name
	}
	fmt.Fprintf(env.Stdout, "%s server %s with %d command tools: %s\n", verb, cfg.ID, len(cfg.Tools), strings.Join(names, ", "))
	if cfg.Enabled {
		fmt.Fprintf(env.Stdout, "Each call asks for approval, in the app or with switchboard ask --allow %s/TOOL.\n", cfg.ID)
	}
	return 0
}

// saveCommandServer saves cfg, refusing to replace a server unless
// replace is set, and a server of another kind always; it returns what it
// did ("added", "replaced").
func saveCommandServer(ctx context.Context, s *core.Services, cfg *serverconf.Config, replace bool) (string, error) {
	cfgs, err := s.Servers.Configs(ctx)
	if err != nil {
		return "", err
	}
	if cfg.ID == "" && cfg.Name == "" {
		return "", errors.New(`the file names no server: give it an "id" (the prefix of its tools' names) or a "name"`)
	}
	if cfg.ID == "" {
		// The same name is the same server, so that adding the file again
		// asks for -replace rather than making a second one.
		cfg.ID = serverconf.NewID(cfg.Name, nil)
	}
	verb := "added"
	if i := slices.IndexFunc(cfgs, func(c serverconf.Config) bool { return c.ID == cfg.ID }); i >= 0 {
		switch {
		case cfgs[i].Transport != serverconf.TransportCommand:
			return "", fmt.Errorf("server %s exists and is a %s server, not command tools; give the file another id", cfg.ID, cfgs[i].Transport)
		case !replace:
			return "", fmt.Errorf("server %s exists; add -replace to replace its tools with the file's", cfg.ID)
		}
		verb = "replaced"
		cfg.DisabledTools = cfgs[i].DisabledTools
		cfg.CallTimeout = cfgs[i].CallTimeout
	}
	saved, err := s.Servers.Save(ctx, *cfg)
	*cfg = saved
	return verb, err
}

// readCommandFile reads a file of command tools: JSON, with comments and
// trailing commas allowed, and no field that add-command does not know
// (a typo would otherwise go unnoticed).
func readCommandFile(data []byte) (*commandFile, error) {
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.DisallowUnknownFields()
	var cf commandFile
	if err := dec.Decode(&cf); err != nil {
		return nil, fmt.Errorf("%v (the file holds one object: id, name, cwd, env, inheritEnv, disabled and tools, each tool with %s)", err, strings.Join(toolKeys, ", "))
	}
	// A tool reads itself (its timeout may be "30s"), so its unknown
	// fields are looked for here.
	var raw struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(std, &raw); err == nil {
		for i, t := range raw.Tools {
			for k := range t {
				if !slices.Contains(toolKeys, k) {
					return nil, fmt.Errorf("tools[%d] has an unknown field %q (a tool has %s)", i, k, strings.Join(toolKeys, ", "))
				}
			}
		}
	}
	return &cf, nil
}

// toolKeys are the fields of a command tool in a file.
var toolKeys = []string{"name", "description", "inputSchema", "command", "cwd", "timeout", "outputLimit", "readOnly"}

// commandTarget is what the server list shows of a command server.
func commandTarget(cfg *serverconf.Config) string {
	names := make([]string, len(cfg.Tools))
	for i, t := range cfg.Tools {
		names[i] = t.Name
	}
	return fmt.Sprintf("%d command tools: %s", len(cfg.Tools), strings.Join(names, ", "))
}
