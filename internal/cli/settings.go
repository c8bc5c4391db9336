package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-app/switchboard/internal/core"
)

func init() {
	register("settings", "print the app-wide settings, or change one (the lethal-trifecta guard, tool limits, theme, ...)", runSettings)
}

// A setting is one of core.Settings as the CLI names it.
type setting struct {
	name, help string
	get        func(*core.Settings) string
	set        func(*core.Settings, string) error
}

// settingsTable lists the settings the CLI reads and changes, in the
// order it prints them. Each is checked by core.SaveSettings as in the
// window.
var settingsTable = []setting{
	{"trifecta-guard", "on: a tool that can send data out asks again, even under a grant or yolo, once the conversation read private data and took in outside content",
		func(s *core.Settings) string { return onOff(s.TrifectaGuard) },
		func(s *core.Settings, v string) (err error) { s.TrifectaGuard, err = parseOnOff(v); return }},
	{"tool-result-limit", "the characters of a tool result a model sees (1000 to 1000000)",
		func(s *core.Settings) string { return strconv.Itoa(s.ToolResultLimit) },
		func(s *core.Settings, v string) (err error) { s.ToolResultLimit, err = strconv.Atoi(v); return }},
	{"max-tool-rounds", "model→tools→model rounds in one reply (1 to 100)",
		func(s *core.Settings) string { return strconv.Itoa(s.MaxToolRounds) },
		func(s *core.Settings, v string) (err error) { s.MaxToolRounds, err = strconv.Atoi(v); return }},
	{"tool-search", "auto: past tool-search-tools tools or tool-search-kb KB of their definitions, the model gets two tools to search and call them instead; always; off",
		func(s *core.Settings) string { return s.ToolSearch },
		func(s *core.Settings, v string) error { s.ToolSearch = v; return nil }},
	{"tool-search-tools", "with tool-search auto, the tool count past which the model searches (1 to 10000)",
		func(s *core.Settings) string { return strconv.Itoa(s.ToolSearchMaxTools) },
		func(s *core.Settings, v string) (err error) { s.ToolSearchMaxTools, err = strconv.Atoi(v); return }},
	{"tool-search-kb", "with tool-search auto, the KB of tool definitions past which the model searches (1 to 16384)",
		func(s *core.Settings) string { return strconv.Itoa(s.ToolSearchMaxKB) },
		func(s *core.Settings, v string) (err error) { s.ToolSearchMaxKB, err = strconv.Atoi(v); return }},
	{"npm-registry", "the npm registry servers (and Node) are installed from (\"\" for npm's own setting)",
		func(s *core.Settings) string { return s.NPMRegistry },
		func(s *core.Settings, v string) error { s.NPMRegistry = v; return nil }},
	{"mcp-registry", "the MCP registry switchboard registry searches (\"\" for https://registry.modelcontextprotocol.io)",
		func(s *core.Settings) string { return s.MCPRegistry },
		func(s *core.Settings, v string) error { s.MCPRegistry = v; return nil }},
	{"theme", "system, light or dark",
		func(s *core.Settings) string { return s.Theme },
		func(s *core.Settings, v string) error { s.Theme = v; return nil }},
	{"default-provider", "the provider ID new conversations use (\"\" for the first one)",
		func(s *core.Settings) string { return s.DefaultProviderID },
		func(s *core.Settings, v string) error { s.DefaultProviderID = v; return nil }},
	{"system-prompt", "the system prompt of conversations without their own",
		func(s *core.Settings) string { return s.DefaultSystemPrompt },
		func(s *core.Settings, v string) error { s.DefaultSystemPrompt = v; return nil }},
}

const settingsUsage = `usage: switchboard settings [list]
       switchboard settings set NAME VALUE`

// runSettings prints the settings, or sets one. A window that is open
// reads the guard setting as each call is decided; the others it reads
// when it starts.
func runSettings(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"list"}
	}
	switch {
	case args[0] == "list" && len(args) == 1:
		return settingsList(ctx, env)
	case args[0] == "set" && len(args) == 3:
		return settingsSet(ctx, env, args[1], args[2])
	}
	fmt.Fprintln(env.Stderr, settingsUsage)
	return 2
}

func settingsList(ctx context.Context, env *Env) int {
	c, _, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	s, err := core.LoadSettings(ctx, c.Store)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	for _, st := range settingsTable {
		v := st.get(&s)
		if r := []rune(v); len(r) > 60 || strings.ContainsAny(v, "\n\t") {
			v = strconv.Quote(string(r[:min(len(r), 60)])) + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\n", st.name, v)
	}
	// "Allow all" (yolo) is shown, not set, here: it is turned on only in
	// the window, where its warning is seen (ask --yolo is per run).
	yolo, err := c.Store.Yolo(ctx)
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	fmt.Fprintf(tw, "allow-all\t%s\t(set in the window: Settings → Approvals)\n", onOff(yolo))
	tw.Flush()
	return 0
}

func settingsSet(ctx context.Context, env *Env, name, value string) int {
	var st *setting
	for i := range settingsTable {
		if settingsTable[i].name == name {
			st = &settingsTable[i]
		}
	}
	if st == nil {
		fmt.Fprintf(env.Stderr, "switchboard: no setting %q; the settings are:\n", name)
		for _, s := range settingsTable {
			fmt.Fprintf(env.Stderr, "  %-18s %s\n", s.name, s.help)
		}
		return 2
	}
	c, _, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	s, err := core.LoadSettings(ctx, c.Store)
	if err == nil {
		if err = st.set(&s, value); err != nil {
			err = fmt.Errorf("%s %q: %s", name, value, st.help)
		}
	}
	if err == nil {
		err = core.SaveSettings(ctx, c.Store, s)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "switchboard:", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "%s = %s\n", name, st.get(&s))
	if name == "trifecta-guard" && !s.TrifectaGuard {
		fmt.Fprintln(env.Stdout, "The lethal-trifecta guard is off: standing grants and yolo allow calls that could send out private data without asking.")
	}
	return 0
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func parseOnOff(v string) (bool, error) {
	switch v {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither on nor off", v)
}
