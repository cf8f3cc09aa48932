package ops_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
	"github.com/retrieve-dev/retrieve/store"
)

// callResult calls op on transport and returns the outcome and its result.
func callResult(t *testing.T, env *opstest.Env, op, transport, in string) (ops.Outcome, *retrieve.Result) {
	t.Helper()
	o, _ := env.Table.Lookup(op)
	oc := env.Table.Call(context.Background(), o, json.RawMessage(in), transport)
	if oc.Err != nil {
		t.Fatalf("%s %s: %s: %s", op, in, oc.Err.Code, oc.Err.Message)
	}
	b, _ := json.Marshal(oc.Value)
	var r retrieve.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return oc, &r
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// TestBudgetIsNotAFilter: applied_filters holds what the caller asked and
// nothing else; the message budget is reported in extraction.budget, with
// the same numbers on MCP and HTTP (seed 002 example 1 has null filters).
func TestBudgetIsNotAFilter(t *testing.T) {
	env := opstest.New(t)
	var reports []retrieve.BudgetReport
	for _, transport := range []string{"mcp", "http"} {
		_, r := callResult(t, env, "retrieve", transport, `{"target": "README.md"}`)
		if r.Extraction.AppliedFilters != nil {
			t.Errorf("%s: applied_filters %v, want null for a request without constraints", transport, r.Extraction.AppliedFilters)
		}
		b := r.Extraction.Budget
		if b == nil || b.MessageBytes != ops.DefaultBudget || b.Cut || b.DataBytes <= 0 {
			t.Fatalf("%s: extraction.budget %+v, want the default budget, nothing cut", transport, b)
		}
		reports = append(reports, *b)
		_, r = callResult(t, env, "retrieve", transport, `{"target": "README.md", "max_bytes": 10}`)
		if got := fmt.Sprint(r.Extraction.AppliedFilters); got != "map[max_bytes:10]" || !r.Extraction.Truncated || r.Extraction.Budget.Cut {
			t.Errorf("%s: max_bytes 10: filters %s truncated %v budget %+v; want the user's max_bytes only, cut by it, not by the budget", transport, got, r.Extraction.Truncated, r.Extraction.Budget)
		}
	}
	if reports[0] != reports[1] {
		t.Errorf("extraction.budget differs by transport: mcp %+v, http %+v", reports[0], reports[1])
	}
}

// TestBudgetFitsOnce: data that escapes badly in JSON (quotes, backslashes,
// control characters) is fitted to the budget in one retrieval — one
// ledger entry, where the old fit retried up to four times — and the cut
// part cites exactly what it returns: its hash is that of its data, its
// reference re-retrieves the same bytes, and next continues where it
// stopped.
func TestBudgetFitsOnce(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "%04d \"quoted\" \\back\\slash\\ \x01\x02 <tag> & more\n", i)
	}
	for _, transport := range []string{"mcp", "http"} {
		env := opstest.New(t) // a ledger of its own, counted below
		env.WS.Write("escapes.txt", b.String())
		oc, r := callResult(t, env, "retrieve", transport, `{"target": "escapes.txt", "budget": 20000}`)
		if oc.Size > 20000 {
			t.Errorf("%s: message %d bytes, over its 20000-byte budget", transport, oc.Size)
		}
		data, _ := r.Retrieved.Data.(string)
		if !r.Extraction.Truncated || r.Extraction.Budget == nil || !r.Extraction.Budget.Cut || r.Extraction.Next == nil || r.Retrieved.Complete {
			t.Fatalf("%s: want a cut with a next part: extraction %+v", transport, r.Extraction)
		}
		if got := sha(data); got != *r.Citation.Hash {
			t.Errorf("%s: hash %s is not that of the data returned (%s)", transport, *r.Citation.Hash, got)
		}
		lines := strings.Count(data, "\n")
		if want := fmt.Sprintf("escapes.txt:1-%d", lines); r.Citation.Reference != want || *r.Extraction.Next != fmt.Sprintf("escapes.txt:%d-", lines+1) {
			t.Errorf("%s: reference %s next %s, want %s and the rest", transport, r.Citation.Reference, *r.Extraction.Next, want)
		}
		if r.Extraction.AppliedFilters != nil {
			t.Errorf("%s: applied_filters %v, want null", transport, r.Extraction.AppliedFilters)
		}
		entries, err := env.Deps.Store.Entries(context.Background(), store.Filter{Target: "escapes.txt", Op: "get"})
		if err != nil || len(entries) != 1 {
			t.Errorf("%s: %d ledger entries for one call (%v), want 1: the retrieval ran more than once", transport, len(entries), err)
		}
		// The reference is a target: the same bytes, the same hash.
		_, again := callResult(t, env, "retrieve", "http", fmt.Sprintf(`{"target": %q, "budget": 1000000}`, r.Citation.Reference))
		if *again.Citation.Hash != *r.Citation.Hash {
			t.Errorf("%s: re-retrieving %s gives hash %s, want %s", transport, r.Citation.Reference, *again.Citation.Hash, *r.Citation.Hash)
		}
		_, next := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": 20000}`, *r.Extraction.Next))
		if nd, _ := next.Retrieved.Data.(string); !strings.HasPrefix(nd, fmt.Sprintf("%04d ", lines)) {
			t.Errorf("%s: next part starts %.20q, want line %d", transport, nd, lines+1)
		}
		v, _ := env.Table.Lookup("verify_citation")
		voc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), transport)
		if vv, ok := voc.Value.(*retrieve.Verification); !ok || vv.Status != retrieve.Verified {
			t.Errorf("%s: verify of the cut part: %+v", transport, voc.Value)
		}
	}
}

// TestBudgetCutsALongLine: a single line longer than the budget is cut at
// a character boundary, says so, and verifies.
func TestBudgetCutsALongLine(t *testing.T) {
	env := opstest.New(t)
	env.WS.Write("min.js", strings.Repeat("var é=1;", 20000))
	oc, r := callResult(t, env, "retrieve", "mcp", `{"target": "min.js"}`)
	data, _ := r.Retrieved.Data.(string)
	if oc.Size > ops.DefaultBudget || !r.Extraction.Truncated || !r.Extraction.Budget.Cut || len(data) == 0 || !strings.HasPrefix(strings.Repeat("var é=1;", 20000), data) {
		t.Fatalf("size %d, extraction %+v, %d bytes of data: want a cut prefix within the budget", oc.Size, r.Extraction, len(data))
	}
	if sha(data) != *r.Citation.Hash {
		t.Errorf("hash %s is not that of the data", *r.Citation.Hash)
	}
	v, _ := env.Table.Lookup("verify_citation")
	voc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), "mcp")
	if vv, ok := voc.Value.(*retrieve.Verification); !ok || vv.Status != retrieve.Verified {
		t.Errorf("verify of a line cut by the budget: %+v", voc.Value)
	}
}

// FuzzBudgetFit: whatever the data (escapes, long lines, invalid UTF-8,
// CRLF) and the budget, a fitted result fits its message, and its hash is
// that of the data it returns.
func FuzzBudgetFit(f *testing.F) {
	f.Add("line\n", 4096)
	// Small seeds (the budget's least data share is 768 bytes), so that the
	// fuzzer minimizes quickly.
	f.Add(strings.Repeat("\"\\\x01é<>&\n", 150), 0)
	f.Add(strings.Repeat("x", 2000), 0)
	f.Add(strings.Repeat("a\r\nb\n", 300), 10)
	env := opstest.New(f)
	o, _ := env.Table.Lookup("retrieve")
	f.Fuzz(func(t *testing.T, content string, budget int) {
		budget = ops.MinBudget + abs(budget)%60000
		if err := os.WriteFile(filepath.Join(env.WS.Root, "fuzz.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, transport := range []string{"mcp", "http"} {
			in, _ := json.Marshal(map[string]any{"target": "fuzz.txt", "budget": budget, "no_record": true})
			oc := env.Table.Call(context.Background(), o, in, transport)
			if oc.Size > budget {
				t.Fatalf("%s: message %d bytes over the budget %d", transport, oc.Size, budget)
			}
			r, ok := oc.Value.(*retrieve.Result)
			if oc.Err != nil || !ok {
				continue // binary data, TOO_LARGE: refused, not oversized
			}
			if s, isText := r.Retrieved.Data.(string); isText && r.Retrieved.Format != "binary" && sha(s) != *r.Citation.Hash {
				t.Fatalf("%s: hash %s is not that of the %d bytes returned", transport, *r.Citation.Hash, len(s))
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// TestBudgetPagesALongLine: a single line longer than the budget (a
// minified script) is cut at a byte offset that its reference names
// (min.js#bytes=0-N), and next continues at the following byte; paging
// through next joins the parts into the whole line, each part's reference
// re-retrieves the same hash and each part verifies (issue 28, point 3).
func TestBudgetPagesALongLine(t *testing.T) {
	whole := strings.Repeat("var é=\"1\";", 6000)
	for _, transport := range []string{"mcp", "http"} {
		env := opstest.New(t)
		env.WS.Write("min.js", whole)
		v, _ := env.Table.Lookup("verify_citation")
		var joined strings.Builder
		target := "min.js"
		for part := 0; ; part++ {
			if part > 20 {
				t.Fatalf("%s: more than 20 parts: next never ends", transport)
			}
			_, r := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": 20000}`, target))
			data, _ := r.Retrieved.Data.(string)
			if want := fmt.Sprintf("min.js#bytes=%d-%d", joined.Len(), joined.Len()+len(data)-1); r.Citation.Reference != want {
				t.Errorf("%s part %d: reference %s, want %s", transport, part, r.Citation.Reference, want)
			}
			if sha(data) != *r.Citation.Hash {
				t.Errorf("%s part %d: hash %s is not that of the data", transport, part, *r.Citation.Hash)
			}
			_, again := callResult(t, env, "retrieve", transport, fmt.Sprintf(`{"target": %q, "budget": 20000}`, r.Citation.Reference))
			if *again.Citation.Hash != *r.Citation.Hash {
				t.Errorf("%s part %d: re-retrieving %s gives %s, want %s", transport, part, r.Citation.Reference, *again.Citation.Hash, *r.Citation.Hash)
			}
			voc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), transport)
			if vv, ok := voc.Value.(*retrieve.Verification); !ok || vv.Status != retrieve.Verified {
				t.Errorf("%s part %d: verify: %+v", transport, part, voc.Value)
			}
			joined.WriteString(data)
			if r.Extraction.Next == nil {
				if r.Extraction.Truncated {
					t.Errorf("%s part %d: truncated without a next part", transport, part)
				}
				break
			}
			if want := fmt.Sprintf("min.js#bytes=%d-", joined.Len()); *r.Extraction.Next != want || !r.Extraction.Truncated {
				t.Errorf("%s part %d: next %s truncated %v, want %s and true", transport, part, *r.Extraction.Next, r.Extraction.Truncated, want)
			}
			target = *r.Extraction.Next
		}
		if joined.String() != whole {
			t.Errorf("%s: the parts join to %d bytes, want the %d bytes of the file", transport, joined.Len(), len(whole))
		}
	}
}

// TestBudgetCutsADiff: a verification whose diff is larger than the
// message budget is cut at a line boundary to fit, with a note — not
// refused as TOO_LARGE — and keeps its status and hashes; over MCP, where
// the diff travels twice, and over HTTP alike.
func TestBudgetCutsADiff(t *testing.T) {
	// The cited data fits the default budget; the diff, the data twice,
	// does not.
	for transport, lines := range map[string]int{"mcp": 500, "http": 1000} {
		env := opstest.New(t)
		env.WS.Write("big.txt", strings.Repeat("a line of the file that changes\n", lines))
		_, r := callResult(t, env, "retrieve", transport, `{"target": "big.txt"}`)
		if r.Extraction.Truncated {
			t.Fatalf("%s: the cited data was cut: %+v", transport, r.Extraction)
		}
		env.WS.Write("big.txt", strings.Repeat("a line of the file that CHANGED\n", lines))
		v, _ := env.Table.Lookup("verify_citation")
		oc := env.Table.Call(context.Background(), v, json.RawMessage(fmt.Sprintf(`{"retrieval_id": %q}`, r.RetrievalID)), transport)
		if oc.Err != nil {
			t.Fatalf("%s: %s: %s", transport, oc.Err.Code, oc.Err.Message)
		}
		got := oc.Value.(*retrieve.Verification)
		if oc.Size > oc.Budget {
			t.Errorf("%s: message %d bytes, over its %d-byte budget", transport, oc.Size, oc.Budget)
		}
		note := strings.Join(got.Notes, "\n")
		if got.Status != retrieve.Changed || got.CitedHash != *r.Citation.Hash || !strings.Contains(got.Diff, "CHANGED") ||
			!strings.HasSuffix(got.Diff, "\n") || !strings.Contains(note, "The diff was cut to fit the message budget") {
			t.Errorf("%s: status %s, diff of %d bytes ending %q, notes %q: want changed, a diff cut at a line end, and a note", transport, got.Status, len(got.Diff), got.Diff[max(0, len(got.Diff)-20):], got.Notes)
		}
	}
}
