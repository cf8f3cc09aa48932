package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"go.yaml.in/yaml/v3"
)

// ProvenanceKey is the frontmatter key that holds what retrieve knows of a
// note's origin: its evidence, the session it was written in and its valid
// time. The X-IPE keeper and extractor read memory_entry_id, title,
// memory_type, tags, metadata, created and updated only (seed-origins §3),
// so they ignore it; this package keeps it as it is on every update.
const ProvenanceKey = "retrieve"

// Provenance is the note's `retrieve:` frontmatter block.
type Provenance struct {
	// Evidence are the citations the note was written from.
	Evidence []Evidence `json:"evidence" yaml:"evidence,omitempty"`
	// Session is the recorded agent session the note was written in.
	Session string `json:"session,omitempty" yaml:"session,omitempty"`
	// ValidFrom and ValidTo bound when what the note says held (RFC 3339;
	// ValidTo empty: still holds). The writer gives them, else ValidFrom is
	// the time its newest evidence was read.
	ValidFrom string `json:"valid_from,omitempty" yaml:"valid_from,omitempty"`
	ValidTo   string `json:"valid_to,omitempty" yaml:"valid_to,omitempty"`
}

// Evidence is one citation behind a note: what re-retrieves it
// (Reference), the ledger entry that recorded it (RetrievalID) and the
// hash it had when the note was written.
type Evidence struct {
	Reference   string `json:"reference" yaml:"reference"`
	RetrievalID string `json:"retrieval_id,omitempty" yaml:"retrieval_id,omitempty"`
	Source      string `json:"source,omitempty" yaml:"source,omitempty"`
	Version     string `json:"version,omitempty" yaml:"version,omitempty"`
	Hash        string `json:"hash,omitempty" yaml:"hash,omitempty"`
	RetrievedAt string `json:"retrieved_at,omitempty" yaml:"retrieved_at,omitempty"`
	// Via is "session" for a read of the note's session taken as evidence
	// (the writer named none), "" for evidence the writer named.
	Via string `json:"via,omitempty" yaml:"via,omitempty"`
}

// Provenance decodes the note's `retrieve:` block (zero when absent).
func (n *Note) Provenance() (Provenance, error) {
	var p Provenance
	raw, ok := n.Extra[ProvenanceKey]
	if !ok || raw == nil {
		return p, nil
	}
	b, err := yaml.Marshal(raw)
	if err != nil {
		return p, fmt.Errorf("the %s: block cannot be read: %w", ProvenanceKey, err)
	}
	if err := yaml.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("the %s: block is not evidence, session and valid time: %s", ProvenanceKey, firstLine(err.Error()))
	}
	return p, nil
}

// SetProvenance writes p into the note's `retrieve:` block (removing the
// block when p is empty).
func (n *Note) SetProvenance(p Provenance) {
	if len(p.Evidence) == 0 && p.Session == "" && p.ValidFrom == "" && p.ValidTo == "" {
		delete(n.Extra, ProvenanceKey)
		return
	}
	b, _ := yaml.Marshal(p)
	var v any
	_ = yaml.Unmarshal(b, &v)
	if n.Extra == nil {
		n.Extra = map[string]any{}
	}
	n.Extra[ProvenanceKey] = v
}

// EvidenceResolver resolves and re-checks a note's evidence. The memory
// package knows no sources: ops.NoteEvidence implements it with the engine
// (re-retrieval, the ledger, snapshots and the hash cache) and the session
// journal.
type EvidenceResolver interface {
	// ResolveEvidence turns what a writer named — citation references of
	// any source kind, or retrieval ids of the ledger — into evidence. In
	// a session, a reference the session read resolves to that read (what
	// the agent saw); with no item, the session's reads are the evidence.
	// Anything that does not resolve is an error naming it, with its code.
	ResolveEvidence(ctx context.Context, items []string, session string) ([]Evidence, error)
	// VerifyEvidence re-checks each evidence against its source now:
	// verified, changed (with the diff) or unavailable.
	VerifyEvidence(ctx context.Context, ev Evidence) *retrieve.Verification
}

// resolveProvenance builds the provenance of a write: nothing when the
// writer named no evidence, session or valid time; else the resolved
// evidence (an error when any does not resolve, before anything is
// written).
func (s *Service) resolveProvenance(ctx context.Context, items []string, session, validFrom, validTo string) (*Provenance, error) {
	items = cleanTags(items)
	session = strings.TrimSpace(session)
	if len(items) == 0 && session == "" && validFrom == "" && validTo == "" {
		return nil, nil
	}
	p := &Provenance{Session: session}
	var err error
	if p.ValidFrom, err = validTime("valid_from", validFrom); err != nil {
		return nil, err
	}
	if p.ValidTo, err = validTime("valid_to", validTo); err != nil {
		return nil, err
	}
	if p.ValidFrom != "" && p.ValidTo != "" && p.ValidTo < p.ValidFrom {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "valid_to %s is before valid_from %s", p.ValidTo, p.ValidFrom)
	}
	if len(items) > 0 || session != "" {
		if s.evidence == nil {
			return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "evidence cannot be resolved here: no engine or ledger is open").
				WithHint("run the command in a workspace whose store opens (retrieve store status)")
		}
		if p.Evidence, err = s.evidence.ResolveEvidence(ctx, items, session); err != nil {
			return nil, err
		}
	}
	if p.ValidFrom == "" {
		for _, e := range p.Evidence {
			if e.RetrievedAt > p.ValidFrom {
				p.ValidFrom = e.RetrievedAt
			}
		}
	}
	return p, nil
}

// validTime parses an RFC 3339 time or a date (YYYY-MM-DD, midnight UTC)
// into RFC 3339 UTC ("" stays "").
func validTime(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	t, err := ParseTime(v)
	if err != nil {
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "%s %q is not a date or an RFC 3339 time", field, v).
			WithHint("e.g. 2026-03-01 or 2026-03-01T12:00:00Z")
	}
	return t.UTC().Format(time.RFC3339), nil
}

// ParseTime reads an RFC 3339 time or a date (YYYY-MM-DD, midnight UTC).
func ParseTime(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	return time.Parse("2006-01-02", v)
}

// mergeProvenance applies an update's provenance to the note's: evidence
// given replaces the evidence, a session given replaces the session, valid
// times given replace theirs ("-" clears valid_to).
func mergeProvenance(n *Note, p Provenance, in UpdateInput) error {
	cur, err := n.Provenance()
	if err != nil {
		return err
	}
	if len(in.Evidence) > 0 || (in.Session != "" && len(p.Evidence) > 0) {
		cur.Evidence = p.Evidence
	}
	if in.Session != "" {
		cur.Session = p.Session
	}
	if in.ValidFrom != "" || (cur.ValidFrom == "" && p.ValidFrom != "") {
		cur.ValidFrom = p.ValidFrom
	}
	if in.ValidTo != "" {
		cur.ValidTo = p.ValidTo
	}
	n.SetProvenance(cur)
	return nil
}
