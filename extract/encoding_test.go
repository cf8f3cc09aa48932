package extract_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/retrieve-dev/retrieve/extract"
)

func TestDecodeUnicode(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{extract.UTF16LE, []byte("\xff\xfeh\x00\xe9\x00\n\x00"), "hé\n"},
		{extract.UTF16BE, []byte("\xfe\xff\x00h\x00\xe9\x00\n"), "hé\n"},
		{extract.UTF32LE, []byte("\xff\xfe\x00\x00h\x00\x00\x00\x00\xf6\x01\x00"), "h😀"},
		{extract.UTF32BE, []byte("\x00\x00\xfe\xff\x00\x00\x00h"), "h"},
		{extract.UTF8, []byte("\xef\xbb\xbfok"), "ok"},
		{"", []byte("plain"), "plain"},
	} {
		t.Run(c.want, func(t *testing.T) {
			name, n := extract.UnicodeBOM(c.in)
			if name != c.name {
				t.Fatalf("UnicodeBOM: got %q, want %q", name, c.name)
			}
			got, err := io.ReadAll(extract.DecodeUnicode(bytes.NewReader(c.in[n:]), name))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
