package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// CiteStyles are the forms a citation is written in (`retrieve cite
// --style` and the cite_retrieval tool), each one `retrieve check` and
// check_citations verify.
var CiteStyles = []string{"markdown", "footnote", "csl-json"}

// CiteInput is the input of cite_retrieval.
type CiteInput struct {
	RetrievalID string `json:"retrieval_id"`
	Style       string `json:"style,omitempty"`
	Label       string `json:"label,omitempty"`
}

// CiteOutput is a citation written for a document.
type CiteOutput struct {
	// Citation is the text to paste: a Markdown link, a footnote
	// definition or a CSL-JSON array.
	Citation    string `json:"citation" yaml:"citation"`
	Style       string `json:"style" yaml:"style"`
	RetrievalID string `json:"retrieval_id" yaml:"retrieval_id"`
	Reference   string `json:"reference" yaml:"reference"`
	Hash        string `json:"hash" yaml:"hash"`
}

// Cite writes the citation of a recorded retrieval in style (markdown
// when empty). The retrieval must have succeeded and cite data.
func Cite(ctx context.Context, d Deps, in CiteInput) (*CiteOutput, error) {
	if in.Style == "" {
		in.Style = "markdown"
	}
	if !slices.Contains(CiteStyles, in.Style) {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "unknown style %q", in.Style).
			WithHint("use %s", strings.Join(CiteStyles, ", "))
	}
	if in.RetrievalID == "" {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "retrieval_id is required").
			WithHint("pass a retrieval_id from a result or from retrieve log")
	}
	if d.Store == nil {
		return nil, storeUnavailable()
	}
	e, err := d.Store.Entry(ctx, in.RetrievalID)
	if err != nil {
		return nil, err
	}
	var res retrieve.Result
	if err := json.Unmarshal(e.Result, &res); err != nil {
		return nil, fmt.Errorf("decode entry %s: %w", e.ID, err)
	}
	if res.Error != nil || res.Citation.Reference == "" || res.Citation.Hash == nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "retrieval %s has no citation (it failed, or cites no data)", e.ID).
			WithHint("cite a successful retrieval; retrieve log --status ok lists them")
	}
	text, err := FormatCitation(in.Style, in.Label, e.ID, &res)
	if err != nil {
		return nil, err
	}
	return &CiteOutput{Citation: text, Style: in.Style, RetrievalID: e.ID, Reference: res.Citation.Reference, Hash: *res.Citation.Hash}, nil
}

// FormatCitation writes one citation of res, recorded as id, in style:
//
//	markdown   [reference](reference "sha256:…")
//	footnote   [^label]: reference sha256:…
//	csl-json   a CSL-JSON array of one item whose URL is retrieval:<id>
func FormatCitation(style, label, id string, res *retrieve.Result) (string, error) {
	ref, hash := res.Citation.Reference, *res.Citation.Hash
	switch style {
	case "footnote":
		if label == "" {
			compact := strings.ReplaceAll(id, "-", "")
			label = compact[:min(8, len(compact))]
		}
		return fmt.Sprintf("[^%s]: %s %s\n", label, ref, hash), nil
	case "csl-json":
		item := map[string]any{
			"id":       id,
			"type":     "dataset",
			"title":    res.Retrieved.Source,
			"URL":      "retrieval:" + id,
			"note":     ref + " " + hash,
			"accessed": map[string]any{"raw": res.Retrieved.Timestamp},
			"source":   "retrieve",
		}
		if res.Citation.Version != nil {
			item["version"] = *res.Citation.Version
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode([]any{item}); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	return fmt.Sprintf("[%s](%s %q)\n", ref, ref, hash), nil
}

func citeOp(d Deps) *Op {
	op := Typed(Spec{
		Name: "cite_retrieval", Title: "Write a citation", ReadOnly: true, Method: "GET",
		Description: "The citation of a recorded retrieval, to paste in a document: a Markdown link, a footnote or CSL-JSON.",
		Examples:    []any{map[string]any{"retrieval_id": "0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21", "style": "footnote"}},
		Describe:    map[string]string{"retrieval_id": "A retrieval_id.", "style": "markdown (default), footnote or csl-json.", "label": "Footnote label."},
		Enums:       map[string][]string{"style": CiteStyles},
		Text:        func(out any) string { return out.(*CiteOutput).Citation },
	}, func(ctx context.Context, in CiteInput) (*CiteOutput, error) { return Cite(ctx, d, in) })
	return op
}
