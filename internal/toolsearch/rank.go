package toolsearch

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Tool is what search reads of a tool, and what a result shows.
type Tool struct {
	// Name is the exposed name models call it by (through call_tool).
	Name string
	// OriginalName is the server's own name for it; empty means Name.
	OriginalName string
	Title        string
	Server       string
	Description  string
	// InputSchema is the JSON schema of its arguments, as models get it.
	InputSchema json.RawMessage
}

// Field weights: a word in the name counts three times one in the
// description.
const (
	weightName        = 3.0
	weightTitle       = 2.0
	weightArgs        = 1.5
	weightDescription = 1.0
	weightServer      = 1.0
	// BM25's parameters, the usual ones.
	bm25K1 = 1.2
	bm25B  = 0.75
	// coverBonus is added in the measure of the share of the tool's own
	// name the query holds: "list issues" is all of list_issues, and only
	// two thirds of list_issue_comments.
	coverBonus = 2.0
	// exactBonus is added when the query names the tool exactly; it puts
	// the tool above any other match.
	exactBonus = 1000.0
	// maxArgNames bounds the argument names read of one schema.
	maxArgNames = 64
	// maxFieldBytes bounds what of one field is read (a description of a
	// megabyte is indexed by its start).
	maxFieldBytes = 16 << 10
)

// An Index ranks a set of tools. It is built per search (a few hundred
// tools take well under a millisecond) and is not safe for concurrent use
// by writers; Search only reads it.
type Index struct {
	tools  []Tool
	docs   []doc
	df     map[string]int
	avgLen float64
}

type doc struct {
	tf  map[string]float64 // weighted term frequency
	len float64            // weighted length
	// names are the tool's exposed and original names, lowercased, for
	// the exact-name bonus.
	names []string
	// nameTerms are the terms of the server's own name for the tool, for
	// the coverage bonus.
	nameTerms []string
}

// NewIndex indexes tools (names, titles, descriptions, server names and
// argument names).
func NewIndex(tools []Tool) *Index {
	ix := &Index{tools: tools, docs: make([]doc, len(tools)), df: map[string]int{}}
	total := 0.0
	for i, t := range tools {
		d := doc{tf: map[string]float64{}}
		add := func(text string, w float64) {
			for _, term := range terms(clipBytes(text, maxFieldBytes)) {
				d.tf[term] += w
				d.len += w
			}
		}
		add(t.Name, weightName)
		if t.OriginalName != "" && t.OriginalName != t.Name {
			// The exposed name holds the server ID and the original name;
			// the original's words count once more than the server's.
			add(t.OriginalName, weightName/2)
		}
		add(t.Title, weightTitle)
		add(strings.Join(argNames(t.InputSchema), " "), weightArgs)
		add(t.Description, weightDescription)
		add(t.Server, weightServer)
		d.names = []string{strings.ToLower(t.Name)}
		if t.OriginalName != "" {
			d.names = append(d.names, strings.ToLower(t.OriginalName))
		}
		d.nameTerms = terms(clipBytes(cmp.Or(t.OriginalName, t.Name), maxFieldBytes))
		for term := range d.tf {
			ix.df[term]++
		}
		total += d.len
		ix.docs[i] = d
	}
	if len(tools) > 0 {
		ix.avgLen = total / float64(len(tools))
	}
	return ix
}

// A Match is a tool a search found, and its score.
type Match struct {
	Tool  Tool
	Score float64
}

// Search returns at most limit tools that match query, best first; ties
// keep the index's order. limit is taken between 1 and MaxResults. A
// query with no word in any tool finds nothing.
func (ix *Index) Search(query string, limit int) []Match {
	limit = min(max(limit, 1), MaxResults)
	query = clipBytes(query, MaxQueryBytes)
	q := terms(query)
	if len(q) > MaxQueryWords {
		q = q[:MaxQueryWords]
	}
	slices.Sort(q)
	q = slices.Compact(q)
	lowered := strings.ToLower(strings.TrimSpace(query))
	n := float64(len(ix.docs))
	var out []Match
	for i, d := range ix.docs {
		score := 0.0
		for _, term := range q {
			tf := d.tf[term]
			if tf == 0 {
				continue
			}
			df := float64(ix.df[term])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			norm := 1 - bm25B + bm25B*d.len/max(ix.avgLen, 1)
			score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
		}
		if score > 0 && len(d.nameTerms) > 0 {
			in := 0
			for _, term := range d.nameTerms {
				if _, ok := slices.BinarySearch(q, term); ok {
					in++
				}
			}
			score += coverBonus * float64(in) / float64(len(d.nameTerms))
		}
		if lowered != "" && exactName(lowered, d.names) {
			score += exactBonus
		}
		if score > 0 {
			out = append(out, Match{Tool: ix.tools[i], Score: score})
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out[:min(limit, len(out))]
}

// exactName reports whether query is one of names, or holds the first
// (the exposed name, unique among tools) as a word of its own.
func exactName(query string, names []string) bool {
	if slices.Contains(names, query) {
		return true
	}
	name := names[0]
	for i := 0; ; {
		j := strings.Index(query[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameByte(query[start-1])) && (end == len(query) || !nameByte(query[end])) {
			return true
		}
		i = start + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
}

// argNames returns the property names of an object schema, at most
// maxArgNames of them, in the schema's order.
func argNames(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(s.Properties)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() && len(names) < maxArgNames {
		tok, err := dec.Token()
		if err != nil {
			return names
		}
		key, _ := tok.(string)
		names = append(names, key)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return names
		}
	}
	return names
}

// terms splits text into lowercased, stemmed words without stopwords.
// Words split at anything not a letter or a digit, and inside at camelCase
// and between letters and digits: "listPullRequests_v2" is list, pull,
// request, v, 2.
func terms(text string) []string {
	var out []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			w := strings.ToLower(string(word))
			if !stopwords[w] {
				out = append(out, stem(w))
			}
			word = word[:0]
		}
	}
	runes := []rune(text)
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(word) > 0 {
			prev := word[len(word)-1]
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush() // fooBar
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
				flush() // HTTPServer: HTTP, Server
			}
		}
		word = append(word, r)
	}
	flush()
	return out
}

// stem strips English plural and verb endings, the same way for the
// tools' words and the query's, so "issues", "listing" and "created" meet
// "issue", "list" and "create". It is deliberately light: a wrong merge
// costs more than a missed one.
func stem(w string) string {
	if len(w) <= 3 || !isASCII(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 5:
		w = undouble(w[:len(w)-2])
	}
	// create, creates, creating and created all end as "creat".
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble drops the second of a doubled final consonant: stopp, runn.
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// clipBytes cuts s to at most n bytes, on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// stopwords are words too common in tool descriptions and queries to
// tell tools apart. Verbs that name what a tool does (get, set, list,
// create) are not among them.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been by can could do does for from has have how i if in into is it its
		me my of on or our should so than that the their them then there these this those to too us was we were what when where which
		who will with would you your tool tools please want need some any`) {
		m[w] = true
	}
	return m
}()
