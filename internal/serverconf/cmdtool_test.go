package serverconf

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeArgs decodes a call's arguments as the command server does, with
// numbers as written.
func decodeArgs(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCommandToolArgv(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		args    string
		want    []string
		wantErr string
	}{
		{name: "plain", command: []string{"rg", "--json", "--", "{{pattern}}", "{{path}}"}, args: `{"pattern":"foo","path":"/src"}`,
			want: []string{"rg", "--json", "--", "foo", "/src"}},
		{name: "spaces and quotes stay in one element", command: []string{"rg", "{{pattern}}"}, args: `{"pattern":"a b 'c' \"d\""}`,
			want: []string{"rg", `a b 'c' "d"`}},
		{name: "shell syntax is text", command: []string{"echo", "{{text}}"}, args: `{"text":"; touch /tmp/x && $(rm -rf ~) ` + "`id`" + ` | cat > f\nsecond line"}`,
			want: []string{"echo", "; touch /tmp/x && $(rm -rf ~) `id` | cat > f\nsecond line"}},
		{name: "glob and tilde are text", command: []string{"ls", "{{p}}"}, args: `{"p":"~/*"}`, want: []string{"ls", "~/*"}},
		{name: "part of an element", command: []string{"grep", "--regexp={{pattern}}", "--max-count={{n}}"}, args: `{"pattern":"x y","n":5}`,
			want: []string{"grep", "--regexp=x y", "--max-count=5"}},
		{name: "two in one element", command: []string{"cp", "{{a}}:{{b}}"}, args: `{"a":"1","b":"2"}`, want: []string{"cp", "1:2"}},
		{name: "spaces inside the braces", command: []string{"echo", "{{ text }}"}, args: `{"text":"hi"}`, want: []string{"echo", "hi"}},
		{name: "numbers as written", command: []string{"head", "-n", "{{n}}", "{{f}}"}, args: `{"n":12345678901234567890,"f":1.50}`,
			want: []string{"head", "-n", "12345678901234567890", "1.50"}},
		{name: "booleans", command: []string{"x", "--a={{a}}", "--b={{b}}"}, args: `{"a":true,"b":false}`, want: []string{"x", "--a=true", "--b=false"}},
		{name: "arrays and objects as JSON", command: []string{"x", "{{list}}", "{{obj}}"}, args: `{"list":["a b",1],"obj":{"k":"v"}}`,
			want: []string{"x", `["a b",1]`, `{"k":"v"}`}},
		{name: "absent drops the element", command: []string{"rg", "--max-count={{max}}", "{{pattern}}"}, args: `{"pattern":"p"}`,
			want: []string{"rg", "p"}},
		{name: "null drops the element", command: []string{"rg", "{{glob}}", "p"}, args: `{"glob":null}`, want: []string{"rg", "p"}},
		{name: "empty string is kept", command: []string{"printf", "[%s]", "{{s}}"}, args: `{"s":""}`, want: []string{"printf", "[%s]", ""}},
		{name: "a leading dash stays a value", command: []string{"rg", "--", "{{pattern}}"}, args: `{"pattern":"--pre=sh"}`, want: []string{"rg", "--", "--pre=sh"}},
		{name: "a placeholder in a value is not expanded", command: []string{"echo", "{{a}}", "{{b}}"}, args: `{"a":"{{b}}","b":"x"}`,
			want: []string{"echo", "{{b}}", "x"}},
		{name: "other double braces are text", command: []string{"docker", "inspect", "--format", "{{.State.Status}} {{json .}}", "{{id}}"}, args: `{"id":"c1"}`,
			want: []string{"docker", "inspect", "--format", "{{.State.Status}} {{json .}}", "c1"}},
		{name: "NUL refused", command: []string{"echo", "{{t}}"}, args: `{"t":"a\u0000b"}`, wantErr: "NUL"},
		{name: "too long refused", command: []string{"echo", "{{t}}"}, args: `{"t":"` + strings.Repeat("a", MaxArgBytes+1) + `"}`, wantErr: "more than"},
		{name: "too long in all refused", command: []string{"echo", "{{t}}", "{{t}}", "{{t}}", "{{t}}", "{{t}}", "{{t}}", "{{t}}", "{{t}}", "{{t}}"},
			args: `{"t":"` + strings.Repeat("a", MaxArgBytes-1) + `"}`, wantErr: "command line would be longer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := CommandTool{Name: "t", Command: tt.command}
			got, err := tool.Argv(decodeArgs(t, tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrArgument) {
					t.Fatalf("Argv = %q, %v; want an ErrArgument saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
		})
	}
}

func commandConfig() Config {
	return Config{ID: "tools", Name: "Tools", Transport: TransportCommand, Enabled: true, Tools: []CommandTool{{
		Name:        "search",
		Description: "Search files for a pattern.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"max":{"type":"integer"}},"required":["pattern"]}`),
		Command:     []string{"rg", "--json", "--max-count={{max}}", "--", "{{pattern}}", "{{path}}"},
		Cwd:         "~/src",
		Timeout:     10 * time.Second,
		OutputLimit: 32 << 10,
		ReadOnly:    true,
	}, {
		Name:    "date",
		Command: []string{"date"},
	}}}
}

func TestValidateCommandAccepts(t *testing.T) {
	for name, change := range map[string]func(*Config){
		"as is":                 func(*Config) {},
		"shell with positional": func(c *Config) { c.Tools[0].Command = []string{"sh", "-c", `rg -- "$1"`, "sh", "{{pattern}}"} },
		"script file":           func(c *Config) { c.Tools[0].Command = []string{"bash", "./search.sh", "{{pattern}}"} },
		"env kept in keyring":   func(c *Config) { c.Env = map[string]Value{"TOKEN": {SecretRef: "server/tools/env/TOKEN"}} },
		"long tool, long call":  func(c *Config) { c.CallTimeout = 2 * time.Minute; c.Tools[0].Timeout = 2 * time.Minute },
		"absolute cwd":          func(c *Config) { c.Cwd = "/srv" },
	} {
		cfg := commandConfig()
		change(&cfg)
		if err := Validate(&cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestValidateCommandRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		field  string
		says   string
	}{
		{"no tools", func(c *Config) { c.Tools = nil }, "tools", "at least one tool"},
		{"too many tools", func(c *Config) {
			c.Tools = make([]CommandTool, MaxCommandTools+1)
			for i := range c.Tools {
				c.Tools[i] = CommandTool{Name: "t" + strings.Repeat("x", i%40) + string(rune('a'+i%26)), Command: []string{"date"}}
			}
		}, "tools", "at most 64"},
		{"no name", func(c *Config) { c.Tools[1].Name = "" }, "tools[1].name", "is required"},
		{"bad name", func(c *Config) { c.Tools[1].Name = "my tool" }, "tools[1].name", "A-Z"},
		{"same name", func(c *Config) { c.Tools[1].Name = "search" }, "tools[1].name", "another tool"},
		{"missing command", func(c *Config) { c.Tools[1].Command = nil }, "tools[1].command", "is required"},
		{"blank program", func(c *Config) { c.Tools[1].Command = []string{" ", "x"} }, "tools[1].command", "is required"},
		{"placeholder as the program", func(c *Config) { c.Tools[0].Command = []string{"{{pattern}}", "x"} }, "tools[0].command[0]", "may not hold a placeholder"},
		{"NUL in the command", func(c *Config) { c.Tools[1].Command = []string{"date", "a\x00"} }, "tools[1].command[1]", "NUL"},
		{"schema not JSON", func(c *Config) { c.Tools[0].InputSchema = json.RawMessage(`{"type":`) }, "tools[0].inputSchema", "JSON object"},
		{"schema not an object", func(c *Config) { c.Tools[0].InputSchema = json.RawMessage(`["pattern"]`) }, "tools[0].inputSchema", "JSON object"},
		{"schema of a string", func(c *Config) { c.Tools[0].InputSchema = json.RawMessage(`{"type":"string"}`) }, "tools[0].inputSchema", `"type": "object"`},
		{"schema invalid", func(c *Config) {
			c.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"strnig"}}}`)
		}, "tools[0].inputSchema", "not a valid JSON Schema"},
		{"schema too big", func(c *Config) {
			c.Tools[0].InputSchema = json.RawMessage(`{"type":"object","description":"` + strings.Repeat("a", MaxToolSchema) + `"}`)
		}, "tools[0].inputSchema", "at most 64 KiB"},
		{"placeholder not in the schema", func(c *Config) { c.Tools[0].Command = []string{"rg", "{{patern}}"} }, "tools[0].command[1]", "{{patern}}, which is not a property of the tool's input schema (max, path, pattern)"},
		{"placeholder without a schema", func(c *Config) { c.Tools[1].Command = []string{"date", "+{{format}}"} }, "tools[1].command[1]", `has no properties: add "format"`},
		{"unfinished placeholder", func(c *Config) { c.Tools[0].Command = []string{"rg", "{{pattern"} }, "tools[0].command[1]", "unfinished placeholder"},
		{"half-closed placeholder", func(c *Config) { c.Tools[0].Command = []string{"rg", "{{pattern}", "x"} }, "tools[0].command[1]", "unfinished placeholder"},
		{"placeholder in a shell script", func(c *Config) { c.Tools[0].Command = []string{"sh", "-c", "rg {{pattern}}"} }, "tools[0].command[2]", "is code that sh reads"},
		{"placeholder in a combined -lc script", func(c *Config) { c.Tools[0].Command = []string{"/bin/bash", "-lc", "rg '{{pattern}}'"} }, "tools[0].command[2]", "is code that bash reads"},
		{"placeholder in python -c", func(c *Config) { c.Tools[0].Command = []string{"python3", "-c", "print('{{pattern}}')"} }, "tools[0].command[2]", "is code that python3 reads"},
		{"placeholder after cmd /c", func(c *Config) {
			c.Tools[0].Command = []string{`C:\Windows\System32\cmd.exe`, "/c", "findstr", "{{pattern}}"}
		}, "tools[0].command[3]", "is code that cmd reads"},
		{"relative cwd", func(c *Config) { c.Tools[0].Cwd = "src" }, "tools[0].cwd", "absolute"},
		{"relative server cwd", func(c *Config) { c.Cwd = "src" }, "cwd", "absolute"},
		{"timeout too short", func(c *Config) { c.Tools[0].Timeout = time.Millisecond }, "tools[0].timeout", "between 1s and 1h0m0s"},
		{"timeout past the call's", func(c *Config) { c.CallTimeout = 5 * time.Second }, "tools[0].timeout", "longer than the server's call timeout"},
		{"output limit too big", func(c *Config) { c.Tools[0].OutputLimit = 2 << 20 }, "tools[0].outputLimit", "1 KiB to 1 MiB"},
		{"description with controls", func(c *Config) { c.Tools[0].Description = "a\x1b[31mred" }, "tools[0].description", "control characters"},
		{"roots", func(c *Config) { c.Roots = []string{"/srv"} }, "roots", "not told of roots"},
		{"env name", func(c *Config) { c.Env = map[string]Value{"1X": {Plain: "y"}} }, "env.1X", "letters, digits"},
		{"another server's secret", func(c *Config) { c.Env = map[string]Value{"T": {SecretRef: "server/other/env/T"}} }, "env.T", "not this server's"},
		{"auth", func(c *Config) { c.Auth = &Auth{ClientID: "x"} }, "auth", "only used by sse and http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := commandConfig()
			tt.change(&cfg)
			var ve *ValidationError
			if err := Validate(&cfg); !errors.As(err, &ve) {
				t.Fatalf("Validate = %v; want a ValidationError", err)
			}
			if msg := ve.Message(tt.field); !strings.Contains(msg, tt.says) {
				t.Errorf("%s: %q; want it to say %q (all: %v)", tt.field, msg, tt.says, ve)
			}
		})
	}
}

// A file written by hand gives timeouts as durations; the store keeps
// nanoseconds, as it does CallTimeout.
func TestCommandToolTimeoutJSON(t *testing.T) {
	for in, want := range map[string]time.Duration{
		`{"name":"a","command":["x"],"timeout":"90s"}`:       90 * time.Second,
		`{"name":"a","command":["x"],"timeout":30000000000}`: 30 * time.Second,
		`{"name":"a","command":["x"]}`:                       0,
	} {
		var tool CommandTool
		if err := json.Unmarshal([]byte(in), &tool); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if tool.Timeout != want || tool.Name != "a" || len(tool.Command) != 1 {
			t.Errorf("%s: %+v; want timeout %v", in, tool, want)
		}
		out, _ := json.Marshal(tool)
		var back CommandTool
		if err := json.Unmarshal(out, &back); err != nil || back.Timeout != want {
			t.Errorf("round trip of %s: %s -> %v, %v", in, out, back.Timeout, err)
		}
	}
	var tool CommandTool
	if err := json.Unmarshal([]byte(`{"timeout":"soon"}`), &tool); err == nil || !strings.Contains(err.Error(), "30s") {
		t.Errorf("bad duration: %v; want a hint", err)
	}
}

// What runs is the identity approvals are tied to: a changed command or
// folder is another program; a changed description is not.
func TestCommandFingerprint(t *testing.T) {
	base := commandConfig()
	fp := Fingerprint(&base)
	for name, change := range map[string]func(*Config){
		"command": func(c *Config) { c.Tools[0].Command[1] = "--files" },
		"cwd":     func(c *Config) { c.Tools[0].Cwd = "/" },
		"env":     func(c *Config) { c.Env = map[string]Value{"RIPGREP_CONFIG_PATH": {Plain: "/x"}} },
		"inherit": func(c *Config) { c.InheritEnv = true },
		"a tool":  func(c *Config) { c.Tools = c.Tools[:1] },
	} {
		cfg := commandConfig()
		change(&cfg)
		if Fingerprint(&cfg) == fp {
			t.Errorf("changing the %s kept the fingerprint", name)
		}
	}
	cfg := commandConfig()
	cfg.Tools[0].Description = "Something else"
	cfg.Tools[0].Timeout = time.Minute
	if Fingerprint(&cfg) != fp {
		t.Error("changing a description or a timeout changed the fingerprint")
	}
}

func TestCommandCallTimeout(t *testing.T) {
	cfg := commandConfig()
	if got := cfg.Timeout(); got != DefaultCallTimeout {
		t.Errorf("Timeout = %v; want the default", got)
	}
	cfg.Tools[1].Timeout = 10 * time.Minute
	if got := cfg.Timeout(); got != 10*time.Minute+5*time.Second {
		t.Errorf("Timeout = %v; want the longest tool's and 5 s", got)
	}
}

func TestExportLeavesCommandToolsOut(t *testing.T) {
	data, warnings, err := ExportWithWarnings([]Config{stdioConfig(), commandConfig()}, "claude")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "--json") || !strings.Contains(string(data), "server-filesystem") {
		t.Errorf("export:\n%s", data)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "command tools") {
		t.Errorf("warnings = %q", warnings)
	}
}
