package ops

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
)

// latencyBuckets are the upper bounds, in seconds, of the latency histogram.
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metrics counts the calls of a table. It writes the Prometheus text
// exposition format (version 0.0.4) without a client library.
type Metrics struct {
	mu         sync.Mutex
	requests   map[[3]string]uint64 // op, transport, status
	errors     map[string]uint64    // code
	retrievals map[string]uint64    // source
	hist       map[string]*histogram
	inflight   int64
}

type histogram struct {
	counts []uint64
	sum    float64
	n      uint64
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{requests: map[[3]string]uint64{}, errors: map[string]uint64{}, retrievals: map[string]uint64{}, hist: map[string]*histogram{}}
}

// start counts a call in flight and returns the function that ends it.
func (m *Metrics) start(op, transport string) func(code string, out any) {
	t0 := time.Now()
	m.mu.Lock()
	m.inflight++
	m.mu.Unlock()
	return func(code string, out any) {
		d := time.Since(t0).Seconds()
		status := "ok"
		if code != "" {
			status = "error"
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		m.inflight--
		m.requests[[3]string{op, transport, status}]++
		if code != "" {
			m.errors[code]++
		}
		if r, ok := out.(*retrieve.Result); ok && r.Provenance.SourceType != "" {
			m.retrievals[r.Provenance.SourceType]++
		}
		h := m.hist[op]
		if h == nil {
			h = &histogram{counts: make([]uint64, len(latencyBuckets))}
			m.hist[op] = h
		}
		for i, b := range latencyBuckets {
			if d <= b {
				h.counts[i]++
			}
		}
		h.sum += d
		h.n++
	}
}

// Count adds one to a plain request counter for routes outside the table
// (health checks, the OpenAPI document) — not used for ops.
func (m *Metrics) Requests(op, transport, status string) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[[3]string{op, transport, status}]
}

// WritePrometheus writes the metrics in the Prometheus text format.
func (m *Metrics) WritePrometheus(w io.Writer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP retrieve_requests_total Operations called, by op, transport and status.\n# TYPE retrieve_requests_total counter\n")
	keys := make([][3]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "\x00") < strings.Join(keys[j][:], "\x00") })
	for _, k := range keys {
		fmt.Fprintf(&b, "retrieve_requests_total{op=%q,transport=%q,status=%q} %d\n", k[0], k[1], k[2], m.requests[k])
	}
	b.WriteString("# HELP retrieve_errors_total Failed operations, by error code.\n# TYPE retrieve_errors_total counter\n")
	for _, k := range sortedKeys(m.errors) {
		fmt.Fprintf(&b, "retrieve_errors_total{code=%q} %d\n", k, m.errors[k])
	}
	b.WriteString("# HELP retrieve_retrievals_total Results returned, by source kind.\n# TYPE retrieve_retrievals_total counter\n")
	for _, k := range sortedKeys(m.retrievals) {
		fmt.Fprintf(&b, "retrieve_retrievals_total{source=%q} %d\n", k, m.retrievals[k])
	}
	fmt.Fprintf(&b, "# HELP retrieve_inflight_requests Operations running now.\n# TYPE retrieve_inflight_requests gauge\nretrieve_inflight_requests %d\n", m.inflight)
	b.WriteString("# HELP retrieve_request_duration_seconds Operation latency, by op.\n# TYPE retrieve_request_duration_seconds histogram\n")
	ops := make([]string, 0, len(m.hist))
	for k := range m.hist {
		ops = append(ops, k)
	}
	sort.Strings(ops)
	for _, op := range ops {
		h := m.hist[op]
		for i, le := range latencyBuckets {
			fmt.Fprintf(&b, "retrieve_request_duration_seconds_bucket{op=%q,le=\"%g\"} %d\n", op, le, h.counts[i])
		}
		fmt.Fprintf(&b, "retrieve_request_duration_seconds_bucket{op=%q,le=\"+Inf\"} %d\n", op, h.n)
		fmt.Fprintf(&b, "retrieve_request_duration_seconds_sum{op=%q} %g\n", op, h.sum)
		fmt.Fprintf(&b, "retrieve_request_duration_seconds_count{op=%q} %d\n", op, h.n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedKeys(m map[string]uint64) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
