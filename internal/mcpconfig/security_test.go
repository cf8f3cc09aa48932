package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/retrieve-dev/retrieve/policy"
)

// TestSecurityHugeConfig: a client config file over MaxConfigBytes (a
// 200 MB ~/.claude.json cost 2.5 GB to merge into) is refused before it is
// read, and left as it was.
func TestSecurityHugeConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".claude.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(200 << 20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Apply(Edit{Path: p, Format: JSON, Key: []string{"mcpServers", "retrieve"}, Value: map[string]any{"command": "retrieve"}}, Options{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, policy.ErrTooLarge) {
		t.Errorf("Apply on a 200 MB config: %v, want ErrTooLarge", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d MiB, want < 8 MiB", grew>>20)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != 200<<20 {
		t.Errorf("the file changed: %v %v", fi, err)
	}
}
