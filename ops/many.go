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
    "no_record": {"type": "boolean", "description": "Do not record these retrievals in the ledger."},
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
			var b strings.Builder
			for i, r := range out.(*ManyOutput).Results {
				if i > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "=== %d/%d %s\n", i+1, len(out.(*ManyOutput).Results), r.Retrieved.Target)
				if r.Error != nil {
					fmt.Fprintf(&b, "ERROR %s: %s\nhint: %s\n", r.Error.Code, r.Error.Message, r.Error.Hint)
					continue
				}
				b.WriteString(RenderResult(r))
				if !strings.HasSuffix(b.String(), "\n") {
					b.WriteString("\n")
				}
			}
			return b.String()
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
	base := dataFit(ctx, budget, manyReserve*n)
	var pool *waterFill
	if base != nil {
		pool = newWaterFill(n, base.DataBytes)
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
			if base != nil {
				f := *base
				// What this one may keep while it reads: no more than its
				// share could be given what the others told so far.
				f.DataBytes = pool.capFor(i)
				f.Share = func(cost int64, trim func(int64)) int64 {
					release() // others must read while this one waits
					return pool.share(ctx, i, cost, trim)
				}
				fit = &f
			}
			req := retrieve.Request{Target: target, Format: in.Format, NoRecord: in.NoRecord}
			res, err := retrieveFit(ctx, eng, req, fit)
			if pool != nil {
				pool.done(i) // a failure before extraction takes no share
			}
			if res == nil {
				res = retrieve.FailureResult(req, time.Now(), retrieve.AsError(err))
			}
			out.Results[i] = res
		}()
	}
	wg.Wait()
	return out, nil
}

// manyReserve is what one result of retrieve_many weighs around its data
// in the message (its JSON fields, its header line in the text block).
const manyReserve = 2048

// waterFill shares total among n retrievals once all have said what their
// data costs. Until then, a waiting retrieval is told a bound its share
// cannot exceed (its share were the others not yet arrived to cost
// nothing) and cuts its data to it: the retrievals waiting hold together
// at most about total, not each its whole data.
type waterFill struct {
	mu      sync.Mutex
	total   int64
	costs   []int64
	arrived []bool
	left    int
	shares  []int64
	ready   chan struct{}
	changed chan struct{} // closed, and replaced, at each arrival
}

func newWaterFill(n int, total int64) *waterFill {
	return &waterFill{total: total, costs: make([]int64, n), arrived: make([]bool, n), left: n,
		ready: make(chan struct{}), changed: make(chan struct{})}
}

// share records what retrieval i's data costs and waits for its share,
// calling trim with a lower bound of it each time the bound halves.
func (w *waterFill) share(ctx context.Context, i int, cost int64, trim func(int64)) int64 {
	w.arrive(i, cost)
	held := cost
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
			return cost // the call is over: the retrieval fails anyway
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
	costs := make([]int64, len(w.costs))
	for j, c := range w.costs {
		if w.arrived[j] {
			costs[j] = c
		}
	}
	if unknown {
		costs[i] = w.total
	}
	return WaterFill(w.total, costs)[i]
}

// done marks retrieval i as finished; one that never asked for a share
// (it failed before extraction) costs nothing.
func (w *waterFill) done(i int) { w.arrive(i, 0) }

func (w *waterFill) arrive(i int, cost int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.arrived[i] {
		return
	}
	w.arrived[i], w.costs[i] = true, cost
	if w.left--; w.left == 0 {
		w.shares = WaterFill(w.total, w.costs)
		close(w.ready)
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// WaterFill splits total among costs so that every cost at or below the
// level is given whole and the others the level, the level being as high
// as total allows: the smallest cut of the largest parts.
func WaterFill(total int64, costs []int64) []int64 {
	shares := make([]int64, len(costs))
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(costs[a], costs[b]) })
	left := total
	for k, i := range order {
		level := left / int64(len(order)-k)
		if costs[i] <= level {
			shares[i] = costs[i]
			left -= costs[i]
			continue
		}
		for _, j := range order[k:] {
			shares[j] = level
		}
		break
	}
	return shares
}
