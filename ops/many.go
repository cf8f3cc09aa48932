package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
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
		Name:  "retrieve_many",
		Title: "Retrieve several targets",
		Description: `Read several known targets in one call (up to 50: files, files with lines such as a.md:1-20, or other references); results has one result per target, in order, each with its own citation, or its own error.
The message budget is shared: a target cut to fit carries extraction.next — read the rest with retrieve.`,
		ReadOnly: true,
		Method:   "POST",
		Input: json.RawMessage(`{"type": "object", "additionalProperties": false, "required": ["targets"],
  "properties": {
    "targets": {"type": "array", "minItems": 1, "maxItems": 50, "items": {"type": "string", "minLength": 1}, "description": "Targets as retrieve takes them (README.md, docs/a.md:1-40, git:HEAD:go.mod)."},
    "format": {"type": "string", "enum": ["text", "json", "yaml", "toml", "csv", "binary"], "description": "Format of every target; detected when left out."},
    "no_record": {"type": "boolean", "description": "Do not record these retrievals in the ledger."},
    "budget": {"type": "integer", "minimum": 4096, "description": "Message size budget in bytes for the whole call (default: the server's)."}
  },
  "examples": [{"targets": ["README.md", "go.mod", "docs/servers.md:1-40"]}]}`),
		Output: json.RawMessage(`{"type": "object", "required": ["results"], "properties": {"results": {"type": "array", "items": ` + string(ResultSchema) + `}}}`),
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
func RetrieveMany(ctx context.Context, eng *retrieve.Engine, in ManyInput) (*ManyOutput, error) {
	budget, err := CallBudget(ctx, in.Budget)
	if err != nil {
		return nil, err
	}
	if len(in.Targets) == 0 || len(in.Targets) > MaxManyTargets {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "%d targets: give 1 to %d", len(in.Targets), MaxManyTargets).
			WithHint("split the list into calls of at most %d targets", MaxManyTargets)
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
