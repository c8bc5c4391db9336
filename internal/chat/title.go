package chat

import (
	"strings"
	"unicode"
)

// markdownMarks are removed from titles: they would show as raw symbols.
var markdownMarks = strings.NewReplacer("**", "", "`", "", "~~", "") // not "__": it is in identifiers (everything__echo)

// TitleLength is the most characters of a title made from a message.
const TitleLength = 60

// Title makes a conversation title from the first user message: its first
// non-empty line with spaces collapsed, cut at a word boundary to at most
// TitleLength characters (an ellipsis marks the cut), without markdown
// emphasis, code marks and heading or quote markers. No model is asked, so
// it is instant and the same for the same text.
func Title(text string) string {
	var line string
	for l := range strings.Lines(text) {
		l = markdownMarks.Replace(l)
		l = strings.TrimLeft(strings.TrimSpace(l), "#> ")
		if line = strings.Join(strings.Fields(l), " "); line != "" {
			break
		}
	}
	runes := []rune(line)
	if len(runes) <= TitleLength {
		return line
	}
	cut := TitleLength - 1 // room for the ellipsis
	for i := cut; i > TitleLength/2; i-- {
		if unicode.IsSpace(runes[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(runes[:cut]), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}) + "…"
}
