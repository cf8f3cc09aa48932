package httpapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

func largeText(size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %d \"quoted\" \\ <a&b> \x01 \u2028 日本\n", i)
	}
	return b.String()
}

// A whole large file over /v1/retrieve: the data is escaped straight into
// the response (ops.Encode); the body is complete JSON, Content-Length is
// its length, and the data is the file.
func TestLargeResultBody(t *testing.T) {
	env := opstest.New(t)
	file := largeText(3 * ops.StreamMin)
	env.WS.Write("big.txt", file)
	env.Table.Budget = ops.Budget{Default: 8 << 20, Max: 8 << 20}
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/retrieve", "application/json", strings.NewReader(`{"target":"big.txt","max_bytes":4194304,"no_record":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %.300s", resp.StatusCode, body)
	}
	if cl, _ := strconv.Atoi(resp.Header.Get("Content-Length")); cl != len(body) {
		t.Fatalf("Content-Length %d, body %d bytes", cl, len(body))
	}
	var m struct {
		Retrieved struct {
			Data string `json:"data"`
		} `json:"retrieved"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Retrieved.Data != file {
		t.Fatalf("data: %d bytes, want the file's %d", len(m.Retrieved.Data), len(file))
	}
}

// BenchmarkHTTPLargeResult is a whole-file read of 2 MiB over /v1: bytes
// allocated in the process per byte of the response body.
func BenchmarkHTTPLargeResult(b *testing.B) {
	env := opstest.New(b)
	env.WS.Write("big.txt", largeText(2<<20))
	env.Table.Budget = ops.Budget{Default: 16 << 20, Max: 16 << 20}
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	defer srv.Close()
	body := `{"target":"big.txt","max_bytes":4194304,"no_record":true}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var n, size int64
	for b.Loop() {
		resp, err := http.Post(srv.URL+"/v1/retrieve", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		k, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		n, size = n+1, k
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(size), "alloc-B/body-B")
}
