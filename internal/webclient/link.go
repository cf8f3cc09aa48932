package webclient

import "strings"

// NextLink returns the target of the rel="next" link of an RFC 8288 Link
// header value ("" when there is none).
func NextLink(header string) string {
	for len(header) > 0 {
		header = strings.TrimLeft(header, " \t,")
		if !strings.HasPrefix(header, "<") {
			// Skip to the next link.
			i := strings.Index(header, ",")
			if i < 0 {
				return ""
			}
			header = header[i+1:]
			continue
		}
		end := strings.IndexByte(header, '>')
		if end < 0 {
			return ""
		}
		target := header[1:end]
		header = header[end+1:]
		// Parameters run to the next "," outside quotes.
		params, rest := splitParams(header)
		header = rest
		for _, p := range params {
			name, val, ok := strings.Cut(p, "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
				continue
			}
			val = strings.Trim(strings.TrimSpace(val), `"`)
			for _, rel := range strings.Fields(val) {
				if strings.EqualFold(rel, "next") {
					return strings.TrimSpace(target)
				}
			}
		}
	}
	return ""
}

func splitParams(s string) (params []string, rest string) {
	inQuote := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuote = !inQuote
		case ';':
			if !inQuote {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					params = append(params, p)
				}
				start = i + 1
			}
		case ',':
			if !inQuote {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					params = append(params, p)
				}
				return params, s[i+1:]
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		params = append(params, p)
	}
	return params, ""
}
