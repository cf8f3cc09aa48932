package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/check"
	"github.com/retrieve-dev/retrieve/engine"
)

// Service lists, shows and verifies sessions, adds retrieve's own
// retrievals to them, and runs the end-of-turn check. It is what the CLI,
// the MCP server, the HTTP API and a review UI use.
type Service struct {
	Journal *Journal
	// Engine re-retrieves sources; with a store, sources become ledger
	// entries and verifications are recorded.
	Engine *engine.Engine
	// Checker checks the citations of a final answer.
	Checker *check.Checker
	Now     func() time.Time
	// Workers bounds the sources verified at once (default 8).
	Workers int
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Source is one thing the agent saw, with its ledger entry once recorded.
type Source struct {
	Record `yaml:",inline"`
}

// Session is a session's sources, failed tool calls and end-of-turn checks.
type Session struct {
	Summary  `yaml:",inline"`
	Sources  []Source `json:"sources" yaml:"sources"`
	Failures []Record `json:"failures" yaml:"failures"`
	Stops    []Record `json:"stops" yaml:"stops"`
	// Checks are the verifications and citation checks run in the session
	// (retrieve verify, retrieve check with --session or
	// RETRIEVE_SESSION_ID), oldest first.
	Checks []Record `json:"checks" yaml:"checks"`
	// Skipped counts journal lines that could not be read (a hook killed
	// while writing).
	Skipped int `json:"skipped" yaml:"skipped"`
}

// List summarizes the recorded sessions, most recent first.
func (s *Service) List(ctx context.Context) ([]Summary, error) { return s.Journal.List() }

// Show returns a session, after recording its new sources in the ledger.
func (s *Service) Show(ctx context.Context, id string) (*Session, error) {
	if _, err := s.Ingest(ctx, id); err != nil {
		return nil, err
	}
	return s.load(id)
}

func (s *Service) load(id string) (*Session, error) {
	recs, skipped, err := s.Journal.Read(id)
	if err != nil {
		return nil, err
	}
	out := &Session{Summary: summarize(recs), Sources: []Source{}, Failures: []Record{}, Stops: []Record{}, Checks: []Record{}, Skipped: skipped}
	byID := map[string]int{}
	for _, r := range recs {
		switch r.Type {
		case TypeSource:
			byID[r.ID] = len(out.Sources)
			out.Sources = append(out.Sources, Source{Record: r})
		case TypeIngested:
			if i, ok := byID[r.Of]; ok {
				// The kept bytes are in the store now.
				out.Sources[i].RetrievalID, out.Sources[i].Blob = r.RetrievalID, ""
			}
		case TypeFailure:
			out.Failures = append(out.Failures, r)
		case TypeStop:
			out.Stops = append(out.Stops, r)
		case TypeCheck:
			out.Checks = append(out.Checks, r)
		}
	}
	return out, nil
}

// Ingest records in the ledger, as entries of op "observe", the sources of
// a session that are not there yet, from the bytes the hook kept; it
// returns how many it recorded. Without a store it records nothing.
func (s *Service) Ingest(ctx context.Context, id string) (int, error) {
	if s.Engine == nil || s.Engine.Store() == nil {
		return 0, nil
	}
	sess, err := s.load(id)
	if err != nil {
		return 0, err
	}
	var done []Record
	pending := map[string]int{} // blob → sources still without an entry
	for _, src := range sess.Sources {
		if src.Blob != "" && src.RetrievalID == "" {
			pending[src.Blob]++
		}
	}
	for _, src := range sess.Sources {
		if src.Blob == "" || src.RetrievalID != "" {
			continue
		}
		res, err := s.observe(ctx, src.Record, true)
		if err != nil || res.RetrievalID == "" {
			continue // the blob stays for the next try
		}
		rec := Record{Type: TypeIngested, ID: retrieve.NewID(), Session: id, Time: s.now().UTC(), Of: src.ID, RetrievalID: res.RetrievalID}
		if h := deref(res.Citation.Hash); h != src.Hash && src.Kind == "file" {
			rec.Notes = append(rec.Notes, fmt.Sprintf("The kept bytes hash to %s, not %s as recorded", h, src.Hash))
		}
		done = append(done, rec)
		pending[src.Blob]--
	}
	if err := s.Journal.Append(id, done...); err != nil {
		return 0, err
	}
	for blob, n := range pending {
		if n == 0 {
			s.Journal.RemoveBlob(blob)
		}
	}
	return len(done), nil
}

// observe cites a source from the bytes the hook kept; record says
// whether the citation goes to the ledger.
func (s *Service) observe(ctx context.Context, src Record, record bool) (*retrieve.Result, error) {
	body, err := s.Journal.OpenBlob(src.Blob)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"session_id": src.Session, "host": src.Host, "tool": src.Tool, "seen": src.Seen}
	doc := &retrieve.Document{
		Body:        io.NopCloser(bytes.NewReader(b)),
		Size:        int64(len(b)),
		Authority:   retrieve.AuthorityMedium,
		Reliability: fmt.Sprintf("Read by the agent's host tool (%s %s), recorded by retrieve's hook", src.Host, src.Tool),
		Assumptions: []string{fmt.Sprintf("These are the bytes the host tool read at %s, as the hook found them on disk", retrieve.Timestamp(src.Time))},
		Metadata:    meta,
	}
	req := retrieve.Request{Target: src.Reference, Source: src.Kind, NoRecord: !record}
	switch src.Kind {
	case "file":
		ref := retrieve.ParseReference(src.Reference)
		doc.Name, doc.Locator, doc.Label, doc.Spans = path.Base(ref.Path), ref.Path, "file:"+ref.Path, true
	case "web":
		host := src.Reference
		if u, err := url.Parse(src.Reference); err == nil && u.Host != "" {
			host = u.Host
		}
		doc.Locator, doc.Label, doc.Format, doc.Volatile, doc.TextFragments = src.Reference, "web:"+host, "markdown", true, true
		doc.Authority = retrieve.AuthorityLow
		doc.Assumptions = append(doc.Assumptions, src.Notes...)
	default:
		return nil, retrieve.Errorf(retrieve.CodeUnsupportedFormat, "a %s source has no bytes to cite", src.Kind)
	}
	return s.Engine.Observe(ctx, req, src.Kind, doc, src.Time)
}

// Statuses of a re-checked source are those of retrieve.Verification:
// verified, changed (with a diff) or unavailable (with the reason).

// SourceCheck is one source of a session, re-checked.
type SourceCheck struct {
	Source       Source                 `json:"source" yaml:"source"`
	Verification *retrieve.Verification `json:"verification" yaml:"verification"`
}

// Verification is a session re-checked in one run.
type Verification struct {
	SessionID   string        `json:"session_id" yaml:"session_id"`
	Verified    int           `json:"verified" yaml:"verified"`
	Changed     int           `json:"changed" yaml:"changed"`
	Unavailable int           `json:"unavailable" yaml:"unavailable"`
	Sources     []SourceCheck `json:"sources" yaml:"sources"`
}

// Verify re-checks every source of a session against what it is now:
// files and retrievals are re-retrieved and their hashes compared (a
// change comes with a diff of the span as the agent saw it against now);
// listed names are checked to exist; what cannot be re-checked (a host's
// summary of a web page, a refused path) is unavailable with the reason.
func (s *Service) Verify(ctx context.Context, id string) (*Verification, error) {
	sess, err := s.Show(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Verification{SessionID: sess.ID, Sources: make([]SourceCheck, len(sess.Sources))}
	workers := s.Workers
	if workers <= 0 {
		workers = 8
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, src := range sess.Sources {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out.Sources[i] = SourceCheck{Source: src, Verification: s.verifySource(ctx, src)}
		}()
	}
	wg.Wait()
	for _, c := range out.Sources {
		switch c.Verification.Status {
		case retrieve.Verified:
			out.Verified++
		case retrieve.Changed:
			out.Changed++
		default:
			out.Unavailable++
		}
	}
	return out, nil
}

func (s *Service) verifySource(ctx context.Context, src Source) *retrieve.Verification {
	v := &retrieve.Verification{RetrievalID: src.RetrievalID, Reference: src.Reference, CitedHash: src.Hash, Notes: []string{}}
	unavailable := func(err error) *retrieve.Verification {
		v.Status, v.Error = retrieve.Unavailable, retrieve.AsError(err).Info()
		return v
	}
	switch {
	case src.Seen == SeenRefused || src.Seen == SeenMissing:
		if src.Error != nil {
			v.Status, v.Error = retrieve.Unavailable, src.Error
			return v
		}
		return unavailable(retrieve.Errorf(retrieve.CodeNotFound, "%s was not read when the agent saw it", src.Reference))
	case src.Kind == "web":
		v.Notes = append(v.Notes, src.Notes...)
		return unavailable(retrieve.Errorf(retrieve.CodeUnsupportedFormat, "what the agent saw of %s was its host's account of the page, which cannot be re-checked", src.Reference).
			WithHint("retrieve get %s cites the page itself", src.Reference))
	case src.Kind == "listed":
		v.Notes = append(v.Notes, "The agent saw the name only: its existence is checked, not its content")
		_, err := s.Engine.Retrieve(ctx, retrieve.Request{Target: src.Reference, Source: "file", NoRecord: true, Format: "binary", Constraints: retrieve.Constraints{MaxBytes: 1}})
		switch code := retrieve.AsError(err); {
		case err == nil:
			v.Status = retrieve.Verified
		case code.Code == retrieve.CodePathNotFound:
			v.Status, v.Diff = retrieve.Changed, fmt.Sprintf("%s no longer exists\n", src.Reference)
		default:
			return unavailable(err)
		}
		return v
	case src.RetrievalID != "":
		got, err := s.Engine.VerifyEntry(ctx, src.RetrievalID)
		if err != nil {
			return unavailable(err)
		}
		got.Notes = append(got.Notes, sourceNotes(src)...)
		return got
	case src.Blob != "":
		cited, err := s.observe(ctx, src.Record, false)
		if err != nil {
			return unavailable(err)
		}
		got := s.Engine.VerifyResult(ctx, cited)
		got.Notes = append(got.Notes, sourceNotes(src)...)
		return got
	case src.Hash != "":
		now, err := s.Engine.Retrieve(ctx, retrieve.Request{Target: src.Reference, Source: src.Kind, NoRecord: true})
		if err != nil {
			return unavailable(err)
		}
		v.CurrentHash = deref(now.Citation.Hash)
		v.Status = retrieve.Verified
		if v.CurrentHash != v.CitedHash {
			v.Status = retrieve.Changed
			v.Notes = append(v.Notes, "The bytes the agent saw were not kept (too large): the hashes differ, no diff can be shown")
		}
		return v
	}
	return unavailable(retrieve.Errorf(retrieve.CodeNotFound, "nothing was recorded of %s that can be re-checked", src.Reference))
}

func sourceNotes(src Source) []string {
	if src.Seen == SeenMismatch {
		return []string{"When the agent read it, the host's tool returned other text than the file held: " + strings.Join(src.Notes, "; ")}
	}
	return nil
}

// Verified adds verifications run in the session (`retrieve verify` with
// --session) to its journal, one record each: what was verified, its
// status, the current hash of a changed one, the error of an unavailable
// one.
func (s *Service) Verified(id, tool string, vs []*retrieve.Verification) error {
	if id == "" {
		return nil
	}
	recs := make([]Record, 0, len(vs))
	for _, v := range vs {
		rec := Record{
			Type: TypeCheck, ID: retrieve.NewID(), Session: id, Time: s.now().UTC(), Host: "retrieve", Tool: tool,
			Kind: "verification", Reference: v.Reference, Hash: v.CitedHash, RetrievalID: v.RetrievalID, Status: v.Status,
		}
		if v.Status == retrieve.Changed {
			rec.Failures = append(rec.Failures, "now "+v.CurrentHash)
		}
		if v.Error != nil {
			rec.Error = v.Error
		}
		recs = append(recs, rec)
	}
	return s.Journal.Append(id, recs...)
}

// Checked adds a citation check of a document run in the session
// (`retrieve check` with --session) to its journal: pass or fail, the
// counts, and each failing citation.
func (s *Service) Checked(id, tool string, r *check.Report) error {
	if id == "" || r == nil {
		return nil
	}
	rec := Record{
		Type: TypeCheck, ID: retrieve.NewID(), Session: id, Time: s.now().UTC(), Host: "retrieve", Tool: tool,
		Kind: "document", Reference: r.Document, Status: "pass",
		Notes: []string{fmt.Sprintf("citations checked: %d · ok %d · failed %d · refused %d", r.Citations, r.OK, r.Failed, r.Refused)},
	}
	if !r.Passed() {
		rec.Status = "fail"
	}
	for _, f := range r.Failing() {
		rec.Failures = append(rec.Failures, fmt.Sprintf("%s: %s", f.Reference, f.Reason))
	}
	return s.Journal.Append(id, rec)
}

// Join adds a retrieval made through retrieve itself (an MCP or HTTP call
// that named the session) to the session's sources.
func (s *Service) Join(ctx context.Context, id, tool string, res *retrieve.Result) error {
	if id == "" || res == nil || res.Error != nil {
		return nil
	}
	rec := Record{
		Type: TypeSource, ID: retrieve.NewID(), Session: id, Time: s.now().UTC(), Host: "retrieve", Tool: tool,
		Kind: "retrieval", Reference: res.Citation.Reference, Hash: deref(res.Citation.Hash), SourceHash: deref(res.Citation.SourceHash),
		Seen: SeenMatch, RetrievalID: res.RetrievalID,
	}
	if rec.RetrievalID == "" {
		rec.Notes = append(rec.Notes, "The retrieval was not recorded in the ledger")
	}
	return s.Journal.Append(id, rec)
}
