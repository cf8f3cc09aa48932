package postgres_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/retrieve-dev/retrieve/internal/pgtest"
	"github.com/retrieve-dev/retrieve/store"
	"github.com/retrieve-dev/retrieve/store/postgres"
	"github.com/retrieve-dev/retrieve/store/storetest"
)

// TestWriterProcess is the body of a writer process started by
// TestKilledReplica: it appends entries and stores snapshots until killed
// (or for RETRIEVE_PG_WRITER_N entries), printing "ack <id>" for each
// append PostgreSQL acknowledged.
func TestWriterProcess(t *testing.T) {
	u := os.Getenv("RETRIEVE_PG_WRITER_URL")
	if u == "" {
		t.Skip("run by TestKilledReplica")
	}
	ctx := context.Background()
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := 1 << 30
	fmt.Sscan(os.Getenv("RETRIEVE_PG_WRITER_N"), &n)
	out := bufio.NewWriter(os.Stdout)
	for i := 0; i < n; i++ {
		if i%10 == 0 { // a snapshot of a few MiB now and then, so that kills land mid-snapshot too
			b := bytes.Repeat([]byte(fmt.Sprintf("pid %d snapshot %d\n", os.Getpid(), i)), 150000)
			if err := s.PutSnapshot(ctx, hashOf(b), bytes.NewReader(b)); err != nil {
				t.Fatal(err)
			}
		}
		e := newEntry(fmt.Sprintf("k%d.md", i))
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(out, "ack %s\n", e.ID)
		out.Flush()
	}
}

// Two writer processes on one store; one is killed with SIGKILL under
// load. The other keeps writing; the killed one restarts and writes; every
// acknowledged entry is present, and no snapshot is left half written.
func TestKilledReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	u := pgtest.URL(t, "postgres_kill")
	ctx := context.Background()
	if s, err := postgres.OpenStore(ctx, u); err != nil { // migrate first
		t.Fatal(err)
	} else {
		s.Close()
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	start := func(n int) (*exec.Cmd, *sync.WaitGroup, *atomic.Int64) {
		var mine atomic.Int64
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RETRIEVE_PG_WRITER_URL="+u, fmt.Sprintf("RETRIEVE_PG_WRITER_N=%d", n))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if id, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
					mine.Add(1)
				}
			}
		}()
		return cmd, &wg, &mine
	}
	survivor, swg, sn := start(1 << 30)
	victim, vwg, vn := start(1 << 30)
	for vn.Load() < 30 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	vwg.Wait()
	_ = victim.Wait()
	atKill := sn.Load()
	restarted, rwg, _ := start(50)
	rwg.Wait()
	if err := restarted.Wait(); err != nil {
		t.Fatalf("the restarted replica failed: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for sn.Load() < atKill+100 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if survivor.ProcessState != nil {
		t.Fatal("the surviving replica stopped")
	}
	_ = survivor.Process.Signal(syscall.SIGKILL)
	swg.Wait()
	_ = survivor.Wait()
	if sn.Load() < atKill+100 {
		t.Fatalf("the surviving replica acknowledged only %d writes after the kill", sn.Load()-atKill)
	}
	s, err := postgres.OpenStore(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.Entries(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, e := range all {
		have[e.ID] = true
	}
	for id := range acked {
		if !have[id] {
			t.Errorf("acknowledged entry %s is missing", id)
		}
	}
	var broken int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM snapshots WHERE size = 0 OR NOT EXISTS (SELECT 1 FROM snapshot_chunks c WHERE c.hash = snapshots.hash)`).Scan(&broken); err != nil || broken != 0 {
		t.Fatalf("%d half-written snapshots (%v)", broken, err)
	}
	// The log has one leaf per entry, positions without a gap, and audits
	// consistent: a kill mid-append left no half of one.
	if rep := storetest.Audit(t, s, nil, nil); !rep.Consistent || rep.Size != int64(len(all)) {
		t.Fatalf("audit after the kill: consistent %v, %d leaves for %d entries, %+v", rep.Consistent, rep.Size, len(all), rep.Findings)
	}
	t.Logf("%d acknowledged writes, all present; %d in the ledger", len(acked), len(all))
}
