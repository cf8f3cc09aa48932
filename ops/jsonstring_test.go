package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/retrieve-dev/retrieve"
)

func jsonStringCases() []string {
	cases := []string{"", "plain", "quote \" and \\ backslash", "lines\nand\ttabs\r\n", "\x00\x01\x1f\x7f",
		"<html> & </html>", "line\u2028sep\u2029para", "héllo wörld 日本語 🎉", "bad \xff\xfe utf8 \xe2\x82", "\xe2\x82\xac€"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\"", "\\", "\n", "\x02", "<", "&", "é", "\u2028", "\xff", "\xe2\x82", "🎉", " "}
	for range 200 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	return cases
}

// JSONStringLen is the exact length encoding/json gives a string, with and
// without HTML escaping.
func TestJSONStringLen(t *testing.T) {
	for _, s := range jsonStringCases() {
		b, _ := json.Marshal(s)
		if got := JSONStringLen(s, true); got != len(b) {
			t.Errorf("JSONStringLen(%q, html) = %d, json.Marshal gives %d", s, got, len(b))
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := JSONStringLen(s, false), buf.Len()-1; got != want {
			t.Errorf("JSONStringLen(%q) = %d, an Encoder without HTML escaping gives %d", s, got, want)
		}
	}
}

// WriteJSONStringBody writes what encoding/json writes between the
// quotes, with and without HTML escaping.
func TestWriteJSONStringBody(t *testing.T) {
	for _, s := range jsonStringCases() {
		for _, html := range []bool{true, false} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			_ = enc.Encode(s)
			var got strings.Builder
			got.WriteByte('"')
			if err := WriteJSONStringBody(&got, s, html); err != nil {
				t.Fatal(err)
			}
			got.WriteString("\"\n")
			if got.String() != want.String() {
				t.Errorf("WriteJSONStringBody(%q, html %v) = %s, want %s", s, html, got.String(), want.String())
			}
		}
	}
}

// The size of a result is counted without encoding its data, and equals
// the length of its JSON.
func TestJSONLenOfResult(t *testing.T) {
	h := "sha256:ab"
	for _, data := range []any{"text <with> \"quotes\"\n\xff", nil, map[string]any{"k": []any{1, "v"}}} {
		r := &retrieve.Result{Retrieved: retrieve.Retrieved{Target: "a.txt", Data: data}, Citation: retrieve.Citation{Reference: "a.txt:1-2", Hash: &h}}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLen(r); got != len(b) {
			t.Errorf("jsonLen(result with %T data) = %d, json.Marshal gives %d", data, got, len(b))
		}
		if got, want := resultTextLen(r), len(mustJSON(t, RenderResult(r))); got != want {
			t.Errorf("resultTextLen = %d, the JSON of RenderResult is %d bytes", got, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Encode writes exactly what a json.Encoder writes, the data of a large
// result escaped from its string, and Len is the length written.
func TestEncodeLargeResult(t *testing.T) {
	var b strings.Builder
	for b.Len() < StreamMin+10 {
		b.WriteString("<a href=\"x\">&amp;</a>\t\\ \x01 \u2028 日本 \xff\n")
	}
	h := "sha256:ab"
	for _, data := range []any{b.String(), "small <data>", nil} {
		r := &retrieve.Result{Retrieved: retrieve.Retrieved{Target: "a.txt", Data: data}, Citation: retrieve.Citation{Reference: "a.txt", Hash: &h},
			Assumptions: []string{"an assumption with \"quotes\""}}
		for _, html := range []bool{true, false} {
			want, err := encodeLine(r, html)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := Encode(r, html)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			n, err := enc.WriteTo(&got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Encode(%T data, html %v) differs from json.Encoder's (%d vs %d bytes)", data, html, got.Len(), len(want))
			}
			if enc.Len() != len(want) || n != int64(len(want)) {
				t.Errorf("Len = %d, WriteTo wrote %d, the encoding is %d bytes", enc.Len(), n, len(want))
			}
			if s, ok := data.(string); ok && len(s) >= StreamMin && bytes.Contains(enc.head, []byte("日本")) {
				t.Error("the large data was encoded into the head")
			}
		}
	}
}

// The text block of a result is its header and the result's own data
// string, never joined (Op.TextParts), and the message is sized as the
// whole text would be.
func TestOutcomeTextParts(t *testing.T) {
	var b strings.Builder
	for b.Len() < StreamMin+10 {
		b.WriteString("<a href=\"x\">&amp;</a>\t\\ \x01 \u2028 日本 \xff\n")
	}
	h := "sha256:ab"
	for _, data := range []string{b.String(), "small <data>"} {
		r := &retrieve.Result{Retrieved: retrieve.Retrieved{Target: "a.txt", Data: data}, Citation: retrieve.Citation{Reference: "a.txt", Hash: &h}}
		tab := NewTable()
		tab.Budget = Budget{Default: 8 << 20, Max: 8 << 20}
		op := &Op{Name: "r", Input: json.RawMessage(`{"type":"object"}`), Output: json.RawMessage(`{"type":"object"}`),
			Handle:    func(context.Context, json.RawMessage) (any, error) { return r, nil },
			TextParts: func(out any) (string, string) { return renderParts(out.(*retrieve.Result)) }}
		tab.Add(op)
		oc := tab.Call(context.Background(), op, nil, "mcp")
		if oc.Err != nil {
			t.Fatal(oc.Err)
		}
		want := RenderResult(r)
		if got := oc.Text + oc.TextData; got != want {
			t.Errorf("%d bytes of data: the text block is %d bytes, RenderResult %d", len(data), len(got), len(want))
		}
		if unsafe.StringData(oc.TextData) != unsafe.StringData(data) {
			t.Errorf("%d bytes of data: the text block's data is a copy of the result's", len(data))
		}
		if got, want := oc.Size, MessageSize("mcp", oc.Value, want); got != want {
			t.Errorf("%d bytes of data: size %d, the whole text's is %d", len(data), got, want)
		}
	}
}
