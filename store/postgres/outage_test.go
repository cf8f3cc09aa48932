package postgres_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

// Writers keep writing while PostgreSQL goes away and comes back: during
// the outage every request fails with STORE_UNAVAILABLE within its
// timeout, never hangs or panics; afterwards writes succeed on their own
// and every acknowledged write is present.
func TestOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for an outage")
	}
	raw := pgtest.URL(t, "postgres_outage")
	p, proxied := pgtest.NewProxy(t, raw)
	u, _ := url.Parse(proxied)
	q := u.Query()
	q.Set("connect_timeout", "1")
	app := "retrieve-outage-" + strings.TrimPrefix(q.Get("search_path"), "postgres_outage_")
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const timeout = 3 * time.Second
	var phase atomic.Int32 // 0 before, 1 down, 2 back up
	var mu sync.Mutex
	acked := map[string]bool{}
	var failedDown, failedKill, okAfter, badCode atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				e := newEntry("outage.md")
				ph := phase.Load()
				rctx, cancel := context.WithTimeout(ctx, timeout)
				start := time.Now()
				err := s.Append(rctx, e)
				cancel()
				if took := time.Since(start); took > timeout+time.Second {
					t.Errorf("writer %d: a request took %v, past its %v timeout", w, took, timeout)
				}
				switch {
				case err == nil:
					mu.Lock()
					acked[e.ID] = true
					mu.Unlock()
					if ph >= 2 {
						okAfter.Add(1)
					}
				case retrieve.ErrorCode(err) != retrieve.CodeStoreUnavailable:
					badCode.Add(1)
					t.Errorf("writer %d: %v (code %s), want STORE_UNAVAILABLE", w, err, retrieve.ErrorCode(err))
				case ph == 1:
					failedDown.Add(1)
				case ph == 3:
					failedKill.Add(1)
					t.Errorf("writer %d: a write failed after the server ended the connections (it should be retried on a new one): %v", w, err)
				}
				if err != nil {
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	phase.Store(1)
	p.Down()
	time.Sleep(2 * time.Second)
	p.Up()
	phase.Store(2)
	deadline := time.Now().Add(15 * time.Second)
	for okAfter.Load() < 20 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	// Then the server ends every connection of the store, as a restart
	// or a failover does (FATAL 57P01): writes go on, retried on new
	// connections, without one failing.
	admin, err := pgx.Connect(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	before := okAfter.Load()
	phase.Store(3)
	var killed int
	if err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminated %d backends (%v)", killed, err)
	}
	deadline = time.Now().Add(15 * time.Second)
	for okAfter.Load() < before+20 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if okAfter.Load() < before+20 {
		t.Fatalf("only %d writes succeeded after the server ended the connections", okAfter.Load()-before)
	}
	if failedDown.Load() == 0 {
		t.Error("no request failed while PostgreSQL was away")
	}
	if okAfter.Load() < 20 {
		t.Fatalf("only %d writes succeeded after PostgreSQL came back", okAfter.Load())
	}
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range all {
		if have[e.ID] {
			t.Errorf("id %s twice", e.ID)
		}
		have[e.ID] = true
	}
	for id := range acked {
		if !have[id] {
			t.Errorf("acknowledged entry %s is missing", id)
		}
	}
	t.Logf("%d acknowledged, %d failed with STORE_UNAVAILABLE during the outage, %d succeeded after it; %d failed when the server ended the connections",
		len(acked), failedDown.Load(), okAfter.Load(), failedKill.Load())
}
