package ops

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
)

// MaxManyTargets bounds a retrieve_many call.
const MaxManyTargets = 50

// ManyInput is the input of retrieve_many: several targets read in one
// call, each with the same optional format.
type ManyInput struct {
	Targets  []string `json:"targets"`
	Format   string   `json:"format,omitempty"`
	NoRecord bool     `json:"no_record,omitempty"`
	Budget   *int     `json:"budget,omitempty"`
}

// ManyOutput is one result per target, in the order asked.
type ManyOutput struct {
	Results []*retrieve.Result `json:"results"`
}

func retrieveManyOp(d Deps) *Op {
	return &Op{
		Name:        "retrieve_many",
		Title:       "Retrieve several targets",
		OpenWorld:   true,
		Description: `Read up to 50 targets in one call: one result each, in order, with its own citation or error. They share the message budget; a cut one has extraction.next.`,
		ReadOnly:    true,
		Method:      "POST",
		Input: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["targets"],
  "properties": {
    "targets": {"type": "array", "minItems": 1, "maxItems": 50, "items": {"type": "string", "minLength": 1}, "description": "Targets as retrieve takes them."},
    "format": {"type": "string", "enum": ["text", "json", "yaml", "toml", "csv", "binary", "html"], "description": "Format of all; detected if left out."},
    "no_record": {"type": "boolean", "description": "Leave them out of the ledger."},
    "budget": {"type": "integer", "minimum": 4096, "description": "Message budget in bytes."}
  },
  "examples": [{"targets": ["README.md", "go.mod", "docs/servers.md:1-40"]}]}`),
		Output: json.RawMessage(`{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": ` + string(ResultSchema()) + `}}}`),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in ManyInput
			if err := Decode(raw, &in); err != nil {
				return nil, err
			}
			return RetrieveMany(ctx, d.Engine, in)
		},
		Text: func(out any) string {
			results := out.(*ManyOutput).Results
			parts := make([]string, len(results))
			for i, r := range results {
				parts[i] = manyTextPart(i, len(results), r)
			}
			return strings.Join(parts, "\n")
		},
	}
}

// RetrieveMany reads the targets concurrently, sharing the call's budget
// between them by water-filling: every result whose data fits an equal
// share of what is left is returned whole, and the rest split what
// remains equally, so that no result is cut more than it must be. Each
// retrieval extracts once, then waits until all have told the size of
// their data, then is cut (or not) to its share and cited: nothing is read
// twice.
func RetrieveMany(ctx context.Context, eng *engine.Engine, in ManyInput) (*ManyOutput, error) {
	budget, err := CallBudget(ctx, in.Budget)
	if err != nil {
		return nil, err
	}
	if len(in.Targets) == 0 || len(in.Targets) > MaxManyTargets {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%d targets: give 1 to %d", len(in.Targets), MaxManyTargets).
			WithHint("split the list into calls of at most %d targets", MaxManyTargets)
	}
	if err := (&retrieve.Request{Target: "-", Format: in.Format}).Check(); err != nil {
		return nil, err
	}
	n := len(in.Targets)
	base := dataFit(ctx, budget, 0)
	var pool *waterFill
	if base != nil {
		pool = newWaterFill(n, int64(budget-manyFixed(ctx)))
	}
	out := &ManyOutput{Results: make([]*retrieve.Result, n)}
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, target := range in.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			var once sync.Once
			release := func() { once.Do(func() { <-sem }) }
			defer release()
			var fit *engine.Fit
			weigh := func(r *retrieve.Result, endsLine bool) int64 { return manyWeight(ctx, i, n, in.NoRecord, r, endsLine) }
			if base != nil {
				f := *base
				// What this one may keep while it reads: no more than its
				// share could be given what the others told so far.
				f.DataBytes = pool.capFor(i)
				f.Envelope = weigh
				f.Share = func(cost engine.ShareCost, cut func() int64, trim func(int64)) int64 {
					release() // others must read while this one waits
					return pool.share(ctx, i, cost, cut, trim)
				}
				fit = &f
			}
			req := retrieve.Request{Target: target, Format: in.Format, NoRecord: in.NoRecord}
			res, err := retrieveFit(ctx, eng, req, fit)
			if res == nil {
				res = retrieve.FailureResult(req, time.Now(), retrieve.AsError(err))
			}
			if pool != nil {
				// A result that never asked for a share (a failure before
				// extraction) weighs what it weighs, data and all.
				pool.done(i, func() int64 { return weigh(res, true) })
			}
			out.Results[i] = res
		}()
	}
	wg.Wait()
	return out, nil
}

// manyFixed is what retrieve_many's message weighs besides its results:
// the transport's envelope, {"results":[]} less one comma (manyWeight
// counts one a result), and over MCP the text block's quotes less one
// escaped newline between parts (counted one a result too).
func manyFixed(ctx context.Context) int {
	n := envelopeBytes + len(`{"results":[]}`) - len(",")
	if stateOf(ctx).transport == "mcp" {
		n += len(`""`) - len(`\n`)
	}
	return n
}

// manyWeight is what result i of n adds to retrieve_many's message as the
// transport encodes it, data included: its JSON and a comma, and over MCP
// its part of the text block (Text below) and the newline after it. A
// result without a retrieval id yet is weighed with one unless none will
// be recorded, and with the note of a capped budget that retrieveFit adds.
// endsLine says whether its data (not in r when weighed before the cut)
// ends a line: if not, the text block adds one.
func manyWeight(ctx context.Context, i, n int, noRecord bool, r *retrieve.Result, endsLine bool) int64 {
	s := stateOf(ctx)
	w := *r
	if w.RetrievalID == "" && !noRecord && w.Error == nil {
		w.RetrievalID = retrieve.NewID()
	}
	if note := s.note; note != "" && w.Error == nil && !slices.Contains(w.Assumptions, note) {
		w.Assumptions = append(slices.Clip(w.Assumptions), note)
	}
	enc, err := Encode(&w, s.transport != "http")
	if err != nil {
		return 0
	}
	size := int64(enc.Len() - len("\n") + len(","))
	if s.transport == "mcp" {
		size += int64(JSONStringLen(manyTextPart(i, n, &w), true) - len(`""`) + len(`\n`))
		if !endsLine {
			size += int64(len(`\n`))
		}
	}
	return size
}

// manyTextPart is result i of n in retrieve_many's text block, without the
// newline that separates it from the next.
func manyTextPart(i, n int, r *retrieve.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "=== %d/%d %s\n", i+1, n, r.Retrieved.Target)
	if r.Error != nil {
		fmt.Fprintf(&b, "ERROR %s: %s\nhint: %s\n", r.Error.Code, r.Error.Message, r.Error.Hint)
		return b.String()
	}
	head, data := renderParts(r)
	b.WriteString(head)
	b.WriteString(data)
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// waterFill shares total among n retrievals once all have said what their
// results cost (data and the rest). Until then, a waiting retrieval is
// told a bound its share cannot exceed (its share were the others not yet
// arrived to cost nothing) and cuts its data to it: the retrievals waiting
// hold together at most about total, not each its whole data.
type waterFill struct {
	mu      sync.Mutex
	total   int64
	costs   []engine.ShareCost
	cuts    []func() int64 // weigh costs[i].Cut when needed
	arrived []bool
	left    int
	shares  []int64
	ready   chan struct{}
	changed chan struct{} // closed, and replaced, at each arrival
}

func newWaterFill(n int, total int64) *waterFill {
	return &waterFill{total: total, costs: make([]engine.ShareCost, n), cuts: make([]func() int64, n), arrived: make([]bool, n), left: n,
		ready: make(chan struct{}), changed: make(chan struct{})}
}

// share records what retrieval i's result costs and waits for its data's
// share, calling trim with a lower bound of it each time the bound halves.
func (w *waterFill) share(ctx context.Context, i int, cost engine.ShareCost, cut func() int64, trim func(int64)) int64 {
	w.arrive(i, cost, cut)
	held := cost.Data
	for {
		w.mu.Lock()
		bound, changed := w.bound(i, false), w.changed
		w.mu.Unlock()
		if bound < held/2 {
			trim(bound)
			held = bound
		}
		select {
		case <-w.ready:
			return w.shares[i]
		case <-changed:
		case <-ctx.Done():
			return cost.Data // the call is over: the retrieval fails anyway
		}
	}
}

// capFor is the most retrieval i, not arrived yet, could be given.
func (w *waterFill) capFor(i int) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bound(i, true)
}

// bound is the share of i were the retrievals not arrived to cost nothing
// (and i, when unknown, everything): its share can only be lower (w.mu
// held).
func (w *waterFill) bound(i int, unknown bool) int64 {
	if w.shares != nil {
		return w.shares[i]
	}
	costs := make([]engine.ShareCost, len(w.costs))
	for j, c := range w.costs {
		if w.arrived[j] {
			// Not weighed cut yet: as whole, a bound all the same.
			costs[j] = c
			if w.cuts[j] != nil {
				costs[j].Cut = c.Whole
			}
		}
	}
	if unknown {
		costs[i] = engine.ShareCost{Data: w.total}
	}
	return FillShares(w.total, costs)[i]
}

// done marks retrieval i as finished; one that never asked for a share
// (it failed before extraction) costs its weight, whole.
func (w *waterFill) done(i int, weigh func() int64) {
	w.mu.Lock()
	arrived := w.arrived[i]
	w.mu.Unlock()
	if !arrived {
		weight := weigh()
		w.arrive(i, engine.ShareCost{Whole: weight, Cut: weight}, nil)
	}
}

func (w *waterFill) arrive(i int, cost engine.ShareCost, cut func() int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.arrived[i] {
		return
	}
	w.arrived[i], w.costs[i], w.cuts[i] = true, cost, cut
	if w.left--; w.left == 0 {
		var all int64
		for _, c := range w.costs {
			all += c.Whole + c.Data
		}
		if all > w.total {
			// Not all fit whole: weigh the cut results.
			for j, cut := range w.cuts {
				if cut != nil {
					w.costs[j].Cut = cut()
				}
			}
		}
		w.shares = FillShares(w.total, w.costs)
		close(w.ready)
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// WaterFill splits total among costs so that every cost at or below the
// level is given whole and the others the level, the level being as high
// as total allows: the smallest cut of the largest parts.
func WaterFill(total int64, costs []int64) []int64 {
	parts := make([]engine.ShareCost, len(costs))
	for i, c := range costs {
		parts[i].Data = c
	}
	return FillShares(total, parts)
}

// FillShares is WaterFill over results that weigh something besides their
// data: Whole around whole data, Cut around cut data. It returns the data
// share of each: its data when the result fits whole at the level, the
// level otherwise, the level being as high as total allows once every
// result's envelope is paid (never below 0).
func FillShares(total int64, parts []engine.ShareCost) []int64 {
	shares := make([]int64, len(parts))
	order := make([]int, len(parts))
	var envelopes int64
	for i := range order {
		order[i] = i
		envelopes += parts[i].Cut
	}
	// What a result costs whole over what it costs cut with no data: the
	// order in which results are given whole.
	over := func(p engine.ShareCost) int64 { return p.Whole + p.Data - p.Cut }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(over(parts[a]), over(parts[b])) })
	left := total - envelopes // what the data may take, every result cut
	for k, i := range order {
		p := parts[i]
		level := max(left/int64(len(order)-k), 0)
		if over(p) <= level {
			shares[i] = p.Data
			left -= p.Whole + p.Data - p.Cut
			continue
		}
		for _, j := range order[k:] {
			shares[j] = min(level, max(parts[j].Data-1, 0))
		}
		break
	}
	return shares
}
