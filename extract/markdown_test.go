package extract_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/retrieve-dev/retrieve/extract"
)

// guide has frontmatter, a fenced block with "#" lines, nested and setext
// headings. Its line numbers:
//
//	1 ---  2 title  3 ---  4 # Guide  8 ## Install  10-15 fence
//	17 ### Linux  21-22 setext "Setext heading" (h2)  26 ## Usage  28 run it
const guide = `---
title: Guide
---
# Guide

Intro.

## Install

` + "```sh\n# not a heading\n## nor this\nInstall\n---\n```" + `

### Linux

apt-get install x

Setext heading
--------------

text

## Usage

run it
`

// noOffsets compares headings by line; TestHeadingOffsets checks the bytes.
var noOffsets = cmpopts.IgnoreFields(extract.Heading{}, "Start", "End")

func TestHeadingOffsets(t *testing.T) {
	hs := extract.Headings([]byte(guide))
	want := map[string][2]string{ // title: how the section starts and ends
		"Guide":          {"# Guide\n", "run it\n"},
		"Linux":          {"### Linux\n", "apt-get install x\n\n"},
		"Setext heading": {"Setext heading\n---", "text\n\n"},
	}
	for _, h := range hs {
		w, ok := want[h.Title]
		if !ok {
			continue
		}
		got := guide[h.Start:h.End]
		if !strings.HasPrefix(got, w[0]) || !strings.HasSuffix(got, w[1]) {
			t.Errorf("%s: section %q, want it to start with %q and end with %q", h.Title, got, w[0], w[1])
		}
		delete(want, h.Title)
	}
	if len(want) > 0 {
		t.Errorf("headings not found: %v", want)
	}
}

func TestHeadings(t *testing.T) {
	want := []extract.Heading{
		{Level: 1, Title: "Guide", Path: "Guide", StartLine: 4, EndLine: 28},
		{Level: 2, Title: "Install", Path: "Guide > Install", StartLine: 8, EndLine: 20},
		{Level: 3, Title: "Linux", Path: "Guide > Install > Linux", StartLine: 17, EndLine: 20},
		{Level: 2, Title: "Setext heading", Path: "Guide > Setext heading", StartLine: 21, EndLine: 25},
		{Level: 2, Title: "Usage", Path: "Guide > Usage", StartLine: 26, EndLine: 28},
	}
	if diff := cmp.Diff(want, extract.Headings([]byte(guide)), noOffsets); diff != "" {
		t.Errorf("Headings (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, doc string
		want      []extract.Heading
	}{
		{"OK/markup in titles", "# The `retrieve` *tool* [docs](x) <https://a.example>\n", []extract.Heading{
			{Level: 1, Title: "The retrieve tool docs https://a.example", Path: "The retrieve tool docs https://a.example", StartLine: 1, EndLine: 1}}},
		{"OK/frontmatter with crlf", "---\r\na: 1\r\n---\r\n# T\r\nx\r\n", []extract.Heading{
			{Level: 1, Title: "T", Path: "T", StartLine: 4, EndLine: 5}}},
		{"OK/thematic break is not frontmatter", "x\n\n---\n# T\n", []extract.Heading{
			{Level: 1, Title: "T", Path: "T", StartLine: 4, EndLine: 4}}},
		{"OK/unclosed frontmatter", "---\n# T\n", []extract.Heading{
			{Level: 1, Title: "T", Path: "T", StartLine: 2, EndLine: 2}}},
		{"OK/level skips", "### deep\n# top\n## mid\n", []extract.Heading{
			{Level: 3, Title: "deep", Path: "deep", StartLine: 1, EndLine: 1},
			{Level: 1, Title: "top", Path: "top", StartLine: 2, EndLine: 3},
			{Level: 2, Title: "mid", Path: "top > mid", StartLine: 3, EndLine: 3}}},
		{"OK/no headings", "text\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, extract.Headings([]byte(tt.doc)), noOffsets); diff != "" {
				t.Errorf("Headings(%q) (-want +got):\n%s", tt.doc, diff)
			}
		})
	}
}

func TestSections(t *testing.T) {
	tests := []struct {
		name      string
		selectors []string
		want      []extract.Range
	}{
		{"OK/two sections", []string{"linux", "Guide > Usage"}, []extract.Range{{17, 20}, {26, 28}}},
		{"OK/path suffix", []string{" install >  LINUX "}, []extract.Range{{17, 20}}},
		{"OK/full path", []string{"Guide > Install > Linux"}, []extract.Range{{17, 20}}},
		{"OK/nested merged", []string{"Install", "Linux"}, []extract.Range{{8, 20}}},
		{"OK/adjacent merged", []string{"Install", "Setext heading"}, []extract.Range{{8, 25}}},
		{"OK/whole document", []string{"guide"}, []extract.Range{{4, 28}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extract.Sections([]byte(guide), tt.selectors)
			if err != nil {
				t.Fatalf("Sections(%q) error: %v", tt.selectors, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sections(%q) (-want +got):\n%s", tt.selectors, diff)
			}
		})
	}
	t.Run("OK/every match", func(t *testing.T) {
		doc := "# A\n## Notes\nx\n# B\n## Notes\ny\n"
		got, err := extract.Sections([]byte(doc), []string{"notes"})
		if want := []extract.Range{{2, 3}, {5, 6}}; err != nil || !cmp.Equal(got, want) {
			t.Errorf("Sections = %v, %v; want %v", got, err, want)
		}
	})
	t.Run("OK/any script", func(t *testing.T) {
		doc := "# 部署指南\n\n## 回滚\n先检查证书。\n## Ｒｅｓｕｍｅ　２\nx\n# Café\ny\n# サービス停止\nz\n"
		for sel, want := range map[string]extract.Range{
			"回滚":         {3, 4},
			"部署指南 ＞ 回滚":  {3, 4},
			"resume 2":   {5, 6},
			"Cafe\u0301": {7, 8},
			"ｻｰﾋﾞｽ停止":    {9, 10},
			"部署指南 > 回滚 ": {3, 4},
		} {
			got, err := extract.Sections([]byte(doc), []string{sel})
			if err != nil || !cmp.Equal(got, []extract.Range{want}) {
				t.Errorf("Sections(%q) = %v, %v; want %v", sel, got, err, want)
			}
		}
	})
	t.Run("ErrSectionNotFound", func(t *testing.T) {
		_, err := extract.Sections([]byte(guide), []string{"Linux", "Windows install"})
		var snf *extract.SectionNotFoundError
		if !errors.As(err, &snf) || !errors.Is(err, extract.ErrSectionNotFound) {
			t.Fatalf("got error %v, want a *SectionNotFoundError", err)
		}
		if want := `section "Windows install" not found among the 5 headings of the document`; err.Error() != want {
			t.Errorf("message = %q, want %q", err.Error(), want)
		}
		want := []string{"Guide > Install", "Guide > Install > Linux", "Guide", "Guide > Setext heading", "Guide > Usage"}
		if diff := cmp.Diff(want, snf.Alternatives()); diff != "" {
			t.Errorf("Alternatives (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrSectionNotFound/no headings", func(t *testing.T) {
		_, err := extract.Sections([]byte("just text\n"), []string{"Foo"})
		if want := `section "Foo" not found: the document has no headings`; err == nil || err.Error() != want {
			t.Errorf("got error %v, want %q", err, want)
		}
	})
	t.Run("ErrSectionNotFound/at most 20 alternatives", func(t *testing.T) {
		var b strings.Builder
		for i := range 30 {
			fmt.Fprintf(&b, "# H%d\n", i)
		}
		_, err := extract.Sections([]byte(b.String()), []string{"nope"})
		var snf *extract.SectionNotFoundError
		if !errors.As(err, &snf) || len(snf.Available) != 30 || len(snf.Alternatives()) != 20 {
			t.Fatalf("got %v; want 30 available and 20 alternatives", err)
		}
	})
}

func FuzzSections(f *testing.F) {
	f.Add(guide, "Install")
	f.Add("# a\n## b\n# c\n", "b")
	f.Add("---\n---\n# x", "x")
	f.Add("x\n===\n\n> # quoted\n- # listed\n", "x")
	f.Add("# a\r\n\r\nb\r\n-\r\n", "a > b")
	f.Fuzz(func(t *testing.T, doc, sel string) {
		total := strings.Count(doc, "\n")
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			total++
		}
		for _, h := range extract.Headings([]byte(doc)) {
			if h.StartLine < 1 || h.EndLine < h.StartLine || h.EndLine > total {
				t.Fatalf("heading %+v outside 1..%d", h, total)
			}
		}
		rs, err := extract.Sections([]byte(doc), []string{sel})
		if err != nil {
			if !errors.Is(err, extract.ErrSectionNotFound) {
				t.Fatalf("error %v does not wrap ErrSectionNotFound", err)
			}
			return
		}
		for i, r := range rs {
			if r.Start < 1 || r.End < r.Start || r.End > total || (i > 0 && r.Start <= rs[i-1].End+1) {
				t.Fatalf("bad ranges %v for a %d-line document", rs, total)
			}
		}
	})
}
