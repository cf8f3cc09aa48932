package httpapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// BenchmarkHTTPRetrieve is POST /v1/retrieve throughput over real loopback
// with 8 concurrent clients, recording every retrieval in the ledger.
func BenchmarkHTTPRetrieve(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"recorded", `{"target":"README.md"}`},
		{"no_record", `{"target":"README.md","no_record":true}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			env := opstest.New(b)
			srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
			defer srv.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 16}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			b.SetParallelism((8 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := hc.Post(srv.URL+"/v1/retrieve", "application/json", strings.NewReader(c.body))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
