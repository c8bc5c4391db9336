package core

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-app/switchboard/internal/store"
)

// Formats of an activity export.
const (
	ActivityJSONL = "jsonl" // one JSON object a line: the whole record, result included
	ActivityCSV   = "csv"   // one row a call, for spreadsheets: the result only measured
)

// ActivityFormats lists the export formats.
var ActivityFormats = []string{ActivityJSONL, ActivityCSV}

// activityExportPage is how many calls an export reads at a time: whole
// results are read, so memory stays bounded by a page, not the export.
const activityExportPage = 200

// activityCSVHeader names the CSV export's columns.
var activityCSVHeader = []string{"requestedAt", "conversationId", "conversationTitle", "messageId", "serverId", "serverName", "tool",
	"arguments", "status", "decision", "decidedBy", "who", "durationMs", "resultSize", "isError", "error", "requestedBy", "id"}

// WriteActivity writes the tool calls f keeps, newest first, at most max
// (0: all of them; f.Cursor and f.Limit are ignored), to w as format
// (ActivityJSONL or ActivityCSV). It returns how many it wrote.
func WriteActivity(ctx context.Context, st *store.Store, w io.Writer, f store.ActivityFilter, format string, max int) (int, error) {
	var row func(store.ActivityRow) error
	var cw *csv.Writer
	switch format {
	case ActivityJSONL:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		row = func(r store.ActivityRow) error { return enc.Encode(r) }
	case ActivityCSV:
		cw = csv.NewWriter(w)
		if err := cw.Write(activityCSVHeader); err != nil {
			return 0, err
		}
		row = func(r store.ActivityRow) error {
			return cw.Write([]string{r.RequestedAt.UTC().Format(time.RFC3339Nano), r.ConversationID, cell(r.ConversationTitle),
				strconv.FormatInt(r.MessageID, 10), cell(r.ServerID), cell(r.ServerName), cell(r.Tool), cell(r.Arguments), r.Status,
				r.Decision, r.DecidedBy, r.Who, strconv.FormatInt(r.DurationMs, 10), strconv.FormatInt(r.ResultSize, 10),
				strconv.FormatBool(r.IsError), cell(r.Error), cell(r.RequestedBy), r.ID})
		}
	default:
		return 0, fmt.Errorf("no export format %q; use %s", format, strings.Join(ActivityFormats, " or "))
	}
	f.Cursor, f.Limit = "", activityExportPage
	n := 0
	for {
		page, err := st.Activity(ctx, f, true)
		if err != nil {
			return n, err
		}
		for _, r := range page.Rows {
			if max > 0 && n == max {
				break
			}
			if err := row(r); err != nil {
				return n, fmt.Errorf("writing the export: %w", err)
			}
			n++
		}
		if cw != nil {
			cw.Flush()
			if err := cw.Error(); err != nil {
				return n, fmt.Errorf("writing the export: %w", err)
			}
		}
		if page.Next == "" || (max > 0 && n == max) {
			return n, nil
		}
		f.Cursor = page.Next
	}
}

// cell keeps a spreadsheet from running text a model or a server wrote as
// a formula: a cell starting with = + - @ (or a tab or carriage return)
// gets a leading apostrophe, as OWASP advises for CSV exports.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
