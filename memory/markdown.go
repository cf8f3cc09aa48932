package memory

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/extract"
)

// Section returns the section of a note named by heading (its title, or a
// path "A > B"): from the heading line to the line before the next heading
// of equal or higher level. It reports the headings there are when none
// matches.
func Section(doc, heading string) (string, bool, []string) {
	ranges, err := extract.Sections([]byte(doc), []string{heading})
	if err != nil {
		var nf *extract.SectionNotFoundError
		if errors.As(err, &nf) {
			return "", false, nf.Available
		}
		return "", false, nil
	}
	lines := strings.SplitAfter(doc, "\n")
	var b strings.Builder
	for i, r := range ranges {
		if i > 0 {
			b.WriteString("\n")
		}
		for l := r.Start; l <= r.End && l-1 < len(lines); l++ {
			b.WriteString(lines[l-1])
		}
	}
	return b.String(), true, nil
}

var (
	fenceRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^\\s{0,3}(```+|~~~+)\\s*([A-Za-z0-9_+.-]*)") })
	linkRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[[^\]]*\]\([^)]*\)|https?://[^\s)>\]]+`) })
	listRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([-*+]|[0-9]+[.)])\s+`) })
)

// Specific keeps the parts of a note that format hints name, comma
// separated: code (or code:LANG), tables, lists, links, headings.
func Specific(body, hints string) (string, error) {
	want := map[string]string{}
	for _, h := range strings.Split(hints, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		kind, arg, _ := strings.Cut(h, ":")
		kind = strings.TrimSuffix(kind, "s")
		switch kind {
		case "code", "code_block", "table", "list", "link", "heading":
			want[strings.TrimSuffix(kind, "_block")] = arg
		default:
			return "", retrieve.Errorf(retrieve.CodeInputValidation, "unknown format hint '%s'", h).
				WithHint("use code, code:LANG, tables, lists, links or headings, comma separated")
		}
	}
	var parts []string
	lines := strings.Split(body, "\n")
	inFence, fence, keepFence := false, "", false
	var block []string
	flush := func() {
		if len(block) > 0 {
			parts = append(parts, strings.Join(block, "\n"))
			block = nil
		}
	}
	prevTable, prevList := false, false
	for _, line := range lines {
		if m := fenceRe().FindStringSubmatch(line); m != nil && (!inFence || strings.HasPrefix(strings.TrimSpace(line), fence)) {
			if !inFence {
				inFence, fence = true, m[1][:3]
				lang, ok := want["code"]
				keepFence = ok && (lang == "" || strings.EqualFold(lang, m[2]))
				if keepFence {
					block = append(block, line)
				}
				continue
			}
			if keepFence {
				block = append(block, line)
				flush()
			}
			inFence, keepFence = false, false
			continue
		}
		if inFence {
			if keepFence {
				block = append(block, line)
			}
			continue
		}
		_, wTable := want["table"]
		_, wList := want["list"]
		isTable := wTable && strings.HasPrefix(strings.TrimSpace(line), "|")
		isList := wList && (listRe().MatchString(line) || (prevList && strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != ""))
		if (prevTable && !isTable) || (prevList && !isList) {
			flush()
		}
		prevTable, prevList = isTable, isList
		if isTable || isList {
			block = append(block, line)
			continue
		}
		if _, ok := want["heading"]; ok && strings.HasPrefix(strings.TrimSpace(line), "#") {
			parts = append(parts, strings.TrimSpace(line))
			continue
		}
		if _, ok := want["link"]; ok {
			parts = append(parts, linkRe().FindAllString(line, -1)...)
		}
	}
	flush()
	return strings.Join(parts, "\n\n"), nil
}
