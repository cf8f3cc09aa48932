package extract_test

import (
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/extract"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name, head, want string
	}{
		{"a.json", `{}`, "json"},
		{"a.JSON", `{}`, "json"},
		{"a.jsonl", "{}\n{}\n", "jsonl"},
		{"a.yml", "a: 1", "yaml"},
		{"a.yaml", "a: 1", "yaml"},
		{"Cargo.toml", "[package]", "toml"},
		{"data.csv", "a,b\n1,2\n", "csv"},
		{"README.md", "# x", "markdown"},
		{"page.htm", "<p>", "html"},
		{"feed.xml", "<?xml version=\"1.0\"?><a/>", "xml"},
		{"notes.txt", "hello", "text"},
		{"main.go", "package main", "go"},
		{"user.ts", "interface X {}", "typescript"},
		{"App.tsx", "export {}", "tsx"},
		{"a.js", "x", "javascript"},
		{"a.py", "x", "python"},
		{"A.java", "x", "java"},
		{"lib.rs", "x", "rust"},
		{"a.c", "x", "c"},
		{"a.cpp", "x", "cpp"},
		{"a.cs", "x", "csharp"},
		{"a.rb", "x", "ruby"},
		{"dir.v1/noext", `{"a": 1}`, "json"},
		{"noext", "<!DOCTYPE html><html><p>x", "html"},
		{"noext", "plain words\n", "text"},
		{"Makefile", "all:\n\tgo build\n", "text"},
		{"empty", "", "text"},
		{"a.txt", "abc\x00def", "binary"},
		{"a.json", "{\"a\":\"\x00\"}", "binary"},
		{"a.txt", "caf\xe9 au lait", "binary"},
		{"a.txt", "caf\xc3", "text"},               // a character cut by the sniff window
		{"a.txt", "caf\xe2\x82", "text"},           // same, 2 of 3 bytes
		{"a.txt", "caf\xc3 au lait\xc3", "binary"}, // invalid before the end
		{"x.png", "\x89PNG\r\n\x1a\n\x00\x00", "binary"},
		{"noext", "%PDF-1.4\n1 0 obj\n", "binary"},
	}
	for _, tt := range tests {
		t.Run("OK/"+tt.name+"/"+tt.want, func(t *testing.T) {
			if got := extract.Detect(tt.name, []byte(tt.head)); got != tt.want {
				t.Errorf("Detect(%q, %q) = %s, want %s", tt.name, tt.head, got, tt.want)
			}
		})
	}
	t.Run("OK/long head", func(t *testing.T) {
		head := strings.Repeat("é", 5000)[:8192] // cut inside a character
		if got := extract.Detect("x", []byte(head)); got != "text" {
			t.Errorf("Detect of an 8 KiB head cut in a character = %s, want text", got)
		}
	})
}

func TestIsBinaryData(t *testing.T) {
	for _, c := range []struct {
		name string
		head string
		want bool
	}{
		{"NUL", "a\x00b", true},
		{"PDF", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n", true},
		{"ZIP", "PK\x03\x04\x14\x00\x06\x00", true},
		{"Latin-1 text", "caf\xe9 cr\xe8me, a menu in Latin-1\n", false},
		{"UTF-8 text", "plain text\n", false},
	} {
		if got := extract.IsBinaryData([]byte(c.head)); got != c.want {
			t.Errorf("%s: IsBinaryData = %v, want %v", c.name, got, c.want)
		}
	}
}
