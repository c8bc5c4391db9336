package app

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/core"
	"github.com/switchboard-app/switchboard/internal/store"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// ListActivity returns a page of the tool calls of every conversation that
// the filter keeps, newest first (the Tool activity view).
func (a *App) ListActivity(f store.ActivityFilter) (store.ActivityPage, error) {
	if a.core.Store == nil {
		return store.ActivityPage{}, errNoStore
	}
	return a.core.Store.Activity(a.life, f, false)
}

// ActivityFacets returns the servers and tools that made calls, for the
// activity view's filters.
func (a *App) ActivityFacets() (store.ActivityFacets, error) {
	if a.core.Store == nil {
		return store.ActivityFacets{}, errNoStore
	}
	return a.core.Store.ActivityFacets(a.life)
}

// GetActivityCall returns one tool call's whole audit record (arguments
// and result uncut).
func (a *App) GetActivityCall(id string) (store.ToolCall, error) {
	if a.core.Store == nil {
		return store.ToolCall{}, errNoStore
	}
	return a.core.Store.ToolCallRecord(a.life, id)
}

// An ActivityExport says where SaveActivityExport wrote; Path is empty
// when the user cancelled the dialog.
type ActivityExport struct {
	Path  string `json:"path"`
	Calls int    `json:"calls"`
}

// SaveActivityExport asks where to save, with the system's dialog, and
// writes there the tool calls the filter keeps, as format ("jsonl" or
// "csv"). The file is written here, page by page, rather than handed to
// the page as text to download: an export of every call with its results
// can be hundreds of megabytes, and the webviews save downloads unevenly.
func (a *App) SaveActivityExport(f store.ActivityFilter, format string) (ActivityExport, error) {
	if a.core.Store == nil {
		return ActivityExport{}, errNoStore
	}
	if format != core.ActivityJSONL && format != core.ActivityCSV {
		return ActivityExport{}, fmt.Errorf("no export format %q; use %s", format, strings.Join(core.ActivityFormats, " or "))
	}
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		return ActivityExport{}, errors.New("the window is not ready")
	}
	name := "switchboard-activity-" + time.Now().Format("2006-01-02") + "." + format
	path, err := runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: "Export tool activity", DefaultFilename: name,
		Filters: []runtime.FileFilter{{DisplayName: strings.ToUpper(format) + " (*." + format + ")", Pattern: "*." + format}}})
	if err != nil || path == "" {
		return ActivityExport{}, err
	}
	n, err := writeActivityFile(a, path, f, format)
	if err != nil {
		return ActivityExport{}, err
	}
	return ActivityExport{Path: path, Calls: n}, nil
}

// writeActivityFile writes the export to path, private to the user (it
// holds what tools returned); a failed export leaves no partial file.
func writeActivityFile(a *App, path string, f store.ActivityFilter, format string) (int, error) {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("exporting to %s: %w; choose another folder", path, err)
	}
	w := bufio.NewWriterSize(file, 1<<16)
	n, err := core.WriteActivity(a.life, a.core.Store, w, f, format, 0)
	if err == nil {
		err = w.Flush()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return 0, fmt.Errorf("exporting to %s: %w", path, err)
	}
	return n, nil
}
