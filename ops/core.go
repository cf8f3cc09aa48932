package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/docs"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/store"
)

// Deps are what the core operations run on. Store may be nil: then the
// ledger operations answer STORE_UNAVAILABLE.
type Deps struct {
	Engine *engine.Engine
	Store  store.Store
	// Now is the clock of `since`; time.Now when nil.
	Now func() time.Time
	// Join, when set, adds a retrieval made with a session_id argument to
	// that agent session's sources (session.Service.Join).
	Join func(ctx context.Context, sessionID, tool string, res *retrieve.Result) error
	// Verified, when set, records verifications made with a session_id
	// argument as checks of that session (session.Service.Verified).
	Verified func(sessionID, tool string, vs []*retrieve.Verification) error
}

// join adds res to the session the call names, if any. A failure to join
// does not fail the retrieval: the result says so.
func (d Deps) join(ctx context.Context, sessionID, tool string, res *retrieve.Result) {
	if sessionID == "" || d.Join == nil || res == nil {
		return
	}
	if err := d.Join(ctx, sessionID, tool, res); err != nil {
		res.Assumptions = append(res.Assumptions, "This retrieval did not join session "+sessionID+": "+retrieve.AsError(err).Message)
	}
}

// verified records v on the session the call names, if any. A failure to
// record does not fail the verification: its notes say so.
func (d Deps) verified(sessionID string, v *retrieve.Verification) {
	if sessionID == "" || v == nil {
		return
	}
	var err error = retrieve.Errorf(retrieve.CodeInvalidOperation, "this server records no sessions")
	if d.Verified != nil {
		err = d.Verified(sessionID, "verify_citation", []*retrieve.Verification{v})
	}
	if err != nil {
		v.Notes = append(v.Notes, "This verification was not recorded on session "+sessionID+": "+retrieve.AsError(err).Message)
	}
}

// Core returns the table of the core operations: retrieve, verify, quote,
// log, show and cite. Other packages add theirs with Table.Add (see AddTool in
// docs/servers.md).
func Core(d Deps) *Table {
	if d.Now == nil {
		d.Now = time.Now
	}
	t := NewTable()
	t.Kinds = d.Engine.Registry().Kinds()
	t.Add(retrieveOp(d))
	t.Add(retrieveManyOp(d))
	t.Add(verifyOp(d))
	t.Add(quoteOp(d))
	t.Add(logOp(d))
	t.Add(showOp(d))
	t.Add(citeOp(d))
	return t
}

// ResultSchema is the output schema of the ops that return the result
// contract: docs/result.schema.json without its $schema and $id, so that it
// can be embedded in other documents. Built on first use (a CLI retrieval
// never needs it).
var ResultSchema = sync.OnceValue(func() json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(docs.ResultSchema, &m); err != nil {
		panic(err)
	}
	delete(m, "$schema")
	delete(m, "$id")
	b, _ := json.Marshal(m)
	return b
})

// RetrieveWithin runs a retrieval whose result must fit the call's message
// budget. The engine fits the data once, after extraction: cut at a line
// boundary with extraction.next naming the next part, counted as the
// transport encodes it (JSON-escaped; over MCP twice, in the text block and
// in structuredContent), and reported in extraction.budget — never as a
// max_bytes filter, which stays the caller's own.
func RetrieveWithin(ctx context.Context, eng *engine.Engine, req retrieve.Request, asked *int) (*retrieve.Result, error) {
	budget, err := CallBudget(ctx, asked)
	if err != nil {
		return nil, err
	}
	return retrieveFit(ctx, eng, req, dataFit(ctx, budget, resultReserve))
}

// resultReserve is what a result's fields around its data weigh at most in
// a message, as far as a budget counts on (a citation, provenance, a few
// assumptions; over MCP the text block's header line too).
const resultReserve = 3072

// dataFit is the Fit of a message of budget bytes of which reserve go to
// everything but the data; nil outside a server (the CLI has no budget).
func dataFit(ctx context.Context, budget, reserve int) *engine.Fit {
	s := stateOf(ctx)
	if s.transport == "cli" {
		return nil
	}
	copies, html := int64(1), s.transport != "http"
	if s.transport == "mcp" {
		copies = 2
	}
	return &engine.Fit{
		MessageBytes: budget,
		DataBytes:    max(int64(budget-envelopeBytes-reserve), 512),
		Cost:         func(d string) int64 { return copies * int64(JSONStringLen(d, html)-len(`""`)) },
	}
}

// retrieveFit runs req once with its data held to fit, and adds the note of
// a capped budget.
func retrieveFit(ctx context.Context, eng *engine.Engine, req retrieve.Request, fit *engine.Fit) (*retrieve.Result, error) {
	res, err := eng.RetrieveFit(ctx, req, fit)
	if res != nil && err == nil {
		if note := BudgetNote(ctx); note != "" {
			res.Assumptions = append(res.Assumptions, note)
		}
	}
	return res, err
}

func retrieveOp(d Deps) *Op {
	return &Op{
		Name:      "retrieve",
		Title:     "Retrieve with citation",
		OpenWorld: true,
		Description: `Fetch a known thing from a known place (a workspace file, lines, a markdown section or code symbol, a value in JSON/YAML/TOML via jq, a git revision, a URL, a SQL query) with a checkable citation. Use it instead of search when you know what and where.
extraction.truncated=true: a size limit cut the data, extraction.next is the next part (pass it as target); complete=false alone means a part was asked (lines, a section). Cite citation.reference and citation.hash. On failure: error {code, message, hint, alternatives}.`,
		ReadOnly: true,
		Method:   "POST",
		Input:    retrieveInputSchema(d.Engine.Registry().Kinds()),
		Output:   ResultSchema(),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			in, req, err := DecodeRetrieve(raw)
			if err != nil {
				return nil, err
			}
			res, err := RetrieveWithin(ctx, d.Engine, req, in.Budget)
			d.join(ctx, in.SessionID, "retrieve", res)
			return res, err
		},
		TextParts: func(out any) (string, string) { return renderParts(out.(*retrieve.Result)) },
	}
}

// RenderResult is the compact text of a result: one header line with the
// citation, then the data.
func RenderResult(r *retrieve.Result) string {
	head, body := renderParts(r)
	return head + body
}

// renderParts are the two parts of RenderResult: the header line and the
// data (the data string itself, not a copy, when the data is text).
func renderParts(r *retrieve.Result) (head, body string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", r.Citation.Reference)
	if r.Citation.Hash != nil {
		fmt.Fprintf(&b, " %s", *r.Citation.Hash)
	}
	fmt.Fprintf(&b, " | complete=%t freshness=%s confidence=%.2f", r.Retrieved.Complete, r.Provenance.Freshness, r.Confidence)
	if r.RetrievalID != "" {
		fmt.Fprintf(&b, " retrieval_id=%s", r.RetrievalID)
	}
	if r.Extraction.Next != nil {
		fmt.Fprintf(&b, " next=%s (TRUNCATED: retrieve next for the following part)", *r.Extraction.Next)
	} else if !r.Retrieved.Complete && r.Extraction.Truncated {
		b.WriteString(" (TRUNCATED: ask a narrower range or a larger max_bytes)")
	}
	b.WriteByte('\n')
	switch v := r.Retrieved.Data.(type) {
	case string:
		return b.String(), v
	case nil:
		return b.String(), ""
	default:
		j, _ := json.MarshalIndent(v, "", "  ")
		return b.String(), string(j)
	}
}

// resultTextLen is the length of RenderResult(r) as a JSON string, without
// building the text.
func resultTextLen(r *retrieve.Result) int {
	head, body := renderParts(r)
	return JSONStringLen(head, true) + JSONStringLen(body, true) - len(`""`)
}

// VerifyInput is the input of the verify op: a ledger id or a cited result.
type VerifyInput struct {
	RetrievalID string `json:"retrieval_id,omitempty"`
	// ID is the old name of retrieval_id, still accepted.
	ID     string           `json:"id,omitempty"`
	Result *retrieve.Result `json:"result,omitempty"`
	// SessionID records the verification as a check of that session.
	SessionID string `json:"session_id,omitempty"`
}

// oneName returns the value given under the current name or the old one;
// both with different values is INPUT_VALIDATION_FAILED.
func oneName(name, v, old, oldV string) (string, error) {
	switch {
	case v == "":
		return oldV, nil
	case oldV != "" && oldV != v:
		return "", retrieve.Errorf(retrieve.CodeInputValidation, "%s and %s (its old name) differ", name, old).
			WithHint("give %s only", name)
	}
	return v, nil
}

// verificationSchema is the output schema of verify.
const verificationSchema = `{
  "type": "object",
  "required": ["status", "retrieval_id", "verification_id", "reference", "version", "cited_hash", "current_hash", "diff", "error", "notes"],
  "properties": {
    "status": {"type": "string", "enum": ["verified", "changed", "unavailable"]},
    "retrieval_id": {"type": "string"},
    "verification_id": {"type": "string"},
    "reference": {"type": "string"},
    "version": {"type": "string"},
    "cited_hash": {"type": "string"},
    "current_hash": {"type": "string"},
    "diff": {"type": "string", "description": "Unified diff of the cited data against the data now, when changed."},
    "error": {"oneOf": [{"type": "null"}, {"type": "object", "required": ["code", "message", "hint"], "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "hint": {"type": "string"}, "alternatives": {"type": "array", "items": {"type": "string"}}}}]},
    "notes": {"type": "array", "items": {"type": "string"}}
  }
}`

func verifyOp(d Deps) *Op {
	return &Op{
		Name:        "verify_citation",
		Title:       "Verify a citation",
		Aliases:     []string{"verify"},
		OpenWorld:   true,
		Description: `Re-retrieve what a citation names and compare hashes before relying on it: status verified, changed (with a diff) or unavailable (error says why).`,
		ReadOnly:    true,
		Input: json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "retrieval_id": {"type": "string", "description": "A retrieval_id from a result or the log.", "examples": ["0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21"]},
    "result": {"type": "object", "description": "A result as retrieve returned it."},
    ` + SessionIDArg + `
  },
  "examples": [{"retrieval_id": "0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21"}]
}`),
		Output: json.RawMessage(verificationSchema),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in VerifyInput
			if err := Decode(raw, &in); err != nil {
				return nil, err
			}
			var err error
			if in.ID, err = oneName("retrieval_id", in.RetrievalID, "id", in.ID); err != nil {
				return nil, err
			}
			switch {
			case (in.ID == "") == (in.Result == nil):
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "give exactly one of id or result").
					WithHint(`pass {"retrieval_id": "<retrieval_id>"} or {"result": <a result object>}`)
			case in.Result != nil:
				if in.Result.Citation.Reference == "" || in.Result.Error != nil {
					return nil, retrieve.Errorf(retrieve.CodeInputValidation, "result has no citation to verify").
						WithHint("pass a successful result as returned by retrieve")
				}
				v := d.Engine.VerifyResult(ctx, in.Result)
				d.verified(in.SessionID, v)
				return fitDiff(ctx, v), nil
			}
			if d.Store == nil {
				return nil, storeUnavailable()
			}
			v, err := d.Engine.VerifyEntry(ctx, in.ID)
			if err == nil {
				d.verified(in.SessionID, v)
			}
			return fitDiff(ctx, v), err
		},
		Text: func(out any) string { return verificationText(out.(*retrieve.Verification)) },
	}
}

// verificationText is the text block of a verification.
func verificationText(v *retrieve.Verification) string {
	s := fmt.Sprintf("%s %s (cited %s, now %s)", strings.ToUpper(v.Status), v.Reference, v.CitedHash, v.CurrentHash)
	if v.Diff != "" {
		s += "\n" + v.Diff
	}
	if v.Error != nil {
		s += fmt.Sprintf("\n%s: %s", v.Error.Code, v.Error.Message)
	}
	return s
}

// fitDiff cuts the diff of a verification at a line boundary so that the
// message fits the call's budget — over MCP the diff travels twice, in the
// text block and in structuredContent — and says so in its notes. The
// status and the hashes are never cut; outside a server nothing is.
func fitDiff(ctx context.Context, v *retrieve.Verification) *retrieve.Verification {
	s := stateOf(ctx)
	if s.transport == "cli" || v == nil || v.Diff == "" {
		return v
	}
	copies := 1
	if s.transport == "mcp" {
		copies = 2
	}
	whole := v.Diff
	note := fmt.Sprintf("The diff was cut to fit the message budget of %d bytes: the start of its %d bytes is shown; compare the cited data (show_retrieval) with a fresh retrieve for the rest", s.budget, len(whole))
	v.Diff = ""
	fixed := MessageSize(s.transport, v, verificationText(v)) + copies*JSONStringLen(note, true) + 64
	v.Diff = whole
	avail := s.budget - fixed
	if copies*(JSONStringLen(whole, true)-2) <= avail {
		return v
	}
	cut, cost := 0, 0
	for cut < len(whole) {
		end := strings.IndexByte(whole[cut:], '\n') + 1
		if end == 0 {
			end = len(whole) - cut
		}
		c := JSONStringLen(whole[cut:cut+end], true) - 2
		if copies*(cost+c) > avail {
			break
		}
		cost += c
		cut += end
	}
	v.Diff = whole[:cut]
	v.Notes = append(v.Notes, note)
	return v
}

// QuoteInput is the input of the quote op.
type QuoteInput struct {
	// Target is the source the quotation comes from, named as retrieve
	// names what it reads.
	Target string `json:"target,omitempty"`
	// Reference and Ref are its old names, still accepted.
	Reference string `json:"reference,omitempty"`
	Ref       string `json:"ref,omitempty"`
	Text      string `json:"text"`
	Loose     bool   `json:"loose,omitempty"`
	// SessionID joins the checked quotation to an agent session.
	SessionID string `json:"session_id,omitempty"`
}

func quoteOp(d Deps) *Op {
	return &Op{
		Name:        "check_quote",
		Title:       "Check a quotation",
		Aliases:     []string{"quote"},
		OpenWorld:   true,
		Description: `Check that text appears verbatim in a source before quoting it; the result cites the lines holding it. Not there: QUOTE_NOT_FOUND, with the closest passage (NOT a match) in provenance.metadata.`,
		ReadOnly:    true,
		Input: json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["text"],
  "properties": {
    "target": {"type": "string", "minLength": 1, "description": "Path or reference, optionally with lines.", "examples": ["README.md", "docs/guide.md:1-80"]},
    "text": {"type": "string", "minLength": 1, "description": "The exact text to find.", "examples": ["fetches a known thing from a known place"]},
    "loose": {"type": "boolean", "description": "Match modulo whitespace and case."},
    ` + SessionIDArg + `
  },
  "examples": [{"target": "README.md", "text": "a known thing"}]
}`),
		Output: ResultSchema(),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in QuoteInput
			if err := Decode(raw, &in); err != nil {
				return nil, err
			}
			var err error
			if in.Ref, err = oneName("reference", in.Reference, "ref", in.Ref); err != nil {
				return nil, err
			}
			if in.Ref, err = oneName("target", in.Target, "reference", in.Ref); err != nil {
				return nil, err
			}
			if in.Ref == "" {
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "target is required").WithHint("pass the path or reference the quotation comes from")
			}
			res, err := d.Engine.Quote(ctx, in.Ref, in.Text, retrieve.QuoteOptions{Loose: in.Loose})
			d.join(ctx, in.SessionID, "quote", res)
			return res, err
		},
		Text: func(out any) string {
			r := out.(*retrieve.Result)
			return "FOUND at " + strings.Join(r.EvidenceAnchors, ", ") + "\n" + RenderResult(r)
		},
	}
}

// LogInput filters the ledger.
type LogInput struct {
	Target string `json:"target,omitempty"`
	Source string `json:"source,omitempty"`
	Op     string `json:"op,omitempty"`
	Status string `json:"status,omitempty"`
	Since  string `json:"since,omitempty"`
	Until  string `json:"until,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Budget *int   `json:"budget,omitempty"`
}

// LogRow is one ledger entry without its bulky request and result.
type LogRow struct {
	ID         string  `json:"retrieval_id" yaml:"retrieval_id"`
	Time       string  `json:"time" yaml:"time"`
	Op         string  `json:"op" yaml:"op"`
	Target     string  `json:"target" yaml:"target"`
	Source     string  `json:"source" yaml:"source"`
	Status     string  `json:"status" yaml:"status"`
	Code       string  `json:"code" yaml:"code"`
	Reference  string  `json:"reference" yaml:"reference"`
	Hash       string  `json:"hash" yaml:"hash"`
	DurationMS float64 `json:"duration_ms" yaml:"duration_ms"`
}

// NewLogRow is the row of a ledger entry.
func NewLogRow(e *store.Entry) LogRow {
	return LogRow{ID: e.ID, Time: retrieve.Timestamp(e.Time), Op: e.Op, Target: e.Target, Source: e.Source,
		Status: e.Status, Code: e.Code, Reference: e.Reference, Hash: e.Hash, DurationMS: float64(e.Duration.Microseconds()) / 1000}
}

// LogOutput is the output of the log op: a page of entries, newest first.
type LogOutput struct {
	Entries []LogRow `json:"entries" yaml:"entries"`
	// NextCursor asks for the next page; empty on the last one.
	NextCursor string `json:"next_cursor" yaml:"next_cursor"`
}

// Log ops: "" lists retrievals (get and quote), "all" every entry.
const (
	LogRetrievals = ""
	LogAll        = "all"
)

// DefaultLogLimit and MaxLogLimit bound a page of the log.
const (
	DefaultLogLimit = 20
	MaxLogLimit     = 500
)

// TimeBound parses a since/until bound named name: a duration back from
// now or an RFC 3339 time; "" is no bound.
func TimeBound(name, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if dur, err := time.ParseDuration(v); err == nil {
		return now.Add(-dur), nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Time{}, retrieve.Errorf(retrieve.CodeInputValidation, "%s %q is neither a duration nor an RFC 3339 time", name, v).
		WithHint("use 24h, 90m or 2026-01-02T15:04:05Z")
}

// ListLog reads one page of the ledger for the log op and `retrieve log`:
// retrievals by default (op "" leaves verification runs out; "verify"
// shows only them, "all" everything), newest first, pinned by the cursor
// to what the ledger held when the first page was read.
func ListLog(ctx context.Context, st store.Store, now time.Time, in LogInput) (*LogOutput, error) {
	if st == nil {
		return nil, storeUnavailable()
	}
	if _, err := CallBudget(ctx, in.Budget); err != nil {
		return nil, err
	}
	if in.Status != "" && in.Status != store.StatusOK && in.Status != store.StatusError {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "status %q is not ok or error", in.Status).WithHint("use ok or error")
	}
	// Targets are recorded without URL credentials: look them up so.
	f := store.Filter{Target: retrieve.RedactText(in.Target), Source: in.Source, Op: in.Op, Status: in.Status}
	switch in.Op {
	case LogRetrievals:
		f.ExcludeOp = "verify"
	case LogAll:
		f.Op = ""
	case "get", "verify", "quote", "observe", "forget":
	default:
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "op %q is not get, verify, quote, observe, forget or all", in.Op).
			WithHint("leave op out for retrievals, verify for verification runs, all for every entry")
	}
	var err error
	if f.Since, err = TimeBound("since", in.Since, now); err != nil {
		return nil, err
	}
	before, err := TimeBound("until", in.Until, now)
	if err != nil {
		return nil, err
	}
	spec := PageSpec{List: "log", Filter: Fingerprint(in.Target, in.Source, in.Op, in.Status, in.Since, in.Until), Cursor: in.Cursor,
		Limit: in.Limit, Default: DefaultLogLimit, Max: MaxLogLimit, Until: now.Add(time.Nanosecond).UTC().Format(time.RFC3339Nano)}
	c, limit, err := spec.Start()
	if err != nil {
		return nil, err
	}
	until := spec.Until
	if in.Cursor != "" {
		until = c.Until
	}
	if f.Until, err = time.Parse(time.RFC3339Nano, until); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInputValidation, "cursor is not valid for log: bad time").WithHint("start again without a cursor")
	}
	if !before.IsZero() && before.Before(f.Until) {
		f.Until = before
	}
	// Pages after the first start after the last entry read (by id, which
	// is time-ordered), so a deep page reads no more rows than a first one.
	f.BeforeID = c.After
	f.Limit = c.Offset + limit + 1
	entries, err := st.Entries(ctx, f)
	if err == nil && f.Target != "" && len(entries) == 0 {
		f.Target, f.Reference = "", in.Target
		entries, err = st.Entries(ctx, f)
	}
	if err != nil {
		return nil, err
	}
	rows := make([]LogRow, len(entries))
	for i, e := range entries {
		rows[i] = NewLogRow(e)
	}
	p, err := Paginate(ctx, spec, rows)
	if err != nil {
		return nil, err
	}
	if p.Next != "" && len(p.Items) > 0 {
		next := p.Cursor
		next.Offset, next.After = 0, p.Items[len(p.Items)-1].ID
		p.Next = next.Encode()
	}
	return &LogOutput{Entries: p.Items, NextCursor: p.Next}, nil
}

func logOp(d Deps) *Op {
	return &Op{
		Name:        "retrieval_log",
		Title:       "List recorded retrievals",
		Aliases:     []string{"log"},
		Description: `The ledger, newest first: find a retrieval_id for verify_citation, show_retrieval or cite_retrieval. Pass next_cursor back as cursor.`,
		ReadOnly:    true,
		Method:      "GET",
		Input: json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "target": {"type": "string", "description": "Only this target or reference.", "examples": ["README.md"]},
    "source": {"type": "string", "description": "Only this source kind.", "examples": ["file"]},
    "op": {"type": "string", "enum": ["get", "verify", "quote", "observe", "all"], "description": "Left out: retrievals; observe: agents' own reads."},
    "status": {"type": "string", "enum": ["ok", "error"], "description": "Only successes or failures."},
    "since": {"type": "string", "description": "Newer than 24h ago or a time.", "examples": ["24h", "2026-01-02T15:04:05Z"]},
    "until": {"type": "string", "description": "Older than 1h ago or a time.", "examples": ["1h", "2026-01-03T00:00:00Z"]},
    "limit": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Entries per page (default 20)."},
    "cursor": {"type": "string", "description": "next_cursor of the previous page."},
    "budget": {"type": "integer", "minimum": 4096, "description": "Message budget in bytes."}
  },
  "examples": [{"limit": 10}]
}`),
		Output: json.RawMessage(`{
  "type": "object",
  "required": ["entries", "next_cursor"],
  "properties": {"next_cursor": {"type": "string", "description": "Pass as cursor for the next page; empty on the last."}, "entries": {"type": "array", "items": {"type": "object",
    "required": ["retrieval_id", "time", "op", "target", "source", "status", "code", "reference", "hash", "duration_ms"],
    "properties": {"retrieval_id": {"type": "string"}, "time": {"type": "string"}, "op": {"type": "string"}, "target": {"type": "string"}, "source": {"type": "string"}, "status": {"type": "string"}, "code": {"type": "string"}, "reference": {"type": "string"}, "hash": {"type": "string"}, "duration_ms": {"type": "number"}}}}}
}`),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in LogInput
			if err := Decode(raw, &in); err != nil {
				return nil, err
			}
			return ListLog(ctx, d.Store, d.Now(), in)
		},
		Text: func(out any) string {
			var b strings.Builder
			for _, e := range out.(*LogOutput).Entries {
				detail := e.Reference
				if e.Status == store.StatusError {
					detail = e.Code
				}
				fmt.Fprintf(&b, "%s %s %s %s %s %s\n", e.ID, e.Time, e.Op, e.Status, e.Target, detail)
			}
			if b.Len() == 0 {
				b.WriteString("(no entries)\n")
			}
			if c := out.(*LogOutput).NextCursor; c != "" {
				fmt.Fprintf(&b, "next_cursor: %s\n", c)
			}
			return b.String()
		},
	}
}

// ShowInput names a ledger entry.
type ShowInput struct {
	RetrievalID string `json:"retrieval_id,omitempty"`
	// ID is the old name of retrieval_id, still accepted.
	ID string `json:"id,omitempty"`
}

func showOp(d Deps) *Op {
	return &Op{
		Name:        "show_retrieval",
		Title:       "Show a recorded result",
		Aliases:     []string{"show"},
		Description: `The recorded result of a ledger entry, as it was returned then; verify_citation tells whether it still holds.`,
		ReadOnly:    true,
		Method:      "GET",
		Input: json.RawMessage(`{
  "type": "object",
  "additionalProperties": false,
  "properties": {"retrieval_id": {"type": "string", "minLength": 1, "description": "A retrieval_id.", "examples": ["0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21"]}, "id": {"type": "string", "description": "Old name of retrieval_id."}},
  "examples": [{"retrieval_id": "0192f0c4-7a3e-7b61-9d2a-5b1e8f0c3d21"}]
}`),
		Output: ResultSchema(),
		Handle: func(ctx context.Context, raw json.RawMessage) (any, error) {
			var in ShowInput
			if err := Decode(raw, &in); err != nil {
				return nil, err
			}
			var err error
			if in.ID, err = oneName("retrieval_id", in.RetrievalID, "id", in.ID); err != nil {
				return nil, err
			}
			if in.ID == "" {
				return nil, retrieve.Errorf(retrieve.CodeInputValidation, "retrieval_id is required").WithHint("pass a retrieval_id from a result or from retrieval_log")
			}
			if d.Store == nil {
				return nil, storeUnavailable()
			}
			e, err := d.Store.Entry(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return d.Engine.RecordedResult(ctx, d.Store, e)
		},
		TextParts: func(out any) (string, string) { return renderParts(out.(*retrieve.Result)) },
	}
}

func storeUnavailable() error {
	return retrieve.Errorf(retrieve.CodeStoreUnavailable, "the evidence store is not available to this server").
		WithHint("run `retrieve init` in the workspace, or enable recording in .retrieve/config.yaml, then restart the server")
}
