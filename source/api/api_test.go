package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/contracttest"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
)

func TestAPI(t *testing.T) {
	t.Setenv("RETRIEVE_TEST_API_TOKEN", "tok-123")
	var srv *httptest.Server
	var etagBodies atomic.Int32
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			http.Error(w, `{"message":"bad credentials"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/items":
			page := r.URL.Query().Get("page")
			if page == "" {
				page = "1"
			}
			var n int
			fmt.Sscan(page, &n)
			if n < 3 {
				w.Header().Set("Link", fmt.Sprintf(`<%s/items?page=%d>; rel="next", <%s/items?page=3>; rel="last"`, srv.URL, n+1, srv.URL))
			}
			fmt.Fprintf(w, `[{"id":%d,"name":"item%d"},{"id":%d,"name":"item%d"}]`, 2*n-1, 2*n-1, 2*n, 2*n)
		case "/etag":
			w.Header().Set("ETag", `"a1"`)
			if r.Header.Get("If-None-Match") == `"a1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			etagBodies.Add(1)
			fmt.Fprint(w, `{"v":1}`)
		case "/limited":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			http.Error(w, `{"message":"nothing"}`, http.StatusNotFound)
		}
	}))
	defer srv.Close()
	c := webclient.New(webclient.Options{Allow: []string{"127.0.0.1"}, Rate: -1, BackoffBase: time.Millisecond})
	src := api.New(api.Options{Client: c, Headers: map[string]map[string]string{"127.0.0.1": {"Authorization": "Bearer ${env:RETRIEVE_TEST_API_TOKEN}"}}})
	eng, err := engine.New(engine.Options{Sources: []retrieve.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(req retrieve.Request) (*retrieve.Result, error) {
		req.Source = "api"
		res, err := eng.Retrieve(context.Background(), req)
		contracttest.Check(t, res)
		return res, err
	}
	t.Run("Projection", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/items", Constraints: retrieve.Constraints{Select: "[.[].name]"}})
		if err != nil || fmt.Sprint(res.Retrieved.Data) != "[item1 item2]" {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
		if res.Retrieved.Complete {
			t.Error("a projection is not the whole source, and more pages exist")
		}
	})
	t.Run("Pagination", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/items", Web: retrieve.WebOptions{Pages: 5}, Constraints: retrieve.Constraints{Select: "[.[].id]"}})
		if err != nil || fmt.Sprint(res.Retrieved.Data) != "[1 2 3 4 5 6]" {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
		if len(res.EvidenceAnchors) != 3 || !strings.Contains(res.EvidenceAnchors[2], "page=3#sha256=") {
			t.Errorf("anchors %v", res.EvidenceAnchors)
		}
	})
	t.Run("PageLimit", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/items", Web: retrieve.WebOptions{Pages: 2}})
		if err != nil || res.Retrieved.Complete || len(res.Retrieved.Data.([]any)) != 4 {
			t.Fatalf("err=%v complete=%v", err, res.Retrieved.Complete)
		}
	})
	t.Run("Head", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/items", Web: retrieve.WebOptions{Method: "head"}})
		if err != nil || res.Retrieved.Data.(map[string]any)["status"] != float64(200) && res.Retrieved.Data.(map[string]any)["status"] != 200 {
			t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
		}
	})
	t.Run("PostRefused", func(t *testing.T) {
		if _, err := get(retrieve.Request{Target: srv.URL + "/items", Web: retrieve.WebOptions{Method: "POST"}}); retrieve.ErrorCode(err) != retrieve.CodeInputValidation {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Status", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/nothing"})
		if retrieve.ErrorCode(err) != retrieve.CodeUpstreamStatus || !strings.Contains(res.Error.Message, "404") || !strings.Contains(res.Error.Message, "nothing") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("RateLimited", func(t *testing.T) {
		res, err := get(retrieve.Request{Target: srv.URL + "/limited"})
		if retrieve.ErrorCode(err) != retrieve.CodeRateLimited || !strings.Contains(res.Error.Message, "Retry-After: 120") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Revalidated", func(t *testing.T) {
		cache := &memCache{}
		csrc := api.New(api.Options{Client: c, Cache: cache, Headers: map[string]map[string]string{"127.0.0.1": {"Authorization": "Bearer ${env:RETRIEVE_TEST_API_TOKEN}"}}})
		ceng, _ := engine.New(engine.Options{Sources: []retrieve.Source{csrc}})
		var froms []string
		for range 2 {
			res, err := ceng.Retrieve(context.Background(), retrieve.Request{Target: srv.URL + "/etag", Source: "api", Constraints: retrieve.Constraints{Select: ".v"}})
			contracttest.Check(t, res)
			if err != nil || fmt.Sprint(res.Retrieved.Data) != "1" {
				t.Fatalf("err=%v data=%v", err, res.Retrieved.Data)
			}
			froms = append(froms, res.Provenance.RetrievedFrom)
		}
		if froms[0] != "live" || froms[1] != "revalidated" || etagBodies.Load() != 1 {
			t.Fatalf("retrieved_from %v, bodies %d", froms, etagBodies.Load())
		}
		res, err := ceng.Retrieve(context.Background(), retrieve.Request{Target: srv.URL + "/etag", Source: "api", Web: retrieve.WebOptions{MaxAge: "1h"}})
		if err != nil || res.Provenance.RetrievedFrom != "snapshot" || etagBodies.Load() != 1 {
			t.Fatalf("--max-age: err=%v from=%s", err, res.Provenance.RetrievedFrom)
		}
	})
	t.Run("MissingSecret", func(t *testing.T) {
		_, err := get(retrieve.Request{Target: srv.URL + "/items", Web: retrieve.WebOptions{Headers: []string{"X-Key: ${env:RETRIEVE_TEST_UNSET_VAR}"}}})
		if retrieve.ErrorCode(err) != retrieve.CodeInputValidation || !strings.Contains(err.Error(), "RETRIEVE_TEST_UNSET_VAR") {
			t.Fatalf("got %v", err)
		}
	})
}

// memCache is an in-memory webclient.Cache that remembers what it is given.
type memCache struct{ m map[string]*webclient.Cached }

func (c *memCache) Lookup(_ context.Context, kind, target, mode string) (*webclient.Cached, error) {
	return c.m[kind+" "+mode+" "+target], nil
}

func (c *memCache) Remember(kind, target, mode string, v *webclient.Cached) {
	if c.m == nil {
		c.m = map[string]*webclient.Cached{}
	}
	c.m[kind+" "+mode+" "+target] = v
}
