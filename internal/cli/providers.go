package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-app/switchboard/internal/llm"
	"github.com/switchboard-app/switchboard/internal/providers"
)

func init() {
	register("providers", "list, add, test and remove model providers (keys go to the OS keyring)", runProviders)
}

func runProviders(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"list"}
	}
	c, s, ok := openCore(ctx, env)
	if !ok {
		return 1
	}
	defer c.Close()
	switch args[0] {
	case "list":
		list, err := s.Providers.List(ctx)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		if len(list) == 0 {
			fmt.Fprintln(env.Stdout, "No providers configured. Add one: switchboard providers add -preset cerebras (key from CEREBRAS_API_KEY or -key-stdin)")
			return 0
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPRESET\tBASE URL\tDEFAULT MODEL\tKEY")
		for _, p := range list {
			key := "none"
			switch {
			case p.KeyFromEnv != "":
				key = "from $" + p.KeyFromEnv
			case p.HasKey:
				key = "in keyring"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ID, p.Preset, p.BaseURL, p.DefaultModel, key)
		}
		tw.Flush()
		return 0
	case "add":
		fs := flag.NewFlagSet("providers add", flag.ContinueOnError)
		fs.SetOutput(env.Stderr)
		var in providers.Input
		fs.StringVar(&in.ID, "id", "", "provider ID (default: the preset's)")
		fs.StringVar(&in.Preset, "preset", llm.DefaultPresetID, "cerebras, openai, groq, openrouter, ollama, lmstudio or custom")
		fs.StringVar(&in.BaseURL, "base-url", "", "base URL (custom providers)")
		fs.StringVar(&in.DefaultModel, "model", "", "default model")
		keyStdin := fs.Bool("key-stdin", false, "read the API key from standard input (never pass a key as an argument)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if *keyStdin {
			var b strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := env.Stdin.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			in.APIKey = strings.TrimSpace(b.String())
		}
		v, err := s.Providers.Save(ctx, in)
		if err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		fmt.Fprintf(env.Stdout, "saved provider %s (%s)\n", v.ID, v.BaseURL)
		if in.APIKey != "" && !c.Keyring.Persistent {
			fmt.Fprintf(env.Stderr, "warning: the OS keyring is not available, so the key was not kept: %s\n", c.Keyring.Advice)
		}
		return 0
	case "test":
		if len(args) != 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard providers test ID")
			return 2
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		r := s.Providers.Test(ctx, args[1])
		fmt.Fprintln(env.Stdout, r.Message)
		if !r.OK {
			return 1
		}
		return 0
	case "remove":
		if len(args) != 2 {
			fmt.Fprintln(env.Stderr, "usage: switchboard providers remove ID")
			return 2
		}
		if err := s.Providers.Delete(ctx, args[1]); err != nil {
			fmt.Fprintln(env.Stderr, "switchboard:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(env.Stderr, "switchboard providers: unknown subcommand %q (list, add, test ID, remove ID)\n", args[0])
	return 2
}
