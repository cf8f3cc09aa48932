package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/httpapi"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/sqlite"
)

// TestSecuritySlowBody: a client that sends its headers and then trickles
// its body gets TIMEOUT once BodyTimeout has passed, and the connection is
// freed. Before, 100 such bodies were held open for the whole 80 s test.
func TestSecuritySlowBody(t *testing.T) {
	env := opstest.New(t)
	srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{BodyTimeout: 500 * time.Millisecond}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/retrieve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	start := time.Now()
	stop := make(chan struct{})
	go func() { // one byte every 100 ms: the body would take 100 s
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	defer close(stop)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a slow body after %s: %v", time.Since(start), err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(b), "TIMEOUT") {
		t.Errorf("status %d %s, want 504 TIMEOUT", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %s, want about the 500 ms body timeout", d)
	}
	// A body sent at once is not affected, and a call longer than the
	// body timeout is not cut.
	c := &client{t: t, base: srv.URL}
	if status, raw := c.do("POST", "/v1/retrieve", `{"target":"notes.txt"}`); status != 200 {
		t.Errorf("a normal request: status %d %s", status, raw)
	}
}

// TestSecurityReadyzReflectsStore: /readyz answers 503 while the store's
// database does not answer (PostgreSQL down behind a proxy, a closed
// SQLite store) and 200 again once it does. Before, /readyz said ready
// while PostgreSQL was down.
func TestSecurityReadyzReflectsStore(t *testing.T) {
	env := opstest.New(t)
	readyz := func(t *testing.T, ready func(context.Context) error) int {
		t.Helper()
		srv := httptest.NewServer(httpapi.New(env.Table, httpapi.Options{Ready: ready}))
		defer srv.Close()
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	t.Run("SQLite", func(t *testing.T) {
		st, err := sqlite.OpenStore(context.Background(), filepath.Join(t.TempDir(), "retrieve.db"))
		if err != nil {
			t.Fatal(err)
		}
		if got := readyz(t, st.Ping); got != 200 {
			t.Errorf("open store: %d, want 200", got)
		}
		st.Close()
		if got := readyz(t, st.Ping); got != 503 {
			t.Errorf("closed store: %d, want 503", got)
		}
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		if os.Getenv("RETRIEVE_TEST_POSTGRES") == "" {
			if os.Getenv("CI") != "" {
				t.Fatal("RETRIEVE_TEST_POSTGRES is unset under CI")
			}
			t.Skip("RETRIEVE_TEST_POSTGRES is unset")
		}
		proxy, u := pgtest.NewProxy(t, pgtest.URL(t, "sec_readyz"))
		st, err := postgres.OpenStore(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if got := readyz(t, st.Ping); got != 200 {
			t.Errorf("PostgreSQL up: %d, want 200", got)
		}
		proxy.Down()
		if got := readyz(t, st.Ping); got != 503 {
			t.Errorf("PostgreSQL down: %d, want 503", got)
		}
		proxy.Up()
		var got int
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if got = readyz(t, st.Ping); got == 200 {
				break
			}
		}
		if got != 200 {
			t.Errorf("PostgreSQL back: %d, want 200", got)
		}
	})
}
