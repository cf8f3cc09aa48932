package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/internal/webclient"
	"github.com/retrieve-dev/retrieve/source/api"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// verifyEnv is a recording engine over the api source and a loopback
// endpoint of three Link pages, page 2 of which says what rev holds; a
// request whose Authorization is not "Bearer <token>" gets 401.
type verifyEnv struct {
	eng   *engine.Engine
	srv   *httptest.Server
	rev   *atomic.Int32
	dbDir string
}

func newVerifyEnv(t *testing.T, token string) *verifyEnv {
	t.Helper()
	env := &verifyEnv{rev: &atomic.Int32{}, dbDir: t.TempDir()}
	env.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"message":"bad credentials"}`, http.StatusUnauthorized)
			return
		}
		n := 1
		fmt.Sscan(r.URL.Query().Get("page"), &n)
		if n < 3 {
			w.Header().Set("Link", fmt.Sprintf(`<%s/items?page=%d>; rel="next"`, env.srv.URL, n+1))
		}
		w.Header().Set("Content-Type", "application/json")
		name := fmt.Sprintf("item%d", n)
		if n == 2 && env.rev.Load() > 0 {
			name = "renamed"
		}
		fmt.Fprintf(w, `[{"id":%d,"items":[{"name":%q}]}]`, n, name)
	}))
	t.Cleanup(env.srv.Close)
	st, err := sqlite.OpenStore(context.Background(), filepath.Join(env.dbDir, "retrieve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	c := webclient.New(webclient.Options{Allow: []string{"127.0.0.1"}, Rate: -1, BackoffBase: time.Millisecond})
	env.eng, err = engine.New(engine.Options{Sources: []retrieve.Source{api.New(api.Options{Client: c})}, Store: st, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func (env *verifyEnv) get(t *testing.T, req retrieve.Request) *retrieve.Result {
	t.Helper()
	req.Source = "api"
	if req.Target == "" {
		req.Target = env.srv.URL + "/items"
	}
	res, err := env.eng.Retrieve(context.Background(), req)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	return res
}

func (env *verifyEnv) verify(t *testing.T, id string) *retrieve.Verification {
	t.Helper()
	v, err := env.eng.VerifyEntry(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestVerifyPagedRead: a citation of N Link pages verifies by fetching the
// same N pages again — verified while they are unchanged, changed with the
// diff of what was cited once one changes — with and without a select,
// which runs on the joined array of the pages (issue 28).
func TestVerifyPagedRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  retrieve.Request
		data string
	}{
		// As the CLI's --pages 3 sets it (both fields), and as the servers' web.pages.
		{"cli pages", retrieve.Request{Web: retrieve.WebOptions{Pages: 3}, Constraints: retrieve.Constraints{Pages: "3"}}, ""},
		{"server pages", retrieve.Request{Web: retrieve.WebOptions{Pages: 3}}, ""},
		{"pages and select", retrieve.Request{Web: retrieve.WebOptions{Pages: 3}, Constraints: retrieve.Constraints{Select: ".[].items[].name"}}, "[item1 item2 item3]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newVerifyEnv(t, "")
			res := env.get(t, tc.req)
			if tc.data != "" && fmt.Sprint(res.Retrieved.Data) != tc.data {
				t.Fatalf("data %v, want %s: the select runs on the joined pages", res.Retrieved.Data, tc.data)
			}
			if res.Extraction.AppliedFilters["pages"] != "3" {
				t.Errorf("applied_filters %v: want pages 3", res.Extraction.AppliedFilters)
			}
			// The reference names the pages (#pages=3): a target that reads them again.
			if again := env.get(t, retrieve.Request{Target: res.Citation.Reference}); !strings.Contains(res.Citation.Reference, "#pages=3") || *again.Citation.Hash != *res.Citation.Hash {
				t.Errorf("reference %s re-retrieves hash %s, want %s", res.Citation.Reference, *again.Citation.Hash, *res.Citation.Hash)
			}
			if v := env.verify(t, res.RetrievalID); v.Status != retrieve.Verified {
				t.Fatalf("unchanged pages: %s (%v, current %s, cited %s)", v.Status, v.Error, v.CurrentHash, v.CitedHash)
			}
			env.rev.Store(1)
			v := env.verify(t, res.RetrievalID)
			if v.Status != retrieve.Changed || !strings.Contains(v.Diff, "-") || !strings.Contains(v.Diff, "renamed") || !strings.Contains(v.Diff, "item2") {
				t.Fatalf("page 2 changed: %s, diff:\n%s", v.Status, v.Diff)
			}
		})
	}
}

// TestVerifyHeaderAuthenticatedRead: a citation made with --header
// 'Authorization: Bearer ${env:NAME}' records the header's name and
// template, never the token; verify expands it again (verified), says
// unavailable with the variable's name once it is unset, and a literal
// header value, never recorded, makes verify unavailable with the reason.
func TestVerifyHeaderAuthenticatedRead(t *testing.T) {
	const secret = "tok-7d1f9c2e8a"
	t.Setenv("RETRIEVE_TEST_VERIFY_TOKEN", secret)
	env := newVerifyEnv(t, secret)
	res := env.get(t, retrieve.Request{Web: retrieve.WebOptions{Headers: []string{"Authorization: Bearer ${env:RETRIEVE_TEST_VERIFY_TOKEN}"}}})
	if v := env.verify(t, res.RetrievalID); v.Status != retrieve.Verified {
		t.Fatalf("verify: %s %v", v.Status, v.Error)
	}
	// No secret in the result or the ledger (the database and its WAL).
	b, _ := json.Marshal(res)
	if bytes.Contains(b, []byte(secret)) {
		t.Errorf("the result holds the token: %s", b)
	}
	if !bytes.Contains(b, []byte(`Bearer ${env:RETRIEVE_TEST_VERIFY_TOKEN}`)) {
		t.Errorf("the result does not record the header's template: %s", b)
	}
	files, _ := filepath.Glob(filepath.Join(env.dbDir, "retrieve.db*"))
	for _, f := range files {
		if raw, _ := os.ReadFile(f); bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%s holds the token", f)
		}
	}
	// A result handed in (not a ledger entry) does not send headers: its
	// metadata could name any variable for any host.
	if v := env.eng.VerifyResult(context.Background(), res); v.Status != retrieve.Unavailable || !strings.Contains(v.Error.Hint, "retrieval id") {
		t.Errorf("verify of a handed-in result with headers: %s %+v", v.Status, v.Error)
	}
	os.Unsetenv("RETRIEVE_TEST_VERIFY_TOKEN")
	if v := env.verify(t, res.RetrievalID); v.Status != retrieve.Unavailable || !strings.Contains(v.Error.Message, "RETRIEVE_TEST_VERIFY_TOKEN is not set") || !strings.Contains(v.Error.Message, "Authorization") {
		t.Errorf("verify without the variable: %s %+v", v.Status, v.Error)
	}
	lit := env.get(t, retrieve.Request{Web: retrieve.WebOptions{Headers: []string{"Authorization: Bearer " + secret}}})
	if b, _ := json.Marshal(lit); bytes.Contains(b, []byte(secret)) {
		t.Errorf("the result of a literal header holds the token: %s", b)
	}
	if v := env.verify(t, lit.RetrievalID); v.Status != retrieve.Unavailable || !strings.Contains(v.Error.Message, "literal") || !strings.Contains(v.Error.Hint, "${env:NAME}") {
		t.Errorf("verify of a literal header: %s %+v", v.Status, v.Error)
	}
}

// TestAPINextPage: a read stopped at its page count names the next Link
// page as extraction.next (with the selection's fragment), and following
// next reads every page once: the parts join to the whole.
func TestAPINextPage(t *testing.T) {
	env := newVerifyEnv(t, "")
	var ids []any
	req := retrieve.Request{Web: retrieve.WebOptions{Pages: 2}, Constraints: retrieve.Constraints{Select: "[.[].id]"}}
	for part := 0; ; part++ {
		if part > 5 {
			t.Fatal("next never ends")
		}
		res := env.get(t, req)
		ids = append(ids, res.Retrieved.Data.([]any)...)
		if res.Extraction.Next == nil {
			if res.Extraction.Truncated {
				t.Errorf("part %d: truncated without a next part", part)
			}
			break
		}
		if !res.Extraction.Truncated || !strings.HasSuffix(*res.Extraction.Next, "#pages=2#select=%5B.%5B%5D.id%5D") {
			t.Errorf("part %d: next %s truncated %v", part, *res.Extraction.Next, res.Extraction.Truncated)
		}
		req = retrieve.Request{Target: *res.Extraction.Next}
	}
	if fmt.Sprint(ids) != "[1 2 3]" {
		t.Errorf("the parts join to %v, want the ids of the three pages", ids)
	}
}
