package pdf

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/retrieve-dev/retrieve/format"
)

func BenchmarkDebugFile(b *testing.B) {
	path := os.Getenv("PDFDUMP")
	if path == "" {
		b.Skip()
	}
	data, _ := os.ReadFile(path)
	for i := 0; i < b.N; i++ {
		if _, err := New().Extract(context.Background(), bytes.NewReader(data), int64(len(data)), format.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
