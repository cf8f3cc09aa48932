package opstest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
)

// BareRead is the least a server that returns a line range of a file with
// its hashes can do, as ../shared/bench/baseline does it (net/http's
// handler, os.ReadFile, the first 20 lines cut, both hashed, JSON): the
// peer of the small-read benchmarks, run in the same process as ours so
// that their ratio holds under any load. No policy, no ledger, no
// contract.
func BareRead(root string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Target string `json:"target"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.Clean("/"+req.Target)))
		if err != nil {
			http.Error(w, err.Error(), 404)
			return
		}
		src := sha256.Sum256(b)
		lines := bytes.SplitAfter(b, []byte("\n"))
		if len(lines) > 20 {
			lines = lines[:20]
		}
		data := bytes.Join(lines, nil)
		h := sha256.Sum256(data)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": string(data), "hash": "sha256:" + hex.EncodeToString(h[:]), "source_hash": "sha256:" + hex.EncodeToString(src[:])})
	})
}

// SmallFiles writes n small text files f0.txt … f<n-1>.txt of 40 lines
// each to the workspace: the files of the small-read benchmarks.
func (e *Env) SmallFiles(n int) {
	for i := range n {
		var b bytes.Buffer
		for l := 1; l <= 40; l++ {
			fmt.Fprintf(&b, "line %d of file %d, a small text file for the HTTP bench.\n", l, i)
		}
		e.WS.Write(fmt.Sprintf("f%d.txt", i), b.String())
	}
}
