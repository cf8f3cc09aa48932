package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/retrieve-dev/retrieve/ops"
	"github.com/retrieve-dev/retrieve/ops/opstest"
)

// TestWaterFill: parts at or below the level are whole, the others share
// what is left equally.
func TestWaterFill(t *testing.T) {
	for _, c := range []struct {
		total       int64
		costs, want []int64
	}{
		{100, []int64{10, 50, 80}, []int64{10, 45, 45}},
		{100, []int64{10, 20, 30}, []int64{10, 20, 30}},
		{90, []int64{40, 40, 40}, []int64{30, 30, 30}},
		{100, []int64{0, 500, 5}, []int64{0, 95, 5}},
	} {
		if got := ops.WaterFill(c.total, c.costs); !slices.Equal(got, c.want) {
			t.Errorf("WaterFill(%d, %v) = %v, want %v", c.total, c.costs, got, c.want)
		}
	}
}

// manyResults calls retrieve_many on transport and decodes its results.
func manyResults(t *testing.T, env *opstest.Env, transport string, targets []string, budget int) (ops.Outcome, []map[string]any) {
	t.Helper()
	op, _ := env.Table.Lookup("retrieve_many")
	in, _ := json.Marshal(map[string]any{"targets": targets, "budget": budget})
	oc := env.Table.Call(context.Background(), op, in, transport)
	if oc.Err != nil {
		t.Fatalf("%s: %s", oc.Err.Code, oc.Err.Message)
	}
	b, _ := json.Marshal(oc.Value)
	var out struct {
		Results []map[string]any `json:"results"`
	}
	_ = json.Unmarshal(b, &out)
	return oc, out.Results
}

// TestManyFillsTheBudget: small files come back whole while a large one
// takes what they leave (the old equal shares cut every file), ten small
// files that fit come back whole, and the message stays in its budget.
func TestManyFillsTheBudget(t *testing.T) {
	env := opstest.New(t)
	var targets []string
	for i := range 5 {
		name := fmt.Sprintf("small%d.md", i)
		env.WS.Write(name, strings.Repeat(fmt.Sprintf("small file %d\n", i), 30))
		targets = append(targets, name)
	}
	env.WS.Write("big.log", strings.Repeat("a line of a large log file, longer than the others\n", 2000))
	targets = append(targets, "big.log")
	for _, transport := range []string{"mcp", "http"} {
		oc, res := manyResults(t, env, transport, targets, 30000)
		if oc.Size > 30000 || len(res) != 6 {
			t.Fatalf("%s: %d results in %d bytes, want 6 within 30000", transport, len(res), oc.Size)
		}
		for i, r := range res[:5] {
			if x := r["extraction"].(map[string]any); x["truncated"] != false || r["retrieved"].(map[string]any)["complete"] != true {
				t.Errorf("%s: small file %d was cut: %v", transport, i, x)
			}
		}
		x := res[5]["extraction"].(map[string]any)
		data := res[5]["retrieved"].(map[string]any)["data"].(string)
		// The big file gets what the small ones leave: well over an equal
		// sixth of the budget.
		if x["truncated"] != true || x["next"] == nil || len(data) < 30000/6 {
			t.Errorf("%s: big file: %d bytes, extraction %v; want a cut well over an equal share, with next", transport, len(data), x)
		}
	}
	// A target that fails takes no share and holds no one up.
	oc, res := manyResults(t, env, "mcp", []string{"small0.md", "missing.md", "big.log"}, 30000)
	if res[1]["error"] == nil || res[0]["extraction"].(map[string]any)["truncated"] != false {
		t.Errorf("with a failing target: %v", res)
	}
	var ten []string
	for i := range 10 {
		name := fmt.Sprintf("ten%d.md", i)
		env.WS.Write(name, strings.Repeat(fmt.Sprintf("line %d of a small file read with nine others.\n", i), 75)) // ~3.6 KB
		ten = append(ten, name)
	}
	oc, res = manyResults(t, env, "mcp", ten, 100000)
	for i, r := range res {
		if x := r["extraction"].(map[string]any); x["truncated"] != false {
			t.Errorf("ten files under a budget that holds them: file %d cut (%v), message %d bytes", i, x, oc.Size)
		}
	}
}

// TestManyCutsNoMoreThanItsShare: retrievals waiting for the others are
// cut early to a bound of their share (to hold the call's memory to about
// its budget); the final cut is still the longest run of whole lines
// within the share, as if nothing had been cut before.
func TestManyCutsNoMoreThanItsShare(t *testing.T) {
	env := opstest.New(t)
	var targets []string
	for i := range 20 {
		name := fmt.Sprintf("f%02d.log", i)
		env.WS.Write(name, strings.Repeat(fmt.Sprintf("line of file %d, <escaped> & \"quoted\"\n", i), 100+300*(i%7)))
		targets = append(targets, name)
	}
	for _, transport := range []string{"mcp", "http"} {
		copies := map[string]int{"mcp": 2, "http": 1}[transport]
		oc, res := manyResults(t, env, transport, targets, 100000)
		if oc.Size > 100000 {
			t.Fatalf("%s: message of %d bytes", transport, oc.Size)
		}
		cut := 0
		for i, r := range res {
			x := r["extraction"].(map[string]any)
			share := int(x["budget"].(map[string]any)["data_bytes"].(float64))
			data := r["retrieved"].(map[string]any)["data"].(string)
			cost := func(s string) int { return copies * (ops.JSONStringLen(s, transport != "http") - 2) }
			if cost(data) > share {
				t.Errorf("%s: file %d: data costs %d, over its share %d", transport, i, cost(data), share)
			}
			if x["truncated"] != true {
				continue
			}
			cut++
			line := fmt.Sprintf("line of file %d, <escaped> & \"quoted\"\n", i)
			if cost(data+line) <= share {
				t.Errorf("%s: file %d cut to %d bytes though one more line fits its share %d", transport, i, len(data), share)
			}
		}
		if cut == 0 {
			t.Errorf("%s: no file was cut: the test needs a budget the files do not fit", transport)
		}
	}
}

// FuzzManyFits (issue #28 point 4): for any file sizes and budget, on
// either transport, retrieve_many's message is within the budget, it is
// never TOO_LARGE, and every file is whole whenever the whole message
// fits the budget; a cut one names its next part.
func FuzzManyFits(f *testing.F) {
	lines := []string{
		"a plain line of text in a file.\n",
		"ünïcödé «日本語» \"quoted\" <tag> & \\ \t\x01 escaped\n",
	}
	f.Add([]byte{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, uint16(40000), false, false)
	f.Add([]byte{1, 2, 4, 8, 16, 32, 64, 128, 255}, uint16(20000), true, false)
	f.Add([]byte{200, 3, 3, 3, 3}, uint16(50000), false, true)
	f.Add([]byte{0, 1, 0}, uint16(10000), true, true)
	f.Add([]byte{60, 61, 62, 59}, uint16(30000), false, true)
	f.Fuzz(func(t *testing.T, sizes []byte, budget uint16, unicode, overMCP bool) {
		if len(sizes) == 0 || len(sizes) > 20 || budget < 10000 || len(sizes)*2500 > int(budget) {
			// Each result's citation and fields weigh about 1.2 KB over
			// MCP: with more, the request cannot fit (TOO_LARGE).
			t.Skip("1 to 20 files, a 5-digit budget, 2.5 KB a file at least")
		}
		env := opstest.New(t)
		transport := "http"
		if overMCP {
			transport = "mcp"
		}
		line := lines[0]
		if unicode {
			line = lines[1]
		}
		var targets []string
		for i, s := range sizes {
			name := fmt.Sprintf("fz%02d-%d-%t.txt", i, s, unicode)
			// Sizes from 0 to about 26 KB, in steps of about 100 bytes.
			env.WS.Write(name, strings.Repeat(line, int(s)*100/len(line)))
			targets = append(targets, name)
		}
		// The whole message, measured under a budget of as many digits
		// that holds it (message_bytes is in every result).
		// (timestamps may differ by 10 bytes a result from call to call).
		whole, res := manyResults(t, env, transport, targets, 99999)
		fits := whole.Size+10*len(targets) <= int(budget) && !slices.ContainsFunc(res, func(r map[string]any) bool {
			return r["extraction"].(map[string]any)["truncated"] != false
		})
		oc, res := manyResults(t, env, transport, targets, int(budget))
		if oc.Err != nil {
			t.Fatalf("%s: %s: %s", transport, oc.Err.Code, oc.Err.Message)
		}
		if oc.Size > int(budget) {
			t.Fatalf("%s: message of %d bytes, over the budget of %d", transport, oc.Size, budget)
		}
		for i, r := range res {
			x := r["extraction"].(map[string]any)
			switch {
			case x["truncated"] == false:
			case fits:
				t.Errorf("%s: file %d cut though the whole message (%d bytes) fits %d", transport, i, whole.Size, budget)
			case x["next"] == nil:
				t.Errorf("%s: file %d cut without next: %v", transport, i, x)
			}
		}
	})
}

// TestManyFitIsExact: under a budget the whole message fits, every file
// comes back whole; under one it does not, the message still fits with at
// least one file cut (named by next). Random sizes, both transports, plain
// and escape-heavy text. A result's timestamp is RFC 3339 with trailing
// zeros dropped: from one call to the next it may be up to 10 bytes
// shorter or longer, the only slack allowed.
func TestManyFitIsExact(t *testing.T) {
	env := opstest.New(t)
	rng := rand.New(rand.NewPCG(28, 4))
	lines := []string{"a plain line of text in a file.\n", "ünïcödé «日本語» \"quoted\" <tag> & \\ \t\x01 escaped\n"}
	checked := 0
	for round := range 12 {
		var targets []string
		for i := range 1 + rng.IntN(12) {
			line := lines[rng.IntN(2)]
			name := fmt.Sprintf("exact%02d-%02d.txt", round, i)
			env.WS.Write(name, strings.Repeat(line, rng.IntN(4000/len(line)*2+1)))
			targets = append(targets, name)
		}
		jitter := 10 * len(targets)
		for _, transport := range []string{"mcp", "http"} {
			whole, res := manyResults(t, env, transport, targets, 99999)
			if whole.Size < 10000+jitter || whole.Size > 99999-jitter || slices.ContainsFunc(res, func(r map[string]any) bool {
				return r["extraction"].(map[string]any)["truncated"] != false
			}) {
				continue // not whole under the largest budget of as many digits
			}
			checked++
			oc, res := manyResults(t, env, transport, targets, whole.Size+jitter)
			for i, r := range res {
				if x := r["extraction"].(map[string]any); x["truncated"] != false {
					t.Errorf("round %d %s: under a budget that holds the whole message (%d + %d), file %d was cut: %v", round, transport, whole.Size, jitter, i, x)
				}
			}
			under := whole.Size - jitter - 1
			oc, res = manyResults(t, env, transport, targets, under)
			cut := 0
			for _, r := range res {
				if x := r["extraction"].(map[string]any); x["truncated"] == true && x["next"] != nil {
					cut++
				}
			}
			if oc.Err != nil || oc.Size > under || cut == 0 {
				t.Errorf("round %d %s: under the whole message (%d): %d bytes, %d cut", round, transport, under, oc.Size, cut)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d rounds had a whole message of five digits: the test checks too little", checked)
	}
}
