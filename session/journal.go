package session

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/workspace"
)

// Record types of a journal line.
const (
	TypeSource   = "source"   // a source the agent saw
	TypeFailure  = "failure"  // a tool call that failed
	TypeIngested = "ingested" // a source became a ledger entry
	TypeStop     = "stop"     // the end-of-turn check
	TypeCheck    = "check"    // a verification or citation check run in the session (retrieve verify, retrieve check)
)

// How a source's content compared with what the tool returned.
const (
	SeenMatch     = "match"     // the tool returned exactly the bytes on disk
	SeenMismatch  = "mismatch"  // the tool returned something else
	SeenUnchecked = "unchecked" // the host did not say what it returned
	SeenSummary   = "summary"   // the host returned a model's summary (web)
	SeenListed    = "listed"    // the agent saw the name only
	SeenRefused   = "refused"   // a denied or outside-root path, never read
	SeenMissing   = "unavailable"
)

// Record is one line of a session's journal.
type Record struct {
	Type      string    `json:"type" yaml:"type"`
	ID        string    `json:"id" yaml:"id"`
	Session   string    `json:"session_id" yaml:"session_id"`
	Time      time.Time `json:"time" yaml:"time"`
	Host      string    `json:"host,omitempty" yaml:"host,omitempty"`
	Tool      string    `json:"tool,omitempty" yaml:"tool,omitempty"`
	ToolUseID string    `json:"tool_use_id,omitempty" yaml:"tool_use_id,omitempty"`
	// Kind is file, listed, web or retrieval; Reference what re-retrieves it.
	Kind       string `json:"kind,omitempty" yaml:"kind,omitempty"`
	Reference  string `json:"reference,omitempty" yaml:"reference,omitempty"`
	Hash       string `json:"hash,omitempty" yaml:"hash,omitempty"`
	SourceHash string `json:"source_hash,omitempty" yaml:"source_hash,omitempty"`
	// Seen compares what the tool returned with the source (Seen* values);
	// ToolHash is the hash of what the tool returned, when it differs.
	Seen     string `json:"seen,omitempty" yaml:"seen,omitempty"`
	ToolHash string `json:"tool_hash,omitempty" yaml:"tool_hash,omitempty"`
	// Blob is the hash of the bytes kept in the journal's blobs until the
	// record becomes a ledger entry ("" when none).
	Blob  string              `json:"blob,omitempty" yaml:"blob,omitempty"`
	Notes []string            `json:"notes,omitempty" yaml:"notes,omitempty"`
	Error *retrieve.ErrorInfo `json:"error,omitempty" yaml:"error,omitempty"`
	// RetrievalID is the ledger entry (ingested records, and sources that
	// came through retrieve itself); Of the source record it belongs to.
	RetrievalID string `json:"retrieval_id,omitempty" yaml:"retrieval_id,omitempty"`
	Of          string `json:"of,omitempty" yaml:"of,omitempty"`
	// Check records: verified, changed or unavailable (a verification),
	// pass or fail (a document's citations).
	Status string `json:"status,omitempty" yaml:"status,omitempty"`
	// Stop records: the decision and the failing citations (check records:
	// what failed).
	Decision string   `json:"decision,omitempty" yaml:"decision,omitempty"`
	Failures []string `json:"failures,omitempty" yaml:"failures,omitempty"`
}

// Journal is the directory of session journals: one JSON Lines file per
// session and the blobs of sources not yet in the ledger.
type Journal struct {
	Dir string
}

// Dir is the journal directory of a workspace state directory (.retrieve).
const Dir = "sessions"

var safeID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) })

// fileName maps a session id to its journal file: the id itself when it
// is a safe name, else a hash of it.
func fileName(id string) string {
	if safeID().MatchString(id) && !strings.Contains(id, "..") {
		return id + ".jsonl"
	}
	h := sha256.Sum256([]byte(id))
	return "x-" + hex.EncodeToString(h[:16]) + ".jsonl"
}

// Append writes records at the end of the session's journal in one write
// (O_APPEND), so concurrent hooks do not interleave lines.
func (j *Journal) Append(id string, recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		// No secret at rest: URL credentials and token-like query
		// parameters are redacted as in the ledger (issue #32).
		b = retrieve.RedactRecordedJSON(b)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(j.Dir, 0o700); err != nil {
		return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot create %s", j.Dir).WithErr(err)
	}
	f, err := os.OpenFile(filepath.Join(j.Dir, fileName(id)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot open the journal of session %s", id).WithErr(err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return retrieve.Errorf(retrieve.CodeWriteFailed, "cannot write the journal of session %s", id).WithErr(err)
	}
	return nil
}

// Read returns the records of a session in order. A last line cut short
// (a hook killed mid-write) is skipped; other bad lines are too, and
// counted in skipped.
func (j *Journal) Read(id string) (recs []Record, skipped int, err error) {
	f, _, err := workspace.OpenRegular(filepath.Join(j.Dir, fileName(id)), true)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, retrieve.Errorf(retrieve.CodeNotFound, "no session %q", id).
			WithHint("`retrieve session list` lists the recorded sessions")
	}
	if err != nil {
		return nil, 0, retrieve.Errorf(retrieve.CodeStoreUnavailable, "cannot read the journal of session %s", id).WithErr(err)
	}
	f.Close()
	return j.readRaw(filepath.Join(j.Dir, fileName(id)))
}

// Summary describes one recorded session.
type Summary struct {
	ID          string    `json:"session_id" yaml:"session_id"`
	Host        string    `json:"host" yaml:"host"`
	Started     time.Time `json:"started" yaml:"started"`
	Updated     time.Time `json:"updated" yaml:"updated"`
	SourceCount int       `json:"source_count" yaml:"source_count"`
	// Failures counts failed tool calls; Blocked the end-of-turn checks
	// that blocked.
	FailedCalls int `json:"failed_calls" yaml:"failed_calls"`
	Blocked     int `json:"blocked" yaml:"blocked"`
}

// List summarizes every session, most recently updated first.
func (j *Journal) List() ([]Summary, error) {
	ents, err := os.ReadDir(j.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return []Summary{}, nil
	}
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeStoreUnavailable, "cannot list %s", j.Dir).WithErr(err)
	}
	out := []Summary{}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() {
			continue
		}
		recs, _, err := j.readRaw(filepath.Join(j.Dir, e.Name()))
		if err != nil || len(recs) == 0 {
			continue
		}
		s := summarize(recs)
		if s.ID == "" {
			s.ID = name
		}
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Updated.After(out[b].Updated) })
	return out, nil
}

func (j *Journal) readRaw(p string) ([]Record, int, error) {
	f, _, err := workspace.OpenRegular(p, true)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var recs []Record
	skipped := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r Record
		// Lines written before redaction existed are redacted as read,
		// so show and verify never print a secret (issue #32).
		if json.Unmarshal(retrieve.RedactRecordedJSON(sc.Bytes()), &r) != nil || r.Type == "" {
			skipped++
			continue
		}
		recs = append(recs, r)
	}
	if sc.Err() != nil {
		skipped++ // a line longer than the buffer
	}
	return recs, skipped, nil
}

func summarize(recs []Record) Summary {
	s := Summary{}
	for _, r := range recs {
		if s.ID == "" {
			s.ID = r.Session
		}
		if s.Host == "" {
			s.Host = r.Host
		}
		if s.Started.IsZero() || r.Time.Before(s.Started) {
			s.Started = r.Time
		}
		if r.Time.After(s.Updated) {
			s.Updated = r.Time
		}
		switch r.Type {
		case TypeSource:
			s.SourceCount++
		case TypeFailure:
			s.FailedCalls++
		case TypeStop:
			if r.Decision == "block" {
				s.Blocked++
			}
		}
	}
	return s
}

// blobPath is where the bytes of hash ("sha256:<hex>") are kept.
func (j *Journal) blobPath(hash string) (string, error) {
	h, ok := strings.CutPrefix(hash, "sha256:")
	if !ok || len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		// A forged or damaged journal line: typed, never INTERNAL.
		return "", retrieve.Errorf(retrieve.CodeParseFailed, "the session journal names a blob %q that is not a sha256 hash", hash).
			WithHint("the journal line was edited or damaged; this source cannot be re-checked")
	}
	return filepath.Join(j.Dir, "blobs", h), nil
}

// PutBlob keeps b under its hash (written once; a temporary file renamed
// into place, so a reader never sees half a blob).
func (j *Journal) PutBlob(hash string, b []byte) error {
	p, err := j.blobPath(hash)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// OpenBlob opens the bytes kept under hash.
func (j *Journal) OpenBlob(hash string) (io.ReadCloser, error) {
	p, err := j.blobPath(hash)
	if err != nil {
		return nil, err
	}
	f, _, err := workspace.OpenRegular(p, true)
	if err != nil {
		return nil, retrieve.Errorf(retrieve.CodeNotFound, "the bytes of %s are no longer kept in the session journal", hash).WithErr(err)
	}
	return f, nil
}

// RemoveBlob deletes a blob once its bytes are in the store.
func (j *Journal) RemoveBlob(hash string) {
	if p, err := j.blobPath(hash); err == nil {
		_ = os.Remove(p)
	}
}
