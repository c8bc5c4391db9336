package store

import "strings"

// clampLimit returns limit, or def where limit is zero or less, at most
// max: the row limit of a filtered list.
func clampLimit(limit, def, max int) int {
	if limit <= 0 {
		limit = def
	}
	return min(limit, max)
}

// whereAll makes a WHERE clause that wants every one of conds (joined
// with AND), with a leading space; no conds make an empty clause.
func whereAll(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(conds, ` AND `)
}
