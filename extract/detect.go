package extract

import (
	"bytes"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// extFormats maps lower-case file extensions to formats.
var extFormats = map[string]string{
	".json": "json", ".yml": "yaml", ".yaml": "yaml", ".toml": "toml", ".csv": "csv",
	".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html", ".xml": "xml",
	".txt": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".log": "text",
	".go": "go", ".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".py": "python", ".java": "java", ".rs": "rust", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
	".cs": "csharp", ".rb": "ruby",
}

// documentFormats are the formats of extFormats that are not programming
// languages.
var documentFormats = map[string]bool{
	"json": true, "jsonl": true, "yaml": true, "toml": true, "csv": true, "markdown": true, "html": true, "xml": true, "text": true,
}

// IsCode reports whether format is a programming language that Detect
// names (go, typescript, tsx, javascript, python, java, rust, c, cpp,
// csharp, ruby).
func IsCode(format string) bool {
	if documentFormats[format] {
		return false
	}
	for _, f := range extFormats {
		if f == format {
			return true
		}
	}
	return false
}

// CodeExtensions lists the file extensions (lower case, with the dot) that
// Detect names a programming language, sorted.
func CodeExtensions() []string {
	var out []string
	for ext, f := range extFormats {
		if !documentFormats[f] {
			out = append(out, ext)
		}
	}
	sort.Strings(out)
	return out
}

// Detect returns the format of a document from its name and its first bytes
// (up to 8 KiB): json, jsonl, yaml, toml, csv, markdown, html, xml, text, binary,
// or a code language (go, typescript, tsx, javascript, python, java, rust,
// c, cpp, csharp, ruby), which are text.
//
// A NUL byte or invalid UTF-8 in head (an incomplete character at its very
// end aside) makes a document binary whatever its name. Otherwise a known
// extension decides (".jsonl" and ".ndjson" are jsonl), then sniffing with
// mimetype: JSON, HTML, XML, CSV or other text, and binary for the formats
// mimetype knows as binary (images, PDF, archives…).
func Detect(name string, head []byte) string {
	if isBinary(head) {
		return "binary"
	}
	if f, ok := extFormats[strings.ToLower(path.Ext(name))]; ok {
		return f
	}
	mt := mimetype.Detect(head)
	for m := mt; m != nil; m = m.Parent() {
		switch {
		case m.Is("application/json"):
			return "json"
		case m.Is("text/html"):
			return "html"
		case m.Is("text/xml"), m.Is("application/xml"):
			return "xml"
		case m.Is("text/csv"):
			return "csv"
		case m.Is("text/plain"):
			return "text"
		}
	}
	if len(head) == 0 {
		return "text"
	}
	return "binary"
}

// IsBinaryData reports whether head is the start of binary data rather
// than text in some encoding: a NUL byte, or a type mimetype recognises
// that is not text (PDF, images, archives, office files). Text in a legacy
// encoding (Latin-1) is not binary data: --format text may repair it.
func IsBinaryData(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	mt := mimetype.Detect(head)
	for m := mt; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return false
		}
	}
	return !mt.Is("application/octet-stream")
}

func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	// An incomplete character at the end of the sniffed head is not an
	// error: the head is cut at an arbitrary byte.
	b := head
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return false
		}
		b = b[:len(b)-1]
	}
	return !utf8.Valid(b)
}
