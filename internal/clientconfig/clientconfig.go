// Package clientconfig makes the entry that lets another MCP client
// (Claude Desktop, VS Code, Cursor) launch `switchboard mcp serve` with a
// connected app's token, and merges it into that client's config file
// once the user agreed.
//
// Writing another app's file is done with care: every other entry and key
// stays as it was (in its order; only whitespace may change), the old file
// is backed up beside it, the new one replaces it atomically and is
// readable by the user only (it holds a token). A file that is not plain
// JSON (VS Code allows comments) is refused rather than rewritten without
// its comments: the user copies the entry instead.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
	"unicode"

	"github.com/tailscale/hujson"

	"github.com/switchboard-app/switchboard/internal/jsonobj"
)

// An App is an MCP client whose config file Switchboard knows.
type App string

// The apps Switchboard connects in one click.
const (
	ClaudeDesktop App = "claude-desktop"
	VSCode        App = "vscode"
	Cursor        App = "cursor"
)

// Apps lists every App, in the order the window offers them.
var Apps = []App{ClaudeDesktop, VSCode, Cursor}

// Label is the app's name as the user knows it; it is also the name of the
// connected app (the client) Switchboard registers for it.
func (a App) Label() string {
	switch a {
	case ClaudeDesktop:
		return "Claude Desktop"
	case VSCode:
		return "VS Code"
	case Cursor:
		return "Cursor"
	}
	return string(a)
}

// serversKey is the key of the object of servers in the app's file.
func (a App) serversKey() string {
	if a == VSCode {
		return "servers"
	}
	return "mcpServers"
}

// ParseApp returns the App named s (its ID, as in Apps).
func ParseApp(s string) (App, error) {
	for _, a := range Apps {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown app %q: use claude-desktop, vscode or cursor", s)
}

// ServerName is the key of Switchboard's entry among the app's servers.
const ServerName = "switchboard"

// EnvToken is the variable `switchboard mcp serve` reads its token from.
const EnvToken = "SWITCHBOARD_CLIENT_TOKEN"

// EnvDataDir is the variable that points Switchboard at another data
// directory (internal/paths reads it); the entry sets it when the window
// runs with one, so that the app's server opens the same database.
const EnvDataDir = "SWITCHBOARD_DATA_DIR"

// MaxFileSize is the largest config file Switchboard reads or rewrites.
// These files hold a few servers; a larger one is not what it seems.
const MaxFileSize = 4 << 20

// ErrNotJSON is returned (wrapped, with what is wrong and what to do) when
// the app's file cannot be merged into: not plain JSON, not an object, or
// its servers are not an object.
var ErrNotJSON = errors.New("not a plain JSON config")

// notJSON is an ErrNotJSON that says what is wrong in its own words.
type notJSON string

func (e notJSON) Error() string        { return string(e) }
func (e notJSON) Is(target error) bool { return target == ErrNotJSON }

func notJSONf(format string, args ...any) error { return notJSON(fmt.Sprintf(format, args...)) }

// Options say what the entry runs and where the files are; nil means this
// machine's.
type Options struct {
	// Executable is the command the entry runs; "" means this program
	// (os.Executable).
	Executable string
	// DataDir, when set, is put in the entry's environment as
	// SWITCHBOARD_DATA_DIR.
	DataDir string
	// GOOS decides where the files are; "" means runtime.GOOS.
	GOOS string
	// Home is the user's home folder; "" means os.UserHomeDir.
	Home string
	// Getenv reads APPDATA (Windows) and XDG_CONFIG_HOME; nil means
	// os.Getenv.
	Getenv func(string) string
	// Now names backups; nil means time.Now.
	Now func() time.Time
}

func (o *Options) orDefault() *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// Path returns the user-level config file of app on this machine (or the
// one opts describe).
func Path(app App, opts *Options) (string, error) {
	o := opts.orDefault()
	goos := o.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	home := o.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("finding your home folder: %w", err)
		}
		home = h
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	// What os.UserConfigDir returns on goos.
	var config string
	switch goos {
	case "windows":
		config = getenv("APPDATA")
		if config == "" {
			config = filepath.Join(home, "AppData", "Roaming")
		}
	case "darwin", "ios":
		config = filepath.Join(home, "Library", "Application Support")
	default:
		config = getenv("XDG_CONFIG_HOME")
		if config == "" || !filepath.IsAbs(config) {
			config = filepath.Join(home, ".config")
		}
	}
	switch app {
	case ClaudeDesktop:
		return filepath.Join(config, "Claude", "claude_desktop_config.json"), nil
	case VSCode:
		// The user profile's mcp.json (VS Code 1.102 and later).
		return filepath.Join(config, "Code", "User", "mcp.json"), nil
	case Cursor:
		return filepath.Join(home, ".cursor", "mcp.json"), nil
	}
	return "", fmt.Errorf("unknown app %q: use claude-desktop, vscode or cursor", app)
}

// A Preview is what connecting an app would do, for the user to see before
// agreeing: the file, the entry (token included), and whether Write can
// merge it.
type Preview struct {
	App   App    `json:"app" ts_type:"App"`
	Label string `json:"label"`
	// Path is the app's config file.
	Path string `json:"path"`
	// Key is the object the entry goes in ("mcpServers", or "servers" for
	// VS Code) and Server the entry's name in it.
	Key    string `json:"key"`
	Server string `json:"server"`
	// JSON is the entry to copy, in a file of its own: {Key: {Server: ...}}.
	JSON string `json:"json"`
	// Exists says the file exists; Replaces that it has an entry named
	// Server already, which Write replaces.
	Exists   bool `json:"exists"`
	Replaces bool `json:"replaces"`
	// Problem, when set, says why Write would refuse and what to do
	// instead (copy the entry); empty when Write can merge.
	Problem string `json:"problem,omitempty"`
}

// Written is what Write did.
type Written struct {
	Path string `json:"path"`
	// Backup is the copy of the file as it was; "" when there was none.
	Backup string `json:"backup,omitempty"`
	// Replaced says an entry named ServerName was there and was replaced.
	Replaced bool `json:"replaced"`
}

// server is the entry: VS Code wants a type; the others infer stdio.
type server struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func entry(app App, token string, o *Options) (server, error) {
	if strings.TrimSpace(token) == "" {
		return server{}, errors.New("no token for the entry: add the connected app again to get one")
	}
	if strings.ContainsFunc(token, unicode.IsControl) || strings.ContainsFunc(token, unicode.IsSpace) {
		return server{}, errors.New("the token holds spaces or control characters: copy it again from where it was shown")
	}
	exe := o.Executable
	if exe == "" {
		e, err := os.Executable()
		if err != nil {
			return server{}, fmt.Errorf("finding Switchboard's own program for the entry: %w", err)
		}
		exe = e
	}
	s := server{Command: exe, Args: []string{"mcp", "serve"}, Env: map[string]string{EnvToken: token}}
	if o.DataDir != "" {
		s.Env[EnvDataDir] = o.DataDir
	}
	if app == VSCode {
		s.Type = "stdio"
	}
	return s, nil
}

// Check returns app's config file and whether Write can merge into it,
// without an entry (JSON is empty): what the user sees before a token is
// made. It changes nothing.
func Check(app App, opts *Options) (Preview, error) {
	o := opts.orDefault()
	path, err := Path(app, o)
	if err != nil {
		return Preview{}, err
	}
	p := Preview{App: app, Label: app.Label(), Path: path, Key: app.serversKey(), Server: ServerName}
	old, exists, err := readConfig(path)
	p.Exists = exists
	if err != nil {
		p.Problem = err.Error()
		return p, nil
	}
	// Whether it merges does not depend on the entry.
	m, err := merge(old, app.serversKey(), ServerName, json.RawMessage("{}"))
	if err != nil {
		p.Problem = fmt.Sprintf("Switchboard will not change %s: %v. Copy the entry and add it to the file yourself.", path, err)
		return p, nil
	}
	p.Replaces = m.replaced
	return p, nil
}

// Entry returns what connecting app with token would write (JSON, the
// entry in a file of its own), and whether its file can take it. It
// changes nothing.
func Entry(app App, token string, opts *Options) (Preview, error) {
	o := opts.orDefault()
	s, err := entry(app, token, o)
	if err != nil {
		return Preview{}, err
	}
	p, err := Check(app, o)
	if err != nil {
		return Preview{}, err
	}
	inner, err := jsonobj.Marshal(s)
	if err != nil {
		return Preview{}, err
	}
	snippet, err := merge(nil, app.serversKey(), ServerName, inner)
	if err != nil {
		return Preview{}, err
	}
	p.JSON = string(snippet.data)
	return p, nil
}

// Write merges app's entry with token into app's config file: every other
// entry stays, an older entry of Switchboard's is replaced, the old file is
// backed up beside it, and the new one is written atomically, readable by
// the user only. It refuses (ErrNotJSON) a file that is not plain JSON.
func Write(app App, token string, opts *Options) (Written, error) {
	o := opts.orDefault()
	path, err := Path(app, o)
	if err != nil {
		return Written{}, err
	}
	s, err := entry(app, token, o)
	if err != nil {
		return Written{}, err
	}
	inner, err := jsonobj.Marshal(s)
	if err != nil {
		return Written{}, err
	}
	// Write through a symbolic link (a dotfiles repository) to its target.
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	old, exists, err := readConfig(path)
	if err != nil {
		return Written{}, err
	}
	m, err := merge(old, app.serversKey(), ServerName, inner)
	if err != nil {
		return Written{}, fmt.Errorf("Switchboard did not change %s: %w; copy the entry and add it to the file yourself", path, err)
	}
	w := Written{Path: path, Replaced: m.replaced}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Written{}, fmt.Errorf("making the folder %s: %w", dir, err)
	}
	if exists {
		now := time.Now
		if o.Now != nil {
			now = o.Now
		}
		b, err := backup(path, old, now())
		if err != nil {
			return Written{}, err
		}
		w.Backup = b
	}
	if err := replaceFile(path, m.data, old, exists); err != nil {
		return Written{}, err
	}
	return w, nil
}

// readConfig reads the file at path, at most MaxFileSize; a missing file
// is no error (exists false).
func readConfig(path string) (data []byte, exists bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, true, fmt.Errorf("%s is not a regular file; Switchboard will not change it: copy the entry instead", path)
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, true, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, true, fmt.Errorf("%s is over %d MiB, more than a config file holds; Switchboard will not change it: copy the entry instead", path, MaxFileSize>>20)
	}
	return data, true, nil
}

// backup copies old to a new file beside path, named for the time, and
// returns its name.
func backup(path string, old []byte, now time.Time) (string, error) {
	base := path + "." + now.Format("20060102-150405") + ".switchboard.bak"
	name := base
	for n := 2; ; n++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && n < 100 {
			name = fmt.Sprintf("%s.%d", base, n)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backing up %s: %w; nothing was changed", path, err)
		}
		_, err = f.Write(old)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("backing up %s: %w; nothing was changed", path, err)
		}
		return name, nil
	}
}

// replaceFile writes data to a new file beside path and renames it over
// path, unless path no longer holds old (another program wrote it since it
// was read).
func replaceFile(path string, data, old []byte, existed bool) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	now, exists, err := readConfig(path)
	if err != nil {
		return err
	}
	if exists != existed || !bytes.Equal(now, old) {
		return fmt.Errorf("%s changed while Switchboard was writing it (the app may have saved it); nothing was changed: try again", path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

type merged struct {
	data     []byte
	replaced bool
}

// merge returns the file old with server set as name in the object at key,
// every other member kept in order, indented as old was. An empty old is
// an empty object.
func merge(old []byte, key, name string, server json.RawMessage) (merged, error) {
	indent := detectIndent(old)
	if len(bytes.TrimSpace(old)) == 0 {
		old = []byte("{}")
	}
	if !json.Valid(old) {
		if _, err := hujson.Parse(old); err == nil {
			return merged{}, notJSONf("it has comments or trailing commas, which plain JSON does not allow")
		}
		return merged{}, notJSONf("it is not valid JSON (%s)", syntaxError(old))
	}
	top, ok := jsonobj.Members(old)
	if !ok {
		return merged{}, notJSONf("it does not hold a JSON object")
	}
	at := -1
	for i, m := range top {
		if m.Key != key {
			continue
		}
		if at >= 0 {
			return merged{}, notJSONf("it lists %q twice", key)
		}
		at = i
	}
	var servers jsonobj.Object
	if at >= 0 {
		if !bytes.Equal(bytes.TrimSpace(top[at].Value), []byte("null")) {
			servers, ok = jsonobj.Members(top[at].Value)
			if !ok {
				return merged{}, notJSONf("its %q is not an object", key)
			}
		}
	}
	replaced := false
	for i := range servers {
		if servers[i].Key != name {
			continue
		}
		if replaced {
			return merged{}, notJSONf("its %q lists %q twice", key, name)
		}
		servers[i].Value = server
		replaced = true
	}
	if !replaced {
		servers = append(servers, jsonobj.Member{Key: name, Value: server})
	}
	value, err := jsonobj.Marshal(servers)
	if err != nil {
		return merged{}, err
	}
	if at >= 0 {
		top[at].Value = value
	} else {
		top = append(top, jsonobj.Member{Key: key, Value: value})
	}
	compact, err := jsonobj.Marshal(top)
	if err != nil {
		return merged{}, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", indent); err != nil {
		return merged{}, err
	}
	out.WriteByte('\n')
	return merged{data: out.Bytes(), replaced: replaced}, nil
}

// detectIndent returns the indentation of the first indented line of b: a
// tab (VS Code's own) or spaces; two spaces when none is indented.
func detectIndent(b []byte) string {
	for _, line := range bytes.Split(b, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		n := len(line) - len(trimmed)
		if n == 0 || len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		if line[0] == '\t' {
			return "\t"
		}
		if n > 8 {
			n = 8
		}
		return strings.Repeat(" ", n)
	}
	return "  "
}

// syntaxError says where b stops being JSON: "line 3, column 5: ...".
func syntaxError(b []byte) string {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if err == nil {
			return "unknown error"
		}
		return err.Error()
	}
	// Offset counts the byte that broke it.
	off := int(se.Offset) - 1
	off = max(0, min(off, len(b)))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Sprintf("line %d, column %d: %s", line, col, se.Error())
}
