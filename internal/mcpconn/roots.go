package mcpconn

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-app/switchboard/internal/logbuf"
)

// A server is offered roots (the folders it may work in) only when its
// configuration names some (serverconf.Config.Roots): then the client
// declares the roots capability, with listChanged, and answers roots/list.
// Without them it declares nothing, because a server such as
// server-filesystem replaces the directories it was started with by the
// client's roots, and an empty list would leave it none.

// rootURI is the file: URI of an absolute folder path.
func rootURI(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	if !strings.HasPrefix(p, "/") { // C:/x on Windows
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// rootsOf turns folder paths into MCP roots, each named after its folder.
func rootsOf(paths []string) []*mcp.Root {
	out := make([]*mcp.Root, 0, len(paths))
	for _, p := range paths {
		out = append(out, &mcp.Root{URI: rootURI(p), Name: filepath.Base(filepath.Clean(p))})
	}
	return out
}

// noteMissingRoots says in the server's log which of its roots is not a
// folder here; the server is told of them anyway (it may run elsewhere).
func noteMissingRoots(ring *logbuf.Ring, paths []string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			ring.AppendLevel(logbuf.LevelWarn, fmt.Sprintf("%sroot %s is not a folder on this computer; the server is told of it anyway", markerPrefix, p))
		}
	}
}

// sendRoots makes the session's roots the ones last wanted (rootsWant):
// the client's list changes and the SDK sends the server
// notifications/roots/list_changed, so it asks again. Calls are serialized
// and each applies the roots wanted when it runs, so the last one wanted
// wins.
func (s *session) sendRoots() {
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	want, _ := s.rootsWant.Load().([]string)
	var gone []string
	for _, p := range s.rootsSent {
		if !slices.Contains(want, p) {
			gone = append(gone, rootURI(p))
		}
	}
	var added []string
	for _, p := range want {
		if !slices.Contains(s.rootsSent, p) {
			added = append(added, p)
		}
	}
	if len(gone) > 0 {
		s.client.RemoveRoots(gone...)
	}
	if len(added) > 0 {
		noteMissingRoots(s.ring, added)
		s.client.AddRoots(rootsOf(added)...)
	}
	s.rootsSent = slices.Clone(want)
}

// applyRoots sends server s's live session the roots paths, in the
// background (a notification may wait on a slow server). Update calls it
// only when the session was offered roots and still is: offering roots
// where there were none, or none where there were some, reconnects.
func (s *server) applyRoots(paths []string) {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil || sess.client == nil {
		return
	}
	sess.rootsWant.Store(slices.Clone(paths))
	go sess.sendRoots()
}
