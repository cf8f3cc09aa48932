package retrieve

import (
	"net/url"
	"strings"
)

// TextFragment builds the value of a URL text directive (the part after
// "#:~:text=") that highlights text in a browser: the whole text when it is
// at most eight words, else its first and last four words as start,end.
// Whitespace is collapsed; '-', ',' and '&' are percent-encoded because
// they are syntax in the directive. Empty text gives "".
func TextFragment(text string) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return ""
	}
	if len(words) <= 8 {
		return fragEscape(strings.Join(words, " "))
	}
	return fragEscape(strings.Join(words[:4], " ")) + "," + fragEscape(strings.Join(words[len(words)-4:], " "))
}

var fragReplacer = strings.NewReplacer("-", "%2D", ",", "%2C", "&", "%26")

func fragEscape(s string) string { return fragReplacer.Replace(url.PathEscape(s)) }

// MarkdownTextFragment is TextFragment of the first non-empty line of
// Markdown, its leading and trailing markup (#, *, >, -, _, `, |) stripped.
func MarkdownTextFragment(markdown string) string {
	for _, l := range strings.Split(markdown, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "#*>-_`|"))
		if l != "" {
			return TextFragment(l)
		}
	}
	return ""
}
