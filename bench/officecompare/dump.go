package main

import (
	"bytes"
	"context"
	"os"
	"runtime/pprof"

	"github.com/retrieve-dev/retrieve/format"
)

// dump prints one file's extracted text (OFFICE_DUMP=path).
func dump(path string, x format.Extractor) {
	b, _ := os.ReadFile(path)
	if prof := os.Getenv("OFFICE_PROFILE"); prof != "" {
		f, _ := os.Create(prof)
		pprof.StartCPUProfile(f)
		for i := 0; i < 20; i++ {
			x.Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{})
		}
		pprof.StopCPUProfile()
		f.Close()
	}
	t, err := x.Extract(context.Background(), bytes.NewReader(b), int64(len(b)), format.Options{})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return
	}
	os.Stdout.WriteString(t.Text)
}
