package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/graph/graphtest"
	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/internal/testws"
	"github.com/retrieve-dev/retrieve/ledger"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
)

var apiLine = regexp.MustCompile(`api=(http://[0-9.:]+/v1/)`)

// replica is one `retrieve serve --http` process.
type replica struct {
	cmd *exec.Cmd
	api string
}

func startReplica(t *testing.T, bin, root, pg string) *replica {
	t.Helper()
	cmd := exec.Command(bin, "--root", root, "--store", pg, "serve", "--http", "127.0.0.1:0", "--timeout", "10s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := apiLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case api := <-found:
		return &replica{cmd: cmd, api: api}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the replica did not start serving in 30 s")
		return nil
	}
}

func (r *replica) stop() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	_ = r.cmd.Wait()
}

// Two `retrieve serve --http` replicas on one PostgreSQL store, 4 clients
// writing through both; one replica is killed with SIGKILL under load and
// restarted. Every retrieval a replica acknowledged (its retrieval_id) is in
// the ledger, no id twice, and no client saw a store error.
func TestServeReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	secs := 6
	if v, err := strconv.Atoi(os.Getenv("RETRIEVE_TEST_SERVE_SECONDS")); err == nil && v > 0 {
		secs = v // the 30 s soak: RETRIEVE_TEST_SERVE_SECONDS=30
	}
	bin := binary(t)
	pg := pgtest.URL(t, "postgres_serve")
	ws := testws.New(t)
	for i := range 8 {
		ws.Write(fmt.Sprintf("doc%d.md", i), fmt.Sprintf("# Doc %d\n\nline of doc %d\n", i, i))
	}
	reps := []*replica{startReplica(t, bin, ws.Root, pg), startReplica(t, bin, ws.Root, pg)}
	defer func() {
		for _, r := range reps {
			r.stop()
		}
	}()
	var mu sync.Mutex
	apis := []string{reps[0].api, reps[1].api}
	acked := map[string]int{}
	var okN, refused, storeErrs, okRestarted atomic.Int64
	var restartedAPI atomic.Value
	restartedAPI.Store("")
	stop := make(chan struct{})
	client := &http.Client{Timeout: 15 * time.Second}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				api := apis[(c+i)%2]
				mu.Unlock()
				body, _ := json.Marshal(map[string]any{"target": fmt.Sprintf("doc%d.md", (c+i)%8)})
				resp, err := client.Post(api+"retrieve", "application/json", bytes.NewReader(body))
				if err != nil {
					refused.Add(1) // the killed replica
					time.Sleep(20 * time.Millisecond)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var res struct {
					RetrievalID string   `json:"retrieval_id"`
					Assumptions []string `json:"assumptions"`
					Error       *struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal(b, &res); err != nil {
					t.Errorf("client %d: status %d, not JSON: %s", c, resp.StatusCode, b)
					continue
				}
				if res.Error != nil || res.RetrievalID == "" {
					storeErrs.Add(1)
					t.Errorf("client %d: status %d, not recorded: %s", c, resp.StatusCode, b)
					continue
				}
				mu.Lock()
				acked[res.RetrievalID]++
				mu.Unlock()
				okN.Add(1)
				if api == restartedAPI.Load().(string) {
					okRestarted.Add(1)
				}
			}
		}()
	}
	time.Sleep(time.Duration(secs) * time.Second / 3)
	// SIGKILL replica 1 under load; the other keeps serving.
	_ = reps[1].cmd.Process.Signal(syscall.SIGKILL)
	_ = reps[1].cmd.Wait()
	before := okN.Load()
	time.Sleep(time.Duration(secs) * time.Second / 3)
	if okN.Load()-before < 10 {
		t.Errorf("only %d requests succeeded while one replica was dead", okN.Load()-before)
	}
	// Restart it: it serves again.
	reps[1] = startReplica(t, bin, ws.Root, pg)
	mu.Lock()
	apis[1] = reps[1].api
	mu.Unlock()
	restartedAPI.Store(reps[1].api)
	time.Sleep(time.Duration(secs) * time.Second / 3)
	close(stop)
	wg.Wait()

	// The graph is shared too: ingested through one replica, queried with
	// evidence through the other.
	post := func(api, op string, in any) string {
		t.Helper()
		body, _ := json.Marshal(in)
		resp, err := client.Post(api+op, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", op, resp.StatusCode, b)
		}
		return string(b)
	}
	if out := post(apis[0], "ingest", graphtest.AcceptanceInput()); !strings.Contains(out, `"edges_added":1`) && !strings.Contains(out, `"edges_added": 1`) {
		t.Errorf("ingest through replica 0: %s", out)
	}
	if out := post(apis[1], "query_with_evidence", graph.QueryInput{Query: "Why does the system crash?"}); !strings.Contains(out, "memory leak --[causes]--> system crash") {
		t.Errorf("evidence through replica 1: %s", out)
	}

	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	for _, e := range all {
		have[e.ID]++
	}
	for id, n := range acked {
		if n != 1 {
			t.Errorf("retrieval id %s returned %d times", id, n)
		}
		if have[id] != 1 {
			t.Errorf("acknowledged retrieval %s is in the ledger %d times", id, have[id])
		}
	}
	if rep, err := ledger.AuditLog(ctx, s, nil); err != nil || !rep.Consistent || rep.Size != int64(len(all)) {
		t.Errorf("audit after the kill: %v; %+v (%d entries)", err, rep, len(all))
	}
	if okRestarted.Load() < 10 {
		t.Errorf("the restarted replica served only %d requests", okRestarted.Load())
	}
	t.Logf("%d acknowledged retrievals through 2 replicas in %d s (one killed and restarted), all in the ledger once; %d requests refused by the dead replica",
		len(acked), secs, refused.Load())
}

// A replica whose PostgreSQL goes away under load: every request answers
// within its timeout (the retrieval itself, saying it was not recorded),
// none panics the server, and recording resumes on its own when
// PostgreSQL is back.
func TestServeOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	bin := binary(t)
	proxy, pg := pgtest.NewProxy(t, pgtest.URL(t, "postgres_serveout"))
	pg += "&connect_timeout=1"
	ws := testws.New(t)
	ws.Write("a.md", "# A\n\nalpha\n")
	r := startReplica(t, bin, ws.Root, pg)
	defer r.stop()
	client := &http.Client{Timeout: 15 * time.Second}
	call := func() (recorded bool, took time.Duration, assumptions []string) {
		start := time.Now()
		resp, err := client.Post(r.api+"retrieve", "application/json", bytes.NewReader([]byte(`{"target":"a.md"}`)))
		if err != nil {
			t.Fatalf("the replica did not answer: %v", err)
		}
		defer resp.Body.Close()
		var res struct {
			RetrievalID string   `json:"retrieval_id"`
			Assumptions []string `json:"assumptions"`
			Retrieved   struct {
				Data string `json:"data"`
			} `json:"retrieved"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %v", resp.StatusCode, err)
		}
		if !bytes.Contains([]byte(res.Retrieved.Data), []byte("alpha")) {
			t.Fatalf("the retrieval failed: %+v", res)
		}
		return res.RetrievalID != "", time.Since(start), res.Assumptions
	}
	if ok, _, a := call(); !ok {
		t.Fatalf("not recorded before the outage: %v", a)
	}
	proxy.Down()
	for range 5 {
		ok, took, a := call()
		if ok {
			t.Fatal("recorded while PostgreSQL was away")
		}
		if took > 11*time.Second {
			t.Errorf("a request took %v during the outage (timeout 10 s)", took)
		}
		found := false
		for _, s := range a {
			found = found || bytes.Contains([]byte(s), []byte("not recorded"))
		}
		if !found {
			t.Errorf("the result does not say it was not recorded: %v", a)
		}
	}
	proxy.Up()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if ok, _, _ := call(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("recording did not resume within 20 s of PostgreSQL coming back")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r.cmd.ProcessState != nil {
		t.Fatal("the replica exited")
	}
}
