package installer

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// npmTimeout bounds one npm run: a big package over a slow mirror takes
// minutes, a hung registry must not take forever.
const npmTimeout = 10 * time.Minute

// maxNPMOutput is how much of npm's output is kept for the error message.
const maxNPMOutput = 64 << 10

// maxManifest bounds a package.json read from an installed package.
const maxManifest = 1 << 20

// packageName is an npm package name: lower case, URL-safe, optionally
// scoped (the registry's rules, validate-npm-package-name).
var packageName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// versionSpec is an exact version, a dist-tag or a range npm accepts; no
// spaces or shell-looking characters, as it becomes one npm argument.
var versionSpec = regexp.MustCompile(`^[A-Za-z0-9.+~^<>=|*_-]{1,64}$`)

// IsFile reports whether s names a package file (.tgz, .tar.gz, .mcpb)
// rather than a package in a registry.
func IsFile(s string) bool {
	l := strings.ToLower(s)
	return strings.HasSuffix(l, ".tgz") || strings.HasSuffix(l, ".tar.gz") || strings.HasSuffix(l, ".mcpb") ||
		strings.HasSuffix(l, ".dxt")
}

// SplitSpec splits "pkg@1.2.3" or "@scope/pkg@1.2.3" into name and version.
func SplitSpec(spec string) (name, version string) {
	at := strings.LastIndexByte(spec, '@')
	if at <= 0 {
		return spec, ""
	}
	return spec[:at], spec[at+1:]
}

// Install installs req into a new folder and returns the config that runs
// it (enabled, not saved). taken reports whether an ID is in use, for the
// ID derived when req.ID is empty.
func (in *Installer) Install(ctx context.Context, req Request, taken func(string) bool) (serverconf.Config, error) {
	if IsFile(req.Package) && isBundle(req.Package) {
		return in.installBundle(ctx, req, taken)
	}
	name, version, file, err := in.npmTarget(req)
	if err != nil {
		return serverconf.Config{}, err
	}
	id := req.ID
	if id == "" {
		base := name
		if i := strings.IndexByte(base, '/'); i >= 0 {
			base = base[i+1:]
		}
		id = serverconf.NewID(base, func(s string) bool { return in.Installed(s) || taken != nil && taken(s) })
	}
	if err := checkID(id); err != nil {
		return serverconf.Config{}, err
	}
	if in.Installed(id) || taken != nil && taken(id) {
		return serverconf.Config{}, fmt.Errorf("%w: a server named %s exists; choose another ID", ErrExists, id)
	}
	inst, bin, err := in.npmInstall(ctx, id, name, version, file, req.Bin, false)
	if err != nil {
		return serverconf.Config{}, err
	}
	return serverconf.Config{
		ID: id, Name: inst.Package, Transport: serverconf.TransportStdio, Enabled: true,
		Command: "node", Args: []string{path.Join(serverconf.InstallDirVar, bin)},
		Install: &inst,
	}, nil
}

// Update installs version (empty: the latest) of installed server cfg in
// place of the one installed, and returns cfg with its Install and the
// command updated. A pinned server without a version asked for is left as
// it is. On failure the installed version stays.
func (in *Installer) Update(ctx context.Context, cfg serverconf.Config, version string) (serverconf.Config, error) {
	old := cfg.Install
	if old == nil {
		return cfg, fmt.Errorf("%w: %s was not installed by Switchboard; edit its command instead", ErrNotInstalled, cfg.ID)
	}
	if old.Pinned && version == "" {
		return cfg, fmt.Errorf("%s is pinned to %s; name a version to update to, or unpin it", cfg.ID, old.Version)
	}
	switch old.Kind {
	case serverconf.InstallNPM:
		if old.File != "" && version == "" {
			return cfg, fmt.Errorf("%s was installed from %s; install a newer file with switchboard servers update %s --file NEWER.tgz", cfg.ID, old.File, cfg.ID)
		}
		if version != "" && !versionSpec.MatchString(version) {
			return cfg, fmt.Errorf("%w: %q is not a version", ErrNoVersion, version)
		}
		if version == "" {
			version = "latest"
		}
		bin := currentBin(cfg)
		inst, entry, err := in.npmInstall(ctx, cfg.ID, old.Package, version, "", bin, true)
		if err != nil {
			return cfg, err
		}
		inst.Pinned = old.Pinned
		cfg.Install = &inst
		cfg.Args = replaceEntry(cfg.Args, path.Join(serverconf.InstallDirVar, entry))
		return cfg, nil
	default:
		return cfg, fmt.Errorf("a %s bundle is updated by installing its newer file: switchboard servers update %s --file NEWER.mcpb", old.Kind, cfg.ID)
	}
}

// UpdateFromFile replaces installed server cfg by the package or bundle in
// file, keeping its ID and the user's settings.
func (in *Installer) UpdateFromFile(ctx context.Context, cfg serverconf.Config, file string, values map[string]string) (serverconf.Config, error) {
	if cfg.Install == nil {
		return cfg, fmt.Errorf("%w: %s was not installed by Switchboard", ErrNotInstalled, cfg.ID)
	}
	if isBundle(file) {
		return in.updateBundle(ctx, cfg, file, values)
	}
	if _, err := os.Stat(file); err != nil {
		return cfg, fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	inst, entry, err := in.npmInstall(ctx, cfg.ID, "", "", file, currentBin(cfg), true)
	if err != nil {
		return cfg, err
	}
	inst.Pinned = cfg.Install.Pinned
	cfg.Install = &inst
	cfg.Args = replaceEntry(cfg.Args, path.Join(serverconf.InstallDirVar, entry))
	return cfg, nil
}

// npmTarget checks req as an npm package name and version, or a .tgz file.
func (in *Installer) npmTarget(req Request) (name, version, file string, err error) {
	if IsFile(req.Package) {
		abs, err := filepath.Abs(req.Package)
		if err != nil {
			return "", "", "", err
		}
		st, err := os.Stat(abs)
		if err != nil || !st.Mode().IsRegular() {
			return "", "", "", fmt.Errorf("%w: %s is not a file; give the path of an npm package tarball (.tgz)", ErrBadPackage, req.Package)
		}
		// The ID comes from the name inside (shout-mcp, not
		// shout-mcp-1-0-0); a tarball npm cannot read fails later with
		// npm's own words.
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(abs), ".tgz"), ".tar.gz")
		if name := tarballName(abs); name != "" {
			base = name
		}
		return base, "", abs, nil
	}
	name, version = SplitSpec(strings.TrimSpace(req.Package))
	if req.Version != "" {
		version = req.Version
	}
	if !packageName.MatchString(name) || len(name) > 214 {
		return "", "", "", fmt.Errorf("%w: %q is not an npm package name (for example @modelcontextprotocol/server-memory)", ErrNotFound, req.Package)
	}
	if version == "" {
		version = "latest"
	}
	if !versionSpec.MatchString(version) {
		return "", "", "", fmt.Errorf("%w: %q is not a version (for example 1.2.3 or latest)", ErrNoVersion, version)
	}
	return name, version, "", nil
}

// npmInstall runs npm in a staging folder and puts it in place of id's
// folder. It returns what was installed and the command's file, relative
// to the folder.
func (in *Installer) npmInstall(ctx context.Context, id, name, version, file, bin string, replace bool) (serverconf.Install, string, error) {
	var inst serverconf.Install
	if in.opts.Runtime == nil {
		return inst, "", errors.New("no Node runtime is configured")
	}
	rt, err := in.opts.Runtime(ctx)
	if err != nil {
		return inst, "", err
	}
	dir, err := in.staging(id)
	if err != nil {
		return inst, "", err
	}
	done := false
	defer func() {
		if !done {
			_ = os.RemoveAll(dir)
		}
	}()
	manifest := `{"name":"switchboard-server","private":true,"description":"An MCP server installed by Switchboard"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(manifest), 0o600); err != nil {
		return inst, "", err
	}
	spec := name + "@" + version
	if file != "" {
		// Copied in, so the lockfile names a file that stays with the
		// server and a reinstall needs nothing from outside.
		local := filepath.Base(file)
		if err := copyFile(file, filepath.Join(dir, local)); err != nil {
			return inst, "", fmt.Errorf("%w: reading %s: %v", ErrBadPackage, file, err)
		}
		spec = "file:./" + local
	}
	in.progress(Progress{ID: id, Step: "resolving", Detail: displaySpec(name, version, file)})
	if err := in.runNPM(ctx, rt, dir, id, spec); err != nil {
		return inst, "", in.explain(err, name, version, file)
	}
	in.progress(Progress{ID: id, Step: "checking"})
	pkgName, err := dependencyName(dir)
	if err != nil {
		return inst, "", err
	}
	pj, err := readPackageJSON(filepath.Join(dir, "node_modules", filepath.FromSlash(pkgName), "package.json"))
	if err != nil {
		return inst, "", fmt.Errorf("%w: %v", ErrBadPackage, err)
	}
	binName, entry, err := pj.entry(bin)
	if err != nil {
		return inst, "", err
	}
	rel := path.Join("node_modules", pkgName, entry)
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
		return inst, "", fmt.Errorf("%w: %s names %s as its command, which the package does not contain", ErrBadPackage, pkgName, entry)
	}
	if err := in.place(dir, id, replace); err != nil {
		return inst, "", err
	}
	done = true
	inst = serverconf.Install{Kind: serverconf.InstallNPM, Package: pkgName, Version: pj.Version, Runtime: "node", Bin: binName}
	if file != "" {
		inst.File = filepath.Base(file)
	}
	in.progress(Progress{ID: id, Step: "done", Detail: pkgName + "@" + pj.Version})
	return inst, rel, nil
}

func displaySpec(name, version, file string) string {
	if file != "" {
		return filepath.Base(file)
	}
	return name + "@" + version
}

// runNPM runs npm install for spec in dir, reporting each file npm fetches.
func (in *Installer) runNPM(ctx context.Context, rt Runtime, dir, id, spec string) error {
	ctx, cancel := context.WithTimeout(ctx, npmTimeout)
	defer cancel()
	args := []string{"install", "--save-exact", "--omit=dev", "--no-audit", "--no-fund", "--no-update-notifier",
		"--loglevel=http", "--install-links", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000"}
	if in.opts.Registry != "" {
		args = append(args, "--registry="+in.opts.Registry)
	}
	args = append(args, "--", spec)
	var cmd *exec.Cmd
	if strings.HasSuffix(rt.NPM, ".js") {
		cmd = exec.CommandContext(ctx, rt.Node, append([]string{rt.NPM}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, rt.NPM, args...)
	}
	cmd.Dir = dir
	cmd.Env = npmEnv(in.opts.Env, filepath.Dir(rt.Node))
	cmd.WaitDelay = 5 * time.Second
	var out limitedBuffer
	out.max = maxNPMOutput
	cmd.Stdout = &out
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	fetched := 0
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, "http fetch GET") {
				fetched++
				in.progress(Progress{ID: id, Step: "downloading", Fetched: fetched, Detail: fetchedName(line)})
				continue
			}
			out.Write([]byte(line + "\n"))
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-scanDone
	if ctx.Err() == context.DeadlineExceeded {
		return &npmError{out: out.String(), err: fmt.Errorf("npm took longer than %v", npmTimeout)}
	}
	if err != nil {
		return &npmError{out: out.String(), err: err}
	}
	return nil
}

// fetchedName is the package a "npm http fetch GET 200 URL 12ms" line
// fetched, for the progress display.
func fetchedName(line string) string {
	f := strings.Fields(line)
	for _, w := range f {
		if strings.HasPrefix(w, "http://") || strings.HasPrefix(w, "https://") {
			w = strings.TrimSuffix(w, "/")
			if i := strings.Index(w, "/-/"); i >= 0 {
				return path.Base(w[i:])
			}
			return path.Base(strings.ReplaceAll(w, "%2f", "/"))
		}
	}
	return ""
}

// npmEnv is npm's environment: env with PATH starting at Node's folder,
// so that package scripts find the same node.
func npmEnv(env []string, nodeDir string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	pathVal := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "PATH") {
			pathVal = v
			continue
		}
		// A parent npm's settings (npm_config_*, when the app is started
		// from an npm script) must not steer this install.
		if strings.HasPrefix(strings.ToLower(k), "npm_") {
			continue
		}
		out = append(out, kv)
	}
	p := nodeDir
	if pathVal != "" {
		p += string(os.PathListSeparator) + pathVal
	}
	return append(out, "PATH="+p)
}

// An npmError is npm failing, with its output for explain.
type npmError struct {
	out string
	err error
}

func (e *npmError) Error() string { return e.err.Error() }
func (e *npmError) Unwrap() error { return e.err }

var npmCode = regexp.MustCompile(`(?m)^npm (?:error|ERR!) code (\S+)`)

// explain turns npm's failure into a message that says what to do.
func (in *Installer) explain(err error, name, version, file string) error {
	var ne *npmError
	if !errors.As(err, &ne) {
		return err
	}
	registry := in.opts.Registry
	if registry == "" {
		registry = "the npm registry"
	}
	code := ""
	if m := npmCode.FindStringSubmatch(ne.out); m != nil {
		code = m[1]
	}
	out := ne.out
	switch {
	case code == "E404":
		return fmt.Errorf("%w: %s is not in %s; check the package name", ErrNotFound, name, registry)
	case code == "ETARGET":
		return fmt.Errorf("%w: %s has no version %s in %s; leave the version empty for the latest", ErrNoVersion, name, version, registry)
	case code == "EINTEGRITY":
		return fmt.Errorf("%w: the download of %s did not match its integrity hash; nothing was installed (a mirror or proxy may have changed it)", ErrBadPackage, name)
	case code == "TAR_BAD_ARCHIVE" || code == "Z_DATA_ERROR" || code == "TAR_ENTRY_INVALID" || code == "TAR_ABORT" ||
		strings.Contains(out, "TAR_BAD_ARCHIVE") || strings.Contains(out, "zlib: ") || strings.Contains(out, "invalid tar") ||
		file != "" && (strings.Contains(out, "ENOENT") && strings.Contains(out, "package.json")):
		what := name
		if file != "" {
			what = filepath.Base(file)
		}
		return fmt.Errorf("%w: %s is not a valid npm package tarball (make one with npm pack); nothing was installed", ErrBadPackage, what)
	case code == "ENOTFOUND" || code == "ECONNREFUSED" || code == "ETIMEDOUT" || code == "EAI_AGAIN" || code == "ECONNRESET" ||
		code == "ENETUNREACH" || code == "EHOSTUNREACH" || code == "CERT_HAS_EXPIRED" || code == "SELF_SIGNED_CERT_IN_CHAIN" ||
		strings.Contains(out, "ECONNREFUSED") || strings.Contains(out, "ENOTFOUND"):
		return fmt.Errorf("%w: cannot reach %s (%s); check the network, or the npm registry URL in Settings", ErrUnreachable, registry, code)
	}
	return fmt.Errorf("npm could not install %s: %s", displaySpec(name, version, file), lastLines(out, 6))
}

// lastLines is the last n non-empty lines of npm's error output, without
// the "npm error" prefixes and the log-file pointer.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l, "npm error"), "npm ERR!"))
		if l == "" || strings.Contains(l, "A complete log of this run") || strings.HasPrefix(l, "code ") {
			continue
		}
		keep = append(keep, l)
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	if len(keep) == 0 {
		return "npm failed without saying why"
	}
	return strings.Join(keep, "; ")
}

// dependencyName is the one package the staging package.json depends on
// after npm install --save-exact.
func dependencyName(dir string) (string, error) {
	data, err := readLimited(filepath.Join(dir, "package.json"), maxManifest)
	if err != nil {
		return "", err
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", fmt.Errorf("reading the install's package.json: %w", err)
	}
	if len(pj.Dependencies) != 1 {
		return "", fmt.Errorf("%w: npm installed %d packages where one was asked for", ErrBadPackage, len(pj.Dependencies))
	}
	for name := range pj.Dependencies {
		if !packageName.MatchString(name) {
			return "", fmt.Errorf("%w: the package calls itself %q, which is not a package name", ErrBadPackage, name)
		}
		return name, nil
	}
	return "", nil
}

type packageJSON struct {
	Name    string          `json:"name"`
	Version string          `json:"version"`
	Bin     json.RawMessage `json:"bin"`
}

func readPackageJSON(file string) (packageJSON, error) {
	var pj packageJSON
	data, err := readLimited(file, maxManifest)
	if err != nil {
		return pj, err
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return pj, fmt.Errorf("%s: %w", file, err)
	}
	return pj, nil
}

// entry is the file of the package's command: its only bin, the bin named
// like the package or the one asked for. It must stay inside the package.
func (pj packageJSON) entry(want string) (name, file string, err error) {
	bins := map[string]string{}
	if len(pj.Bin) > 0 && !bytes.Equal(pj.Bin, []byte("null")) {
		var one string
		if json.Unmarshal(pj.Bin, &one) == nil {
			bins[path.Base(pj.Name)] = one
		} else if err := json.Unmarshal(pj.Bin, &bins); err != nil {
			return "", "", fmt.Errorf("%w: %s's bin field is neither a path nor a map", ErrBadPackage, pj.Name)
		}
	}
	if len(bins) == 0 {
		return "", "", fmt.Errorf("%w: %s has no command (no bin in its package.json), so it is not a server Switchboard can run", ErrBadPackage, pj.Name)
	}
	names := make([]string, 0, len(bins))
	for k := range bins {
		names = append(names, k)
	}
	sort.Strings(names)
	pick := ""
	switch {
	case want != "":
		if _, ok := bins[want]; !ok {
			return "", "", fmt.Errorf("%w: %s has no command %q; it has %s", ErrBadPackage, pj.Name, want, strings.Join(names, ", "))
		}
		pick = want
	case len(bins) == 1:
		pick = names[0]
	default:
		if _, ok := bins[path.Base(pj.Name)]; ok {
			pick = path.Base(pj.Name)
		} else {
			return "", "", fmt.Errorf("%w: %s has several commands (%s); choose one with --bin", ErrBadPackage, pj.Name, strings.Join(names, ", "))
		}
	}
	rel := path.Clean(strings.ReplaceAll(bins[pick], `\`, "/"))
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", "", fmt.Errorf("%w: %s's command %s points outside the package", ErrBadPackage, pj.Name, bins[pick])
	}
	return pick, rel, nil
}

// currentBin is the command an installed server runs, so that an update
// keeps it.
func currentBin(cfg serverconf.Config) string {
	if cfg.Install == nil {
		return ""
	}
	return cfg.Install.Bin
}

// replaceEntry puts entry in place of the ${install}/... argument.
func replaceEntry(args []string, entry string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if strings.HasPrefix(a, serverconf.InstallDirVar+"/") {
			out[i] = entry
			return out
		}
	}
	return append([]string{entry}, out...)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func readLimited(file string, max int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", file, max)
	}
	return data, nil
}

// limitedBuffer keeps the last max bytes written to it; npm's stdout and
// stderr write to it from two goroutines.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// tarballName is the name in an npm tarball's package.json (at the top
// folder, package/ by npm pack), or "" when it cannot be read. It reads at
// most a few thousand entries and a bounded manifest.
func tarballName(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return ""
	}
	tr := tar.NewReader(gz)
	for range 5000 {
		h, err := tr.Next()
		if err != nil {
			return ""
		}
		dir, base := path.Split(path.Clean(h.Name))
		if base != "package.json" || strings.Count(dir, "/") != 1 || h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxManifest+1))
		if err != nil || len(data) > maxManifest {
			return ""
		}
		var pj packageJSON
		if json.Unmarshal(data, &pj) != nil || !packageName.MatchString(pj.Name) {
			return ""
		}
		return pj.Name
	}
	return ""
}
