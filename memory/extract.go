package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/workspace"
)

// The extractor's operations (seed 004).
const (
	OpExtractOverview = "extract_overview"
	OpExtractDetails  = "extract_details"
)

// Depths and scopes.
const (
	DepthShallow  = "shallow"
	DepthMedium   = "medium"
	ScopeFull     = "full"
	ScopeSection  = "section"
	ScopeSpecific = "specific"
)

// DefaultLimit caps the source map of an overview.
const DefaultLimit = 20

// DefaultHops is how far the ontology search walks relations.
const DefaultHops = 3

// OperationOutput is the seed's envelope of every extractor call.
type OperationOutput struct {
	Success   bool      `json:"success" yaml:"success"`
	Operation string    `json:"operation" yaml:"operation"`
	Result    any       `json:"result" yaml:"result"`
	WritesTo  *string   `json:"writes_to" yaml:"writes_to"`
	Errors    []OpError `json:"errors" yaml:"errors"`
}

// OpError is one error (or degraded-mode notice) of an envelope.
type OpError struct {
	Code    retrieve.Code `json:"code" yaml:"code"`
	Message string        `json:"message" yaml:"message"`
	Hint    string        `json:"hint,omitempty" yaml:"hint,omitempty"`
}

// Envelope wraps an operation's result or error in OperationOutput.
// Notices (ONTOLOGY_UNAVAILABLE, per-file warnings) ride along with a
// successful result.
func Envelope(op string, result any, notices []OpError, err error) *OperationOutput {
	out := &OperationOutput{Operation: op, Errors: []OpError{}}
	if notices != nil {
		out.Errors = append(out.Errors, notices...)
	}
	if err != nil {
		e := retrieve.AsError(err)
		out.Errors = append(out.Errors, OpError{Code: e.Code, Message: e.Message, Hint: e.Hint})
		out.Result = nil
		return out
	}
	out.Success = true
	out.Result = result
	return out
}

// Request is an extractor call as an orchestrator sends it.
type Request struct {
	Operation string         `json:"operation" yaml:"operation"`
	Context   RequestContext `json:"context" yaml:"context"`
}

// RequestContext holds the inputs of both operations.
type RequestContext struct {
	Target        string `json:"target" yaml:"target"`
	Depth         string `json:"depth,omitempty" yaml:"depth,omitempty"`
	KnowledgeType string `json:"knowledge_type,omitempty" yaml:"knowledge_type,omitempty"`
	Scope         string `json:"scope,omitempty" yaml:"scope,omitempty"`
	FormatHints   string `json:"format_hints,omitempty" yaml:"format_hints,omitempty"`
	// Stale and AsOf are extract_overview's (OverviewInput).
	Stale string `json:"stale,omitempty" yaml:"stale,omitempty"`
	AsOf  string `json:"as_of,omitempty" yaml:"as_of,omitempty"`
}

// Execute runs an extractor request by operation name and returns the
// envelope; an unknown operation gives INVALID_OPERATION.
func (s *Service) Execute(ctx context.Context, req Request) *OperationOutput {
	switch req.Operation {
	case OpExtractOverview:
		out, notices, err := s.Overview(ctx, OverviewInput{Target: req.Context.Target, Depth: req.Context.Depth, KnowledgeType: req.Context.KnowledgeType,
			Stale: req.Context.Stale, AsOf: req.Context.AsOf})
		return Envelope(req.Operation, out, notices, err)
	case OpExtractDetails:
		out, notices, err := s.Details(ctx, DetailsInput{Target: req.Context.Target, Scope: req.Context.Scope, FormatHints: req.Context.FormatHints})
		return Envelope(req.Operation, out, notices, err)
	default:
		err := retrieve.Errorf(retrieve.CodeInvalidOperation, "Unknown operation '%s'. Valid operations: %s, %s", req.Operation, OpExtractOverview, OpExtractDetails)
		return Envelope(req.Operation, nil, nil, err)
	}
}

// OverviewInput is extract_overview's input.
type OverviewInput struct {
	Target        string `json:"target" yaml:"target"`
	Depth         string `json:"depth,omitempty" yaml:"depth,omitempty"`
	KnowledgeType string `json:"knowledge_type,omitempty" yaml:"knowledge_type,omitempty"`
	// Limit caps the source map (DefaultLimit when 0); Hops is the
	// ontology walk's depth (DefaultHops when 0).
	Limit int `json:"limit,omitempty" yaml:"limit,omitempty"`
	Hops  int `json:"hops,omitempty" yaml:"hops,omitempty"`
	// Stale says what to do with notes whose evidence changed: rank them
	// after fresh ones (rank, the default), include them as fresh ones,
	// exclude them, or keep only them.
	Stale string `json:"stale,omitempty" yaml:"stale,omitempty"`
	// AsOf answers as the store knew then (a date or an RFC 3339 time):
	// notes recorded later are left out, marks made later are ignored.
	AsOf string `json:"as_of,omitempty" yaml:"as_of,omitempty"`
}

// SourceRef is one entry of a source map.
type SourceRef struct {
	Path       string  `json:"path" yaml:"path"`
	Relevance  float64 `json:"relevance" yaml:"relevance"`
	MemoryTier string  `json:"memory_tier" yaml:"memory_tier"`
	Snippet    string  `json:"snippet" yaml:"snippet"`
	// ID and Title are the note's frontmatter; Via says what found it
	// ("text", "ontology" or both).
	ID    string   `json:"memory_entry_id,omitempty" yaml:"memory_entry_id,omitempty"`
	Title string   `json:"title,omitempty" yaml:"title,omitempty"`
	Via   []string `json:"via,omitempty" yaml:"via,omitempty"`
	// Status is "stale" for a note whose evidence changed (empty: fresh);
	// StaleSince is when a verify found it.
	Status     string `json:"status,omitempty" yaml:"status,omitempty"`
	StaleSince string `json:"stale_since,omitempty" yaml:"stale_since,omitempty"`
}

// OverviewOutput is extract_overview's result.
type OverviewOutput struct {
	OverviewContent string      `json:"overview_content" yaml:"overview_content"`
	SourceMap       []SourceRef `json:"source_map" yaml:"source_map"`
	// Assumptions say what the answer took for granted: stale notes ranked
	// down or left out, the time it answers as of.
	Assumptions []string `json:"assumptions,omitempty" yaml:"assumptions,omitempty"`
}

func validate(field, val string, allowed ...string) error {
	for _, a := range allowed {
		if val == a {
			return nil
		}
	}
	return retrieve.Errorf(retrieve.CodeInputValidation, "%s must be one of: %s (got '%s')", field, strings.Join(allowed, ", "), val)
}

// Overview is extract_overview: a full-text search of the notes (and, at
// depth medium, of the ontology). It never writes to the memory folder.
func (s *Service) Overview(ctx context.Context, in OverviewInput) (*OverviewOutput, []OpError, error) {
	target := strings.TrimSpace(in.Target)
	if target == "" {
		return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "context.target is required: a non-empty search query").
			WithHint("pass what to look for, e.g. retrieve memory overview \"flask templates\"")
	}
	depth := in.Depth
	if depth == "" {
		depth = DepthMedium
	}
	if err := validate("context.depth", depth, DepthShallow, DepthMedium); err != nil {
		return nil, nil, err
	}
	if in.KnowledgeType != "" {
		if err := validate("context.knowledge_type", in.KnowledgeType, Tiers...); err != nil {
			return nil, nil, err
		}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	tv, err := s.timeView(in.Stale, in.AsOf)
	if err != nil {
		return nil, nil, err
	}
	var notices []OpError
	if fi, err := s.fs.Stat(s.rel); err != nil || !fi.IsDir() {
		return &OverviewOutput{OverviewContent: fmt.Sprintf("No entries found for '%s' (the memory folder %s does not exist)", target, s.rel), SourceMap: []SourceRef{}}, notices, nil
	}
	hits, err := s.textSearchAt(ctx, IndexQuery{Dir: s.rel, Tier: in.KnowledgeType, Limit: tv.fetch(limit), AsOf: tv.asOfNs()}, target)
	if err != nil {
		return nil, nil, err
	}
	byPath := map[string]*SourceRef{}
	var refs []*SourceRef
	var top float64
	for _, h := range hits {
		top = math.Max(top, h.Score)
	}
	for _, h := range hits {
		rel := 1.0
		if top > 0 {
			rel = h.Score / top
		}
		r := &SourceRef{Path: s.workspacePath(h.Path), Relevance: round3(rel), MemoryTier: h.Tier, Snippet: oneLine(h.Snippet), ID: h.ID, Title: h.Title, Via: []string{"text"}}
		byPath[r.Path] = r
		refs = append(refs, r)
		if h.Warning != "" {
			notices = append(notices, OpError{Code: retrieve.CodeParseFailed, Message: fmt.Sprintf("%s: %s (searched by its body)", r.Path, h.Warning)})
		}
	}
	var entities []EntityMatch
	if depth == DepthMedium {
		hops := in.Hops
		if hops <= 0 {
			hops = DefaultHops
		}
		onto, oerr := loadOntology(s.fs, s.name(OntologyDir))
		switch {
		case oerr != nil:
			notices = append(notices, OpError{Code: retrieve.CodeSearchError, Message: "the ontology search failed: " + oerr.Error() + "; text results only"})
		case onto == nil || len(onto.Entities) == 0:
			notices = append(notices, OpError{Code: retrieve.CodeOntologyUnavail, Message: fmt.Sprintf("%s/.ontology is missing or empty: text search results only (degraded mode)", s.rel)})
		default:
			for _, w := range onto.Warnings {
				notices = append(notices, OpError{Code: retrieve.CodeParseFailed, Message: "ontology " + w + " (skipped)"})
			}
			entities = onto.Search(target, hops)
			refs = s.ontologyRefs(entities, in.KnowledgeType, byPath, refs)
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if refs[i].Relevance != refs[j].Relevance {
			return refs[i].Relevance > refs[j].Relevance
		}
		return refs[i].Path < refs[j].Path
	})
	refs, assumptions, err := s.applyTimeView(ctx, tv, refs)
	if err != nil {
		return nil, nil, err
	}
	if len(refs) > limit {
		refs = refs[:limit]
	}
	if !tv.asOf.IsZero() {
		said, err := s.textsAt(ctx, tv.asOf, refs)
		if err != nil {
			return nil, nil, err
		}
		if said != "" {
			assumptions = append(assumptions, said)
		}
	}
	out := &OverviewOutput{SourceMap: make([]SourceRef, 0, len(refs)), Assumptions: assumptions}
	for _, r := range refs {
		out.SourceMap = append(out.SourceMap, *r)
	}
	out.OverviewContent = compose(target, out.SourceMap, entities)
	return out, notices, nil
}

// ontologyRefs adds the note files of the entities the ontology matched
// to refs: a file the text search found already gets the better of the two
// relevances and "ontology" in its Via.
func (s *Service) ontologyRefs(entities []EntityMatch, knowledgeType string, byPath map[string]*SourceRef, refs []*SourceRef) []*SourceRef {
	for _, m := range entities {
		for _, f := range m.Entity.SourceFiles {
			rel, ok := s.sourceFile(f)
			if !ok {
				continue
			}
			tier, _, _ := strings.Cut(rel, "/")
			if knowledgeType != "" && tier != knowledgeType {
				continue
			}
			wp := s.workspacePath(rel)
			if r, ok := byPath[wp]; ok {
				if m.Score > r.Relevance {
					r.Relevance = round3(m.Score)
				}
				if !contains(r.Via, "ontology") {
					r.Via = append(r.Via, "ontology")
				}
				continue
			}
			snippet := m.Entity.Label
			if m.Entity.Description != "" {
				snippet += ": " + m.Entity.Description
			}
			r := &SourceRef{Path: wp, Relevance: round3(m.Score), MemoryTier: tier, Snippet: oneLine(snippet), Title: m.Entity.Label, Via: []string{"ontology"}}
			byPath[wp] = r
			refs = append(refs, r)
		}
	}
	return refs
}

// sourceFile maps an ontology source_files entry to a note path relative to
// the memory folder, when that note exists.
func (s *Service) sourceFile(f string) (string, bool) {
	rel, err := s.notePath(f)
	if err != nil {
		return "", false
	}
	tier, _, _ := strings.Cut(rel, "/")
	if !ValidTier(tier) {
		return "", false
	}
	if fi, err := s.fs.Stat(s.name(rel)); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func compose(target string, refs []SourceRef, entities []EntityMatch) string {
	if len(refs) == 0 && len(entities) == 0 {
		return fmt.Sprintf("No entries found for '%s'", target)
	}
	var b strings.Builder
	counts := map[string]int{}
	for _, r := range refs {
		counts[r.MemoryTier]++
	}
	var parts []string
	for _, t := range Tiers {
		if counts[t] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", t, counts[t]))
		}
	}
	entries := "entries"
	if len(refs) == 1 {
		entries = "entry"
	}
	fmt.Fprintf(&b, "Found %d %s for '%s'", len(refs), entries, target)
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString(":\n")
	for _, r := range refs {
		title := r.Title
		if r.ID != "" {
			title = "[" + r.ID + "] " + title
		}
		fmt.Fprintf(&b, "- %s — %s (relevance %.2f)\n", title, r.Path, r.Relevance)
	}
	if len(entities) > 0 {
		n := min(len(entities), 10)
		fmt.Fprintf(&b, "Ontology: %d matching entities", len(entities))
		labels := make([]string, 0, n)
		for _, e := range entities[:n] {
			labels = append(labels, fmt.Sprintf("%s (%.2f)", e.Entity.Label, e.Score))
		}
		fmt.Fprintf(&b, ": %s\n", strings.Join(labels, ", "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// textSearch refreshes the index and runs the query (SearchIndex:
// all words exactly, else all words as prefixes, else any term).
func (s *Service) textSearch(ctx context.Context, target, tier string, limit int) ([]IndexHit, error) {
	return s.textSearchAt(ctx, IndexQuery{Dir: s.rel, Tier: tier, Limit: limit}, target)
}

// textSearchAt is textSearch with the index query's time and marks.
func (s *Service) textSearchAt(ctx context.Context, base IndexQuery, target string) ([]IndexHit, error) {
	if s.index == nil {
		return s.scanSearch(ctx, base, target)
	}
	if len(IndexSearches(base, target)) == 0 {
		return nil, nil
	}
	if _, err := s.Refresh(ctx, nil); err != nil {
		return nil, searchErr(err)
	}
	hits, err := SearchIndex(ctx, s.index, base, target)
	if err != nil {
		return nil, searchErr(err)
	}
	return hits, nil
}

func searchErr(err error) error {
	var e *retrieve.Error
	if errors.As(err, &e) && e.Code == retrieve.CodeSearchError {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return retrieve.Errorf(retrieve.CodeSearchError, "the memory index failed").
		WithHint("run retrieve memory reindex; check .retrieve/retrieve.db").WithErr(err)
}

// scanSearch is the search without an index: it reads every note,
// analyzes it as the index would, and counts the occurrences of the query's
// phrases (title ×10, tags ×5, body ×1), trying the same queries as
// SearchIndex.
func (s *Service) scanSearch(ctx context.Context, base IndexQuery, target string) ([]IndexHit, error) {
	queries := IndexSearches(base, target)
	if len(queries) == 0 {
		return nil, nil
	}
	tiers := Tiers
	if base.Tier != "" {
		tiers = []string{base.Tier}
	}
	var notes []IndexNote
	for _, t := range tiers {
		files, err := s.scanTier(t)
		if err != nil {
			return nil, searchErr(err)
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			n, err := s.readNote(f, time.Time{})
			if err != nil {
				continue
			}
			n.Analyze()
			notes = append(notes, n)
		}
	}
	limit := base.Limit
	if limit <= 0 {
		limit = 20
	}
	for _, q := range queries {
		var hits []IndexHit
		for _, n := range notes {
			var score float64
			for _, p := range q.Phrases {
				c := float64(10*countPhrase(n.TitleTerms, p) + 5*countPhrase(n.TagTerms, p) + countPhrase(n.BodyTerms, p))
				if c == 0 && !q.Any {
					score = 0
					break
				}
				score += c
			}
			if score == 0 {
				continue
			}
			hits = append(hits, IndexHit{Path: n.Path, Tier: n.Tier, ID: n.ID, Title: n.Title, Tags: n.Tags, Score: score,
				Snippet: intl.Snippet(n.Body, q.Matches, SnippetTokens), Warning: n.Warning})
		}
		if len(hits) == 0 {
			continue
		}
		sort.SliceStable(hits, func(i, j int) bool {
			if hits[i].Score != hits[j].Score {
				return hits[i].Score > hits[j].Score
			}
			return hits[i].Path < hits[j].Path
		})
		return hits[:min(len(hits), limit)], nil
	}
	return nil, nil
}

// countPhrase counts the places a phrase's terms follow each other in
// terms (space-separated index terms), the last as a prefix when asked.
func countPhrase(terms string, p IndexPhrase) int {
	ts := strings.Fields(terms)
	n := 0
	for i := 0; i+len(p.Terms) <= len(ts); i++ {
		ok := true
		for j, t := range p.Terms {
			if ts[i+j] != t && !(p.Prefix && j == len(p.Terms)-1 && strings.HasPrefix(ts[i+j], t)) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// DetailsInput is extract_details's input.
type DetailsInput struct {
	Target      string `json:"target" yaml:"target"`
	Scope       string `json:"scope,omitempty" yaml:"scope,omitempty"`
	FormatHints string `json:"format_hints,omitempty" yaml:"format_hints,omitempty"`
}

// DetailsMetadata is the metadata of extract_details.
type DetailsMetadata struct {
	FileSize     int64    `json:"file_size" yaml:"file_size"`
	LastModified string   `json:"last_modified" yaml:"last_modified"`
	MemoryTier   string   `json:"memory_tier" yaml:"memory_tier"`
	Title        string   `json:"title" yaml:"title"`
	Tags         []string `json:"tags" yaml:"tags"`
	ID           string   `json:"memory_entry_id" yaml:"memory_entry_id"`
	Path         string   `json:"path" yaml:"path"`
	Created      string   `json:"created" yaml:"created"`
	Updated      string   `json:"updated" yaml:"updated"`
}

// DetailsOutput is extract_details's result.
type DetailsOutput struct {
	ExtractedContent string          `json:"extracted_content" yaml:"extracted_content"`
	Metadata         DetailsMetadata `json:"metadata" yaml:"metadata"`
	// Evidence are the citations the note was written from (its retrieve:
	// frontmatter block), Session the session it was written in; State is
	// fresh, stale (with the diff), outdated or forgotten.
	Evidence  []Evidence `json:"evidence" yaml:"evidence"`
	Session   string     `json:"session,omitempty" yaml:"session,omitempty"`
	ValidFrom string     `json:"valid_from,omitempty" yaml:"valid_from,omitempty"`
	ValidTo   string     `json:"valid_to,omitempty" yaml:"valid_to,omitempty"`
	State     *NoteState `json:"state,omitempty" yaml:"state,omitempty"`
}

var looksLikePath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(\.md$|^memory:|/)`) })

// Details is extract_details: a note's content, whole or a part. TARGET is
// a note's memory_entry_id, its path (workspace-relative, memory-relative
// or memory:…) or a query, whose best match is used.
func (s *Service) Details(ctx context.Context, in DetailsInput) (*DetailsOutput, []OpError, error) {
	target := strings.TrimSpace(in.Target)
	if target == "" {
		return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "context.target is required: a note path or a query")
	}
	scope := in.Scope
	if scope == "" {
		scope = ScopeFull
	}
	if err := validate("context.scope", scope, ScopeFull, ScopeSection, ScopeSpecific); err != nil {
		return nil, nil, err
	}
	var notices []OpError
	var rel string
	if TierOfID(target) != "" {
		// A memory_entry_id, as extract_overview's source_map gives it.
		r, err := s.resolve(target)
		if err != nil {
			return nil, nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: no entry %s", target).
				WithHint("list the notes with retrieve memory list")
		}
		rel = r
	} else if looksLikePath().MatchString(target) {
		r, err := s.notePath(target)
		if err != nil {
			return nil, nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", target).
				WithHint("name a note as <tier>/<file>.md inside %s", s.rel)
		}
		rel = r
	} else {
		hits, err := s.textSearch(ctx, target, "", 1)
		if err != nil {
			return nil, nil, err
		}
		if len(hits) == 0 {
			return nil, nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: no entry matches '%s'", target).
				WithHint("search first with retrieve memory overview")
		}
		rel = hits[0].Path
	}
	f, err := s.fs.Stat(s.name(rel))
	if workspace.Refused(err) {
		return nil, nil, retrieve.AsError(err)
	}
	if err != nil || !f.Mode().IsRegular() {
		return nil, nil, retrieve.Errorf(retrieve.CodePathNotFound, "File not found: %s", s.workspacePath(rel)).
			WithHint("list the notes with retrieve memory list")
	}
	data, err := s.fs.ReadFile(s.name(rel))
	if workspace.Refused(err) {
		return nil, nil, retrieve.AsError(err)
	}
	if err != nil {
		return nil, nil, retrieve.Errorf(retrieve.CodePermissionDenied, "cannot read %s", s.workspacePath(rel)).WithErr(err)
	}
	p := ParseNote(data)
	fillDefaults(&p.Note, rel)
	if w := p.Warnings(); w != "" {
		notices = append(notices, OpError{Code: retrieve.CodeParseFailed, Message: s.workspacePath(rel) + ": " + w})
	}
	var content string
	switch scope {
	case ScopeFull:
		content = string(data)
	case ScopeSection:
		heading := strings.TrimSpace(in.FormatHints)
		if heading == "" {
			return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "scope 'section' needs format_hints naming the heading").
				WithHint("e.g. retrieve memory details --scope section --format-hints \"Usage\"")
		}
		sec, ok, headings := Section(p.Note.Body, heading)
		if !ok {
			// A heading that is not there is not found, as retrieve
			// --section says (docs/CONTRACT.md), not a malformed input.
			e := retrieve.Errorf(retrieve.CodeSectionNotFound, "Section '%s' not found in %s", heading, s.workspacePath(rel)).
				WithHint("headings: %s", strings.Join(headings, "; "))
			e.Alternatives = headings
			return nil, nil, e
		}
		content = sec
	case ScopeSpecific:
		if strings.TrimSpace(in.FormatHints) == "" {
			content = string(data)
		} else {
			c, err := Specific(p.Note.Body, in.FormatHints)
			if err != nil {
				return nil, nil, err
			}
			content = c
		}
	}
	if strings.TrimSpace(content) == "" {
		return nil, nil, retrieve.Errorf(retrieve.CodeInputValidation, "nothing in %s matches scope '%s' with format_hints '%s'", s.workspacePath(rel), scope, in.FormatHints).
			WithHint("try --scope full")
	}
	tier, _, _ := strings.Cut(rel, "/")
	n := p.Note
	out := &DetailsOutput{
		ExtractedContent: content,
		Metadata: DetailsMetadata{
			FileSize: f.Size(), LastModified: f.ModTime().UTC().Format(time.RFC3339), MemoryTier: tier,
			Title: n.Title, Tags: n.Tags, ID: n.ID, Path: s.workspacePath(rel), Created: n.Created, Updated: n.Updated,
		},
		Evidence: []Evidence{},
	}
	if prov, err := n.Provenance(); err == nil {
		if prov.Evidence != nil {
			out.Evidence = prov.Evidence
		}
		out.Session, out.ValidFrom, out.ValidTo = prov.Session, prov.ValidFrom, prov.ValidTo
	}
	if st, err := s.noteStates(ctx, []string{rel}, time.Time{}); err == nil {
		if cur, ok := st[rel]; ok && cur.Mark.NoteID == n.ID {
			out.State = &cur
			if cur.Retired() {
				notices = append(notices, OpError{Code: retrieve.CodeNotFound, Message: fmt.Sprintf("%s is %s (since %s): it is kept for audit and left out of default retrieval", s.workspacePath(rel), cur.Status, cur.Since)})
			}
		}
	}
	return out, notices, nil
}
