package ops

import (
	"context"
	"encoding/json"
	"fmt"
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
		Description: `Read up to 50 targets in one call (a.md, b.md:1-20, other references): one result each, in order, with its own citation or error. They share the message budget: a cut one has extraction.next for retrieve.`,
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
// between them.
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
	share := max((budget-envelopeBytes)/len(in.Targets), 1024)
	out := &ManyOutput{Results: make([]*retrieve.Result, len(in.Targets))}
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, target := range in.Targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			req := retrieve.Request{Target: target, Format: in.Format, NoRecord: in.NoRecord}
			res, err := retrieveFit(ctx, eng, req, share)
			if res == nil {
				res = retrieve.FailureResult(req, time.Now(), retrieve.AsError(err))
			}
			out.Results[i] = res
		}()
	}
	wg.Wait()
	return out, nil
}
