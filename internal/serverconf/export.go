package serverconf

import (
	"encoding/json"
	"fmt"
	"github.com/switchboard-app/switchboard/internal/jsonobj"
	"net/http"
	"strings"
)

// Export writes cfgs in format ("claude", "vscode" or "cursor") for the
// user to paste into another app. A secret value is never written: VS Code
// gets an ${input:...} reference with an inputs entry that prompts for it;
// Claude and Cursor get an empty string. Secrets are values kept in the
// keyring, passwords in URLs in args (kept there as ${secret:NAME}), and
// plain values that look secret (by name or as a URL with a password),
// which a config saved by an older version may still hold. Use
// ExportWithWarnings to tell the user which values to fill in and which
// settings have no place in format.
func Export(cfgs []Config, format string) ([]byte, error) {
	data, _, err := ExportWithWarnings(cfgs, format)
	return data, err
}

// ExportWithWarnings is Export, plus one warning per value left empty and
// per setting the format cannot express.
func ExportWithWarnings(cfgs []Config, format string) (data []byte, warnings []string, err error) {
	f := Format(format)
	switch f {
	case FormatClaude, FormatVSCode, FormatCursor:
	default:
		return nil, nil, fmt.Errorf("unknown export format %q: use claude, vscode or cursor", format)
	}
	ex := &exporter{format: f}
	cfgs = ex.withoutCommandTools(cfgs)
	keys := exportKeys(cfgs)
	var servers jsonobj.Object
	for i := range cfgs {
		servers.Add(keys[i], ex.server(&cfgs[i]))
	}
	var top jsonobj.Object
	if f == FormatVSCode {
		top.Add("servers", servers)
		inputs := ex.inputs
		if inputs == nil {
			inputs = []inputEntry{}
		}
		top.Add("inputs", inputs)
	} else {
		top.Add("mcpServers", servers)
	}
	data, err = json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(data, '\n'), ex.warnings, nil
}

// exportKeys names each config in the file: its display name when Import
// would turn that name back into the same ID, else its ID.
func exportKeys(cfgs []Config) []string {
	keys := make([]string, len(cfgs))
	used := make(map[string]bool)
	for i := range cfgs {
		key := cfgs[i].DisplayName()
		if NewID(key, nil) != cfgs[i].ID || used[key] {
			key = cfgs[i].ID
		}
		used[key] = true
		keys[i] = key
	}
	return keys
}

type exporter struct {
	format   Format
	inputs   []inputEntry
	warnings []string
}

type inputEntry struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Password    bool   `json:"password"`
}

func (ex *exporter) warnf(cfg *Config, format string, args ...any) {
	ex.warnings = append(ex.warnings, fmt.Sprintf("server %q: ", cfg.DisplayName())+fmt.Sprintf(format, args...))
}

func (ex *exporter) server(cfg *Config) jsonobj.Object {
	var o jsonobj.Object
	switch cfg.Transport {
	case TransportStdio:
		if ex.format == FormatVSCode {
			o.Add("type", "stdio")
		}
		o.Add("command", cfg.Command)
		args := make([]string, len(cfg.Args))
		for i, a := range cfg.Args {
			args[i] = ex.arg(cfg, i, a)
		}
		o.Add("args", args)
		if len(cfg.Env) > 0 {
			o.Add("env", ex.values(cfg, "env", cfg.Env))
		}
		if cfg.Cwd != "" {
			o.Add("cwd", cfg.Cwd)
		}
	default:
		// Cursor takes a remote server without a type as streamable HTTP.
		if ex.format != FormatCursor || cfg.Transport != TransportHTTP {
			o.Add("type", string(cfg.Transport))
		}
		o.Add("url", cfg.URL)
		if len(cfg.Headers) > 0 {
			o.Add("headers", ex.values(cfg, "header", cfg.Headers))
		}
		if cfg.Auth != nil {
			ex.auth(cfg, &o)
		}
	}
	if cfg.InheritEnv && cfg.Transport == TransportStdio {
		ex.warnf(cfg, "inherits your whole environment in Switchboard, which the %s format cannot say; add the variables it needs to its env", ex.format)
	}
	if !cfg.Enabled {
		ex.warnf(cfg, "is disabled in Switchboard but the %s format has no off switch; it is exported enabled", ex.format)
	}
	if cfg.CallTimeout != 0 {
		ex.warnf(cfg, "its call timeout (%v) is not exported", cfg.CallTimeout)
	}
	if len(cfg.DisabledTools) > 0 {
		ex.warnf(cfg, "its disabled tools are not exported")
	}
	return o
}

func (ex *exporter) values(cfg *Config, kind string, vals map[string]Value) jsonobj.Object {
	var o jsonobj.Object
	for _, name := range sortedKeys(vals) {
		v := vals[name]
		if v.SecretRef == "" && (v.Plain == "" || !IsSecretName(name) && !IsSecretValue(v.Plain)) {
			o.Add(name, v.Plain)
			continue
		}
		if ex.format != FormatVSCode {
			o.Add(name, "")
			ex.warnf(cfg, "%s %s is a secret and was exported empty; fill it in", kind, name)
			continue
		}
		id := ex.inputID(cfg.ID + "-" + strings.ToLower(name))
		desc := fmt.Sprintf("%s: %s", cfg.DisplayName(), name)
		if kind == "header" {
			desc = fmt.Sprintf("%s: %s header (the whole value)", cfg.DisplayName(), http.CanonicalHeaderKey(name))
		}
		ex.inputs = append(ex.inputs, inputEntry{Type: "promptString", ID: id, Description: desc, Password: true})
		o.Add(name, "${input:"+id+"}")
	}
	return o
}

// arg writes argument i of cfg with its passwords left out: each
// ${secret:NAME}, and each password written in a URL, becomes an
// ${input:...} for VS Code and nothing for Claude and Cursor.
func (ex *exporter) arg(cfg *Config, i int, a string) string {
	secret := func() string {
		if ex.format != FormatVSCode {
			return ""
		}
		id := ex.inputID(fmt.Sprintf("%s-arg%d", cfg.ID, i))
		ex.inputs = append(ex.inputs, inputEntry{Type: "promptString", ID: id,
			Description: fmt.Sprintf("%s: password in argument %d", cfg.DisplayName(), i+1), Password: true})
		return "${input:" + id + "}"
	}
	found := 0
	a = argSecret.ReplaceAllStringFunc(a, func(string) string { found++; return secret() })
	for off := 0; ; {
		start, end, ok := nextURLPassword(a, off)
		if !ok {
			break
		}
		found++
		in := secret()
		a = a[:start] + in + a[end:]
		off = start + len(in)
	}
	if found > 0 && ex.format != FormatVSCode {
		ex.warnf(cfg, "args[%d] holds a password, which was left out; fill it in", i)
	}
	return a
}

func (ex *exporter) inputID(base string) string {
	taken := func(id string) bool {
		for _, in := range ex.inputs {
			if in.ID == id {
				return true
			}
		}
		return false
	}
	id := base
	for n := 2; taken(id); n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	return id
}

// auth writes Cursor's static OAuth client; the other formats have none.
func (ex *exporter) auth(cfg *Config, o *jsonobj.Object) {
	a := cfg.Auth
	if ex.format != FormatCursor || a.Grant == GrantClientCredentials || a.ClientAuth == PrivateKeyJWT {
		ex.warnf(cfg, "its OAuth client settings are not exported")
		return
	}
	var ao jsonobj.Object
	if a.ClientID != "" {
		ao.Add("CLIENT_ID", a.ClientID)
	}
	if a.ClientSecretRef != "" {
		ao.Add("CLIENT_SECRET", "")
		ex.warnf(cfg, "its OAuth client secret was exported empty; fill it in")
	}
	if len(a.Scopes) > 0 {
		ao.Add("scopes", a.Scopes)
	}
	if len(ao) > 0 {
		o.Add("auth", ao)
	}
}
