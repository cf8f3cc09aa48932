package check

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/store"
)

// Statuses of a checked citation.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusRefused = "refused" // a denied or outside-root path, never read
)

// Rules name why a citation failed (SARIF rule ids).
const (
	RuleUnresolved = "citation-unresolved"
	RuleHash       = "citation-hash-mismatch"
	RuleQuote      = "citation-quote-not-found"
	RuleRefused    = "citation-refused"
	RuleChanged    = "citation-changed"
)

// Finding is a citation and the outcome of its check.
type Finding struct {
	Citation
	Status string `json:"status"`
	// Rule, Code and Reason say why it failed ("" when ok); Hint how to fix it.
	Rule   string `json:"rule"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Hint   string `json:"hint"`
	// CurrentHash is the hash of the cited data now ("" when unavailable).
	CurrentHash string `json:"current_hash"`
}

// Report is the check of one document.
type Report struct {
	Document  string    `json:"document"`
	Citations int       `json:"citations"`
	OK        int       `json:"ok"`
	Failed    int       `json:"failed"`
	Refused   int       `json:"refused"`
	Findings  []Finding `json:"findings"`
	// Omitted is how many findings were left out to fit a message budget
	// (ok findings first, then the last failing ones); the counts above
	// still count them.
	Omitted int `json:"omitted"`
}

// Fit leaves findings out of r until size(r) is at most budget: ok
// findings first, then failing ones from the end, keeping document order.
// It reports whether r fits.
func (r *Report) Fit(budget int, size func(*Report) int, itemSize func(Finding) int) bool {
	over := size(r) - budget
	if over <= 0 {
		return true
	}
	drop := make([]bool, len(r.Findings))
	for pass := 0; pass < 2 && over > 0; pass++ {
		for i := len(r.Findings) - 1; i >= 0 && over > 0; i-- {
			f := r.Findings[i]
			if drop[i] || pass == 0 && f.Status != StatusOK {
				continue
			}
			drop[i] = true
			over -= itemSize(f)
		}
	}
	kept := r.Findings[:0]
	for i, f := range r.Findings {
		if drop[i] {
			r.Omitted++
			continue
		}
		kept = append(kept, f)
	}
	r.Findings = kept
	return size(r) <= budget
}

// Passed reports whether every citation checked out.
func (r *Report) Passed() bool { return r.Failed == 0 && r.Refused == 0 }

// Failing returns the findings that did not check out.
func (r *Report) Failing() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Status != StatusOK {
			out = append(out, f)
		}
	}
	return out
}

// Engine is what a Checker needs of the engine (*engine.Engine implements
// it): retrievals, and the store its recorded citations are looked up in.
// Holding this instead of the engine keeps check beside the engine, not
// above it.
type Engine interface {
	retrieve.Retriever
	// Store returns the ledger, nil when nothing is recorded.
	Store() store.Store
	// Registry returns the engine's sources: their reference forms are
	// the citation forms (Forms).
	Registry() *retrieve.Registry
}

// Checker checks citations with an engine. Retrievals are not recorded.
type Checker struct {
	Engine Engine
	// Loose matches quotations modulo whitespace and case (quote --loose).
	Loose bool
	// Workers bounds the citations checked at once (default 4 per core).
	Workers int
	// Progress, when set, is called after each citation with the counts,
	// by one worker at a time.
	Progress func(done, total int)
}

// Forms are the citation forms of the engine's sources.
func (c *Checker) Forms() Forms { return Forms{Registry: c.Engine.Registry()} }

// Limits of one check (docs/SECURITY.md, "Bounded cost"). Parsing
// Markdown costs up to ~700 bytes of memory per markup character (a node of
// the syntax tree for each emphasis, link, line…), so the markup is counted
// before parsing; each citation may cost a retrieval, so their number is
// capped; and the findings echo bounded parts of each citation, so the
// report stays within a few megabytes.
const (
	// MaxCitations is the most citations one document may hold.
	MaxCitations = 5000
	// MaxMarkup is the most markup characters (MarkupCount) a document may
	// hold: at most ~46 MB of syntax tree.
	MaxMarkup = 64 << 10
	// MaxEcho is the most bytes of a citation's quotation, label and
	// reference that its finding repeats.
	MaxEcho = 1024
	// MaxReference is the longest reference checked; a longer one fails
	// without being retrieved.
	MaxReference = 4096
	// MaxRunning is the most checks that run at once in a process; more
	// wait for a slot (at most MaxWait).
	MaxRunning = 2
	// MaxWait bounds the wait for a slot.
	MaxWait = 30 * time.Second
	// cacheBytes bounds the data of the retrievals kept for the citations
	// that cite the same reference again.
	cacheBytes = 32 << 20
)

// running holds one token per check in progress in the process.
var running = make(chan struct{}, MaxRunning)

// MarkupCount is the number of characters of src that make Markdown
// syntax nodes (emphasis, links, code, HTML, tables, lines): what parsing
// src costs, roughly, in nodes.
func MarkupCount(src []byte) int {
	n := 0
	for _, c := range src {
		switch c {
		case '\n', '*', '_', '[', ']', '<', '>', '`', '!', '|':
			n++
		}
	}
	return n
}

// ParseLimited parses a document within the limits: its size, its markup
// and its number of citations; over one of them it is TOO_LARGE, before
// anything is retrieved.
func (f Forms) ParseLimited(name string, src []byte) ([]Citation, error) {
	if len(src) > MaxDocument {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s is %d bytes; documents of at most %d bytes are checked", name, len(src), MaxDocument).
			WithHint("check the document in parts")
	}
	if n := MarkupCount(src); n > MaxMarkup {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s has %d markup characters (lines, links, emphasis…); documents of at most %d are checked", name, n, MaxMarkup).
			WithHint("check the document in parts")
	}
	cits := f.Parse(src)
	if len(cits) > MaxCitations {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s has %d citations; documents of at most %d citations are checked", name, len(cits), MaxCitations).
			WithHint("check the document in parts")
	}
	return cits, nil
}

// Check parses a Markdown document and checks its citations.
func (c *Checker) Check(ctx context.Context, name string, src []byte) (*Report, error) {
	cits, err := c.Forms().ParseLimited(name, src)
	if err != nil {
		return nil, err
	}
	return c.Run(ctx, name, cits)
}

// Run checks citations already parsed (ParseLimited) once one of the
// process's MaxRunning slots is free: more than MaxCitations is TOO_LARGE,
// a slot not free within MaxWait RATE_LIMITED.
func (c *Checker) Run(ctx context.Context, name string, cits []Citation) (*Report, error) {
	if len(cits) > MaxCitations {
		return nil, retrieve.Errorf(retrieve.CodeTooLarge, "%s has %d citations; documents of at most %d citations are checked", name, len(cits), MaxCitations).
			WithHint("check the document in parts")
	}
	wait := time.NewTimer(MaxWait)
	defer wait.Stop()
	select {
	case running <- struct{}{}:
	case <-ctx.Done():
		return nil, retrieve.Errorf(retrieve.CodeCanceled, "the check of %s was canceled while it waited for a slot", name).WithErr(ctx.Err())
	case <-wait.C:
		return nil, retrieve.Errorf(retrieve.CodeRateLimited, "%d checks are running; %s waited %s for a slot", MaxRunning, name, MaxWait).
			WithHint("retry in a moment")
	}
	defer func() { <-running }()
	return c.CheckCitations(ctx, name, cits), nil
}

// CheckCitations checks citations already parsed, with at most Workers at
// once; the findings are in the order of cits. It applies no limit: the
// callers that take a document from outside use Check or Run.
func (c *Checker) CheckCitations(ctx context.Context, name string, cits []Citation) *Report {
	workers := c.Workers
	if workers <= 0 {
		workers = 4 * runtime.NumCPU()
	}
	r := &Report{Document: name, Citations: len(cits), Findings: make([]Finding, len(cits))}
	cache := &fetchCache{m: map[string]*fetched{}}
	var (
		done   int
		doneMu sync.Mutex
	)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(1, len(cits))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r.Findings[i] = echo(c.checkOne(ctx, cache, cits[i]))
				// Progress is called by one worker at a time.
				doneMu.Lock()
				done++
				if c.Progress != nil {
					c.Progress(done, len(cits))
				}
				doneMu.Unlock()
			}
		}()
	}
	for i := range cits {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, f := range r.Findings {
		switch f.Status {
		case StatusOK:
			r.OK++
		case StatusRefused:
			r.Refused++
		default:
			r.Failed++
		}
	}
	return r
}

// echo cuts what a finding repeats of its citation to MaxEcho bytes each,
// so that a report is bounded by the number of citations.
func echo(f Finding) Finding {
	f.Quote, f.Label, f.Reference = cut(f.Quote), cut(f.Label), cut(f.Reference)
	return f
}

func cut(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	i := MaxEcho - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// fetched is one retrieval shared by the citations of the same reference.
type fetched struct {
	once sync.Once
	res  *retrieve.Result
	err  error
}

type fetchCache struct {
	mu    sync.Mutex
	m     map[string]*fetched
	bytes int // data kept in m
}

func (fc *fetchCache) get(ctx context.Context, e retrieve.Retriever, req retrieve.Request) (*retrieve.Result, error) {
	req.NoRecord = true
	key, _ := json.Marshal(req)
	fc.mu.Lock()
	f, ok := fc.m[string(key)]
	if !ok {
		f = &fetched{}
		fc.m[string(key)] = f
	}
	fc.mu.Unlock()
	f.once.Do(func() {
		f.res, f.err = e.Retrieve(ctx, req)
		// Past cacheBytes a result is not kept for later citations: the
		// citations of a document may cite gigabytes between them.
		n := 0
		if f.res != nil {
			if d, ok := f.res.Retrieved.Data.(string); ok {
				n = len(d)
			} else if rs := f.res.Extraction.ReturnedSize; f.res.Retrieved.Data != nil && rs != nil {
				n = int(*rs)
			}
		}
		fc.mu.Lock()
		if fc.bytes+n > cacheBytes {
			delete(fc.m, string(key))
		} else {
			fc.bytes += n
		}
		fc.mu.Unlock()
	})
	return f.res, f.err
}

// refusedCodes are the errors of a path or address the policy refuses: the
// source is never read.
var refusedCodes = map[retrieve.Code]bool{
	retrieve.CodeOutsideRoot: true, retrieve.CodeSensitivePath: true, retrieve.CodeBlockedAddress: true,
	retrieve.CodeRobotsDisallowed: true, retrieve.CodePermissionDenied: true,
}

func (c *Checker) checkOne(ctx context.Context, cache *fetchCache, cit Citation) Finding {
	f := Finding{Citation: cit, Status: StatusOK}
	fail := func(rule string, code retrieve.Code, reason, hint string) Finding {
		f.Status, f.Rule, f.Code, f.Reason, f.Hint = StatusFailed, rule, string(code), reason, hint
		return f
	}
	failErr := func(err error) Finding {
		ae := retrieve.AsError(err)
		if refusedCodes[ae.Code] {
			f = fail(RuleRefused, ae.Code, "refused: "+ae.Message, ae.Hint)
			f.Status = StatusRefused
			return f
		}
		return fail(RuleUnresolved, ae.Code, "the reference does not resolve: "+ae.Message, ae.Hint)
	}
	if len(cit.Reference) > MaxReference {
		return fail(RuleUnresolved, retrieve.CodeInputValidation, fmt.Sprintf("the reference is %d bytes long; at most %d are checked", len(cit.Reference), MaxReference),
			"cite a shorter reference")
	}
	req := retrieve.Request{Target: cit.Reference}
	var citedHash string
	if id, ok := strings.CutPrefix(cit.Reference, "retrieval:"); ok {
		cited, err := c.recorded(ctx, id)
		if err != nil {
			return failErr(err)
		}
		req = retrieve.CitationRequest(cited)
		citedHash = deref(cited.Citation.Hash)
	}
	fragment := ""
	if ref := c.Engine.Registry().ParseReference(req.Target); ref.Scheme == "web" {
		if base, frag, ok := strings.Cut(req.Target, "#"); ok {
			req.Target = base
			if t, ok := strings.CutPrefix(frag, ":~:text="); ok {
				fragment = t
			}
		}
	}
	res, err := cache.get(ctx, c.Engine, req)
	if err != nil {
		return failErr(err)
	}
	f.CurrentHash = deref(res.Citation.Hash)
	if citedHash != "" && citedHash != f.CurrentHash {
		return fail(RuleChanged, retrieve.CodeChanged, fmt.Sprintf("the source changed since %s: recorded %s, now %s", cit.Reference, citedHash, f.CurrentHash),
			"retrieve verify "+strings.TrimPrefix(cit.Reference, "retrieval:")+" shows the diff; retrieve it again and cite the new retrieval")
	}
	if cit.Hash != "" && cit.Hash != f.CurrentHash {
		return fail(RuleHash, retrieve.CodeChanged, fmt.Sprintf("hash mismatch: the citation gives %s, the cited data hashes to %s", cit.Hash, f.CurrentHash),
			"the source changed or the hash is wrong: retrieve "+cit.Reference+" again and cite the hash it gives")
	}
	if fragment != "" {
		if err := c.fragmentIn(ctx, cache, req, res, fragment); err != nil {
			return fail(RuleQuote, retrieve.CodeQuoteNotFound, err.Error(), "cite a text fragment that is on the page")
		}
	}
	if strings.TrimSpace(cit.Quote) == "" {
		return f
	}
	return c.quoteIn(ctx, cache, req, res, f, fail)
}

// quoteIn checks that the quotation is in the cited span; with several
// ranges, in one of them (a quotation that only matches across the join of
// two ranges is not in the source as quoted).
func (c *Checker) quoteIn(ctx context.Context, cache *fetchCache, req retrieve.Request, res *retrieve.Result, f Finding, fail func(string, retrieve.Code, string, string) Finding) Finding {
	data, err := c.text(ctx, cache, req, res)
	if err != nil {
		return fail(RuleQuote, retrieve.AsError(err).Code, "the quotation cannot be checked: "+retrieve.AsError(err).Message, "cite a text source")
	}
	ref := c.Engine.Registry().ParseReference(req.Target)
	lines := ref.Lines
	if lines == "" {
		lines = req.Constraints.Lines
	}
	ranges := strings.Split(lines, ",")
	if len(ranges) <= 1 {
		if _, _, ok := retrieve.FindQuote(data, f.Quote, c.Loose); ok {
			return f
		}
		return fail(RuleQuote, retrieve.CodeQuoteNotFound, fmt.Sprintf("the quoted text %q is not in %s", short(f.Quote), f.Reference),
			fmt.Sprintf("quote the source verbatim; `retrieve quote %s %q` shows the closest passage", f.Reference, short(f.Quote)))
	}
	for _, rg := range ranges {
		one := req
		r := ref
		r.Lines = ""
		one.Target = r.String()
		one.Constraints.Lines = rg
		rres, err := cache.get(ctx, c.Engine, one)
		if err != nil {
			continue
		}
		if d, err := c.text(ctx, cache, one, rres); err == nil {
			if _, _, ok := retrieve.FindQuote(d, f.Quote, c.Loose); ok {
				return f
			}
		}
	}
	if _, _, ok := retrieve.FindQuote(data, f.Quote, c.Loose); ok {
		return fail(RuleQuote, retrieve.CodeQuoteNotFound, fmt.Sprintf("the quoted text %q spans two cited ranges of %s that are not contiguous in the source", short(f.Quote), f.Reference),
			"quote each range separately, or cite one contiguous range")
	}
	return fail(RuleQuote, retrieve.CodeQuoteNotFound, fmt.Sprintf("the quoted text %q is not in %s", short(f.Quote), f.Reference),
		fmt.Sprintf("quote the source verbatim; `retrieve quote %s %q` shows the closest passage", f.Reference, short(f.Quote)))
}

// text is the cited data as text: as returned, or retrieved again as text
// when it was parsed (JSON, YAML…).
func (c *Checker) text(ctx context.Context, cache *fetchCache, req retrieve.Request, res *retrieve.Result) (string, error) {
	if s, ok := res.Retrieved.Data.(string); ok && res.Retrieved.Format != "binary" {
		return s, nil
	}
	req.Format = "text"
	tres, err := cache.get(ctx, c.Engine, req)
	if err != nil {
		return "", err
	}
	s, ok := tres.Retrieved.Data.(string)
	if !ok {
		return "", retrieve.Errorf(retrieve.CodeUnsupportedFormat, "%s is not text", req.Target)
	}
	return s, nil
}

// fragmentIn checks a URL text directive (start or start,end) against the
// page text, loosely as browsers match it.
func (c *Checker) fragmentIn(ctx context.Context, cache *fetchCache, req retrieve.Request, res *retrieve.Result, frag string) error {
	data, err := c.text(ctx, cache, req, res)
	if err != nil {
		return err
	}
	frag, _, _ = strings.Cut(frag, "&")
	parts := strings.Split(frag, ",")
	var terms []string
	for _, p := range parts {
		t, err := url.PathUnescape(p)
		if err != nil {
			return fmt.Errorf("the text fragment %q is not percent-encoded correctly", p)
		}
		// prefix- and -suffix context terms are not part of the match.
		if strings.HasSuffix(t, "-") || strings.HasPrefix(t, "-") {
			continue
		}
		terms = append(terms, t)
	}
	rest := data
	for _, t := range terms {
		_, end, ok := retrieve.FindQuote(rest, t, true)
		if !ok {
			return fmt.Errorf("the text fragment %q is not on the page %s", t, req.Target)
		}
		rest = rest[end:]
	}
	return nil
}

// recorded returns the result a ledger entry recorded.
func (c *Checker) recorded(ctx context.Context, id string) (*retrieve.Result, error) {
	st := c.Engine.Store()
	if st == nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "no store: retrieval:%s cannot be looked up", id).
			WithHint("run where the ledger is (the workspace's .retrieve/retrieve.db or --store)")
	}
	e, err := st.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	var res retrieve.Result
	if err := json.Unmarshal(e.Result, &res); err != nil {
		return nil, retrieve.Errorf(retrieve.CodeInternal, "entry %s cannot be decoded", id).WithErr(err)
	}
	if res.Error != nil || res.Citation.Reference == "" {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "retrieval %s is a failed retrieval: it cites nothing", id).
			WithHint("cite a successful retrieval")
	}
	return &res, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
