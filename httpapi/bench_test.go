package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
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

// BenchmarkSmallReadVsBare is issue #31.2's comparison in one process:
// POST /v1/retrieve of 20 lines of one of 1000 small files by 16
// concurrent keep-alive clients, against opstest.BareRead (the bare
// net/http server of ../shared/bench/baseline) on the same files, each
// case reporting req/s and the process's CPU per request (client included;
// the clients' share is the same in every case). bench/peers.sh measures
// the two servers as separate processes.
func BenchmarkSmallReadVsBare(b *testing.B) {
	env := opstest.New(b)
	env.SmallFiles(1000)
	ours := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{}))
	defer ours.Close()
	bare := httptest.NewServer(opstest.BareRead(env.WS.Root))
	defer bare.Close()
	for _, c := range []struct{ name, url, extra string }{
		{"bare", bare.URL, ""},
		{"no_record", ours.URL, `,"no_record":true`},
		{"recorded", ours.URL, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := &http.Transport{MaxIdleConnsPerHost: 16}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			var n atomic.Int64
			b.SetParallelism((16 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			start := opstest.CPUTime()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					body := fmt.Sprintf(`{"target":"f%d.txt","lines":"1-20"%s}`, n.Add(1)%1000, c.extra)
					resp, err := hc.Post(c.url+"/v1/retrieve", "application/json", strings.NewReader(body))
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
			b.ReportMetric(float64(opstest.CPUTime()-start)/float64(b.N)/1e3, "cpu-us/op")
		})
	}
}
