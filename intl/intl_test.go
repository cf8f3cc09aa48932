package intl_test

import (
	"github.com/rivo/uniseg"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/intl"
)

func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Flask Jinja2 Templating", "flask-jinja2-templating"},
		{"  --Memory   Leak!! ", "memory-leak"},
		{"内存泄漏", "内存泄漏"},
		{"什么导致服务崩溃?", "什么导致服务崩溃"},
		{"Café Déjà Vu", "café-déjà-vu"},
		{"Cafe\u0301", "café"},             // NFD typed: same slug as NFC
		{"ＡＢＣ１２３", "abc123"},               // full-width letters and digits
		{"ｻｰﾋﾞｽ停止", "サービス停止"},              // half-width katakana
		{"Утечка памяти", "утечка-памяти"}, // Cyrillic
		{"서비스 장애", "서비스-장애"},
		{"שלום עולם", "שלום-עולם"},
		{"🎉🎉 !!", ""},
		{"...", ""},
		{"a\xffb", "a-b"},
	} {
		if got := intl.Slug(c.in, 0); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := intl.Slug(strings.Repeat("漏", 100), 61); got != strings.Repeat("漏", 20) {
		t.Errorf("cap at 61 bytes: %q", got)
	}
	if got := intl.SlugRunes(intl.Slug(strings.Repeat("漏", 100), 0), 60); utf8.RuneCountInString(got) != 60 {
		t.Errorf("SlugRunes: %d runes", utf8.RuneCountInString(got))
	}
}

func TestKey(t *testing.T) {
	for _, c := range [][2]string{
		{"ＭＥＭＯＲＹ　Ｌｅａｋ", "memory leak"},
		{"Memory  Leak", "memory leak"},
		{"STRASSE", "straße"},
		{"ｻｰﾋﾞｽ", "サービス"},
		{"Cafe\u0301", "Café"},
	} {
		if intl.Key(c[0]) != intl.Key(c[1]) {
			t.Errorf("Key(%q) = %q, Key(%q) = %q: want equal", c[0], intl.Key(c[0]), c[1], intl.Key(c[1]))
		}
	}
	if intl.Key("résumé") == intl.Key("resume") {
		t.Error("Key folds diacritics: names with accents are other names")
	}
}

func TestTerms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"The servers crashed", []string{"the", "server", "crash"}},
		{"Résumé", []string{"resum"}},
		{"resume", []string{"resum"}},
		{"回滚时先检查证书", []string{"回滚", "滚时", "时先", "先检", "检查", "查证", "证书"}},
		{"部署deploy证书", []string{"部署", "deploy", "证书"}},
		{"证", []string{"证"}},
		{"ＡＢＣ１２３", []string{"abc123"}},
		{"ｻｰﾋﾞｽ", []string{"サー", "ービ", "ビス"}},
		{"Straße", []string{"strass"}},
		{"ошибки сервера", []string{"ошибк", "сервер"}},
		{"a\xff\xfeb", []string{"a", "b"}},
		{"مرحبا بالعالم", []string{"مرحبا", "بالعالم"}},
	} {
		if got := intl.Terms(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQueryWords(t *testing.T) {
	got := intl.QueryWords("什么导致服务崩溃? crashes 证书 crashes")
	want := []intl.Word{
		{Terms: []string{"什么", "么导", "导致", "致服", "服务", "务崩", "崩溃"}, CJK: true},
		{Terms: []string{"crash"}},
		{Terms: []string{"证书"}, CJK: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if !slices.Equal(got[i].Terms, want[i].Terms) || got[i].CJK != want[i].CJK {
			t.Errorf("word %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestLooseFold(t *testing.T) {
	src := "Die Ｋａｆｆｅｅ-Café\u0301 kostet ３ Euro"
	n, off := intl.LooseFold(src)
	if len(off) != len(n) {
		t.Fatalf("offsets %d for %d bytes", len(off), len(n))
	}
	q, _ := intl.LooseFold("kaffee-cafe\u0301\u0301 KOSTET 3")
	_ = q
	q2, _ := intl.LooseFold("kaffee-café")
	if !strings.Contains(n, q2) {
		t.Errorf("%q does not contain %q", n, q2)
	}
	i := strings.Index(n, q2)
	if got := src[off[i]:]; !strings.HasPrefix(got, "Ｋａｆｆｅｅ") {
		t.Errorf("offset maps to %q", got)
	}
}

func TestSnippet(t *testing.T) {
	body := strings.Repeat("填充文字。", 20) + "回滚时先检查证书，然后重启服务。" + strings.Repeat("其他内容。", 20)
	s := intl.Snippet(body, func(term string) bool { return term == "证书" }, 24)
	if !strings.Contains(s, "证书") || utf8.RuneCountInString(s) > 30 {
		t.Errorf("snippet %q", s)
	}
	s = intl.Snippet("a b c the crashes happen d e f", func(term string) bool { return term == "crash" }, 3)
	if s != "…the crashes happen…" && s != "…crashes happen d…" {
		t.Errorf("snippet %q", s)
	}
}

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		s string
		w int
	}{{"abc", 3}, {"内存泄漏", 8}, {"ｶﾀｶﾅ", 4}, {"Café", 4}, {"Cafe\u0301", 4}} {
		if got := intl.Width(c.s); got != c.w {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.w)
		}
	}
	// Printable ASCII (the fast path) measures as uniseg does; a control
	// byte or a non-ASCII one goes to uniseg.
	var ascii []byte
	for c := byte(0x20); c <= 0x7e; c++ {
		ascii = append(ascii, c)
	}
	for _, s := range []string{string(ascii), "a\tb", "x\x7f", "Cafe\u0301"} {
		if got, want := intl.Width(s), uniseg.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, uniseg says %d", s, got, want)
		}
	}
	if got := intl.PadRight("内存", 6); got != "内存  " {
		t.Errorf("PadRight = %q", got)
	}
	if got := intl.PadRight("内存泄漏", 6); got != "内存泄漏" {
		t.Errorf("PadRight of a wider text = %q", got)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"回滚时先检查证书", "Résumé", "a\xffb", "ｻｰﾋﾞｽ①", "e\u0301\u0301", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range intl.Terms(s) {
			if term == "" || !utf8.ValidString(term) || strings.ContainsAny(term, " \t\n") {
				t.Fatalf("Terms(%q): bad term %q", s, term)
			}
		}
		_ = intl.Snippet(s, func(string) bool { return true }, 5)
		n, off := intl.LooseFold(s)
		if len(off) != len(n) {
			t.Fatalf("LooseFold(%q): %d offsets for %d bytes", s, len(off), len(n))
		}
		slug := intl.Slug(s, 60)
		if len(slug) > 60 || !utf8.ValidString(slug) || strings.HasPrefix(slug, "-") || strings.HasSuffix(slug, "-") {
			t.Fatalf("Slug(%q) = %q", s, slug)
		}
		if intl.Slug(slug, 60) != slug {
			t.Fatalf("Slug not stable: %q → %q → %q", s, slug, intl.Slug(slug, 60))
		}
	})
}

// BenchmarkIndexText measures the analysis of a ~4 KB English note.
func BenchmarkIndexText(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 4000; i++ {
		sb.WriteString([]string{"the", "servers", "crashed", "after", "deployment", "résumé", "memory", "leaks", "caused"}[i%9] + " ")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = intl.IndexText(text)
	}
}

// BenchmarkWidthASCII: the width of an outline table's cell.
func BenchmarkWidthASCII(b *testing.B) {
	for b.Loop() {
		intl.Width("Decimal._round_half_even")
	}
}
