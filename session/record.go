package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/engine"
	"github.com/retrieve-dev/retrieve/policy"
)

// Limits of the recorder.
const (
	// DefaultMaxBlob is the largest file whose bytes the journal keeps
	// until they reach the store; larger ones keep their hashes only.
	DefaultMaxBlob = 8 << 20
	// DefaultMaxList caps the names recorded from one listing.
	DefaultMaxList = 1000
	// hostLineLimit is the line length past which Claude Code's Read cuts
	// a line.
	hostLineLimit = 2000
)

// Recorder turns hook events into journal records. It reads files through
// Files (the workspace's file source: its root and deny list) and hashes
// them with Engine, which must record nothing (no store): the hook stays
// fast, and the records reach the ledger later (Service.Ingest).
type Recorder struct {
	Journal *Journal
	Root    string
	Files   retrieve.Source
	Engine  *engine.Engine
	Now     func() time.Time
	MaxBlob int64
	MaxList int
}

// Record records what ev says the agent saw and returns the records
// written. Events with nothing to record write nothing.
func (r *Recorder) Record(ctx context.Context, ev *Event) ([]Record, error) {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.MaxBlob <= 0 {
		r.MaxBlob = DefaultMaxBlob
	}
	if r.MaxList <= 0 {
		r.MaxList = DefaultMaxList
	}
	var recs []Record
	switch ev.Name {
	case EventRead:
		for _, rd := range ev.Reads {
			recs = append(recs, r.read(ctx, ev, rd))
		}
	case EventList:
		for i, p := range ev.Paths {
			if i == r.MaxList {
				last := &recs[len(recs)-1]
				last.Notes = append(last.Notes, fmt.Sprintf("%d more names of this listing were not recorded", len(ev.Paths)-r.MaxList))
				break
			}
			recs = append(recs, r.listed(ctx, ev, p))
		}
	case EventFetch:
		recs = append(recs, r.fetched(ev))
	case EventFailure:
		rec := r.base(ev, TypeFailure)
		rec.Error = &retrieve.ErrorInfo{Code: retrieve.CodeUpstreamStatus, Message: clip(ev.Error, 500), Hint: "the host tool failed; nothing was read", Alternatives: []string{}}
		recs = append(recs, rec)
	default:
		return nil, nil
	}
	return recs, r.Journal.Append(ev.SessionID, recs...)
}

func (r *Recorder) base(ev *Event, typ string) Record {
	return Record{Type: typ, ID: retrieve.NewID(), Session: ev.SessionID, Time: r.Now().UTC(), Host: ev.Host, Tool: ev.Tool, ToolUseID: ev.ToolUseID}
}

// abs resolves a path the host gave against its working directory.
func abs(cwd, p string) string {
	if filepath.IsAbs(p) || cwd == "" {
		return p
	}
	return filepath.Join(cwd, p)
}

func (r *Recorder) fail(rec Record, err error) Record {
	ae := retrieve.AsError(err)
	rec.Seen = SeenMissing
	if refusedCode[ae.Code] {
		rec.Seen = SeenRefused
		rec.Notes = append(rec.Notes, "The path is outside the workspace root or on the deny list: retrieve did not read it, and keeps no hash of it")
	}
	rec.Error = ae.Info()
	return rec
}

var refusedCode = map[retrieve.Code]bool{retrieve.CodeOutsideRoot: true, retrieve.CodeSensitivePath: true, retrieve.CodePermissionDenied: true}

func (r *Recorder) read(ctx context.Context, ev *Event, rd Read) Record {
	rec := r.base(ev, TypeSource)
	rec.Kind = "file"
	target := abs(ev.Cwd, rd.Path)
	rel, err := policy.Rel(r.Root, target)
	rec.Reference = rel
	if err != nil {
		rec.Reference = rd.Path
		return r.fail(rec, err)
	}
	doc, err := r.Files.Fetch(ctx, &retrieve.Request{Target: rel})
	if err != nil {
		return r.fail(rec, err)
	}
	defer doc.Body.Close()
	var blob []byte
	if doc.Body != nil && doc.Size >= 0 && doc.Size <= r.MaxBlob {
		blob, err = io.ReadAll(io.LimitReader(doc.Body, r.MaxBlob+1))
		if err != nil {
			return r.fail(rec, err)
		}
		doc.Body = io.NopCloser(bytes.NewReader(blob))
	}
	req := retrieve.Request{Target: rel, Source: "file", NoRecord: true}
	switch {
	case rd.End < 0:
		// The tool returned no line (an empty file, or an offset past the end).
	case rd.Start > 0 && rd.End >= rd.Start:
		req.Target = fmt.Sprintf("%s:%d-%d", rel, rd.Start, rd.End)
	case rd.Start > 1:
		req.Target = fmt.Sprintf("%s:%d-", rel, rd.Start)
	}
	res, err := r.Engine.Observe(ctx, req, "file", doc, r.Now())
	if err != nil {
		return r.fail(rec, err)
	}
	rec.Reference = res.Citation.Reference
	rec.Hash = deref(res.Citation.Hash)
	rec.SourceHash = deref(res.Citation.SourceHash)
	if blob != nil && rec.SourceHash != "" {
		if err := r.Journal.PutBlob(rec.SourceHash, blob); err == nil {
			rec.Blob = rec.SourceHash
		}
	} else if blob == nil {
		rec.Notes = append(rec.Notes, fmt.Sprintf("The file is larger than %d bytes: its hashes are recorded, not its bytes", r.MaxBlob))
	}
	data, isText := res.Retrieved.Data.(string)
	switch {
	case !isText || res.Retrieved.Format == "binary":
		rec.Seen = SeenUnchecked
		rec.Notes = append(rec.Notes, "The file is not text (an image, a PDF…): the host showed it to the model in its own form; the hash covers the whole file")
	case rd.Content == nil:
		rec.Seen = SeenUnchecked
		rec.Notes = append(rec.Notes, "The host did not pass what its tool returned: the span and its hash on disk are recorded, not compared")
	case rd.End < 0:
		rec.Seen = SeenUnchecked
		rec.Notes = append(rec.Notes, "The tool returned no lines")
	default:
		seen, note := compareLines(data, *rd.Content, rd.Numbered)
		rec.Seen = seen
		if note != "" {
			rec.Notes = append(rec.Notes, note)
		}
		if seen == SeenMismatch {
			rec.ToolHash = hashString(*rd.Content)
		}
	}
	return rec
}

// compareLines compares the lines on disk with those a tool returned,
// after removing the tool's line-number prefixes. Claude Code cuts lines
// longer than 2,000 characters; a cut line matches its beginning.
func compareLines(disk, tool string, numbered bool) (string, string) {
	want := splitLines(disk)
	got := splitLines(tool)
	if numbered {
		got = stripNumbers(got)
	}
	cut := false
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) {
			return SeenMismatch, fmt.Sprintf("The tool returned %d lines where the file has %d in this span", len(got), len(want))
		}
		w, g := strings.TrimRight(want[i], "\r"), strings.TrimRight(got[i], "\r")
		if w == g {
			continue
		}
		if utf8.RuneCountInString(w) > hostLineLimit && strings.HasPrefix(w, g) {
			cut = true
			continue
		}
		return SeenMismatch, fmt.Sprintf("The tool returned other text than the file holds: the first difference is at line %d of the span", i+1)
	}
	if cut {
		return SeenMatch, "The host cut lines longer than 2,000 characters; their beginnings match"
	}
	return SeenMatch, ""
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// stripNumbers removes "   12→" or "   12\t" prefixes when every line has
// one; otherwise the lines are returned as they are.
func stripNumbers(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		j := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == 0 {
			return lines
		}
		switch {
		case strings.HasPrefix(t[j:], "→"):
			out[i] = t[j+len("→"):]
		case strings.HasPrefix(t[j:], "\t"):
			out[i] = t[j+1:]
		default:
			return lines
		}
	}
	return out
}

func (r *Recorder) listed(ctx context.Context, ev *Event, p string) Record {
	rec := r.base(ev, TypeSource)
	rec.Kind = "listed"
	rel, err := policy.Rel(r.Root, abs(ev.Cwd, p))
	rec.Reference = rel
	if err != nil {
		rec.Reference = p
		return r.fail(rec, err)
	}
	// Opened to apply the root and deny rules, closed unread.
	doc, err := r.Files.Fetch(ctx, &retrieve.Request{Target: rel})
	if err != nil {
		return r.fail(rec, err)
	}
	doc.Body.Close()
	rec.Seen = SeenListed
	rec.Notes = append(rec.Notes, "The agent saw this name in a listing, not the file's content")
	return rec
}

func (r *Recorder) fetched(ev *Event) Record {
	rec := r.base(ev, TypeSource)
	rec.Kind = "web"
	rec.Reference = ev.URL
	rec.Seen = SeenUnchecked
	if ev.Summary {
		rec.Seen = SeenSummary
	}
	if ev.Content != nil {
		rec.Hash = hashString(*ev.Content)
		if err := r.Journal.PutBlob(rec.Hash, []byte(*ev.Content)); err == nil {
			rec.Blob = rec.Hash
		}
	}
	if ev.Status != 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf("The host reported HTTP status %d", ev.Status))
	}
	if ev.Summary {
		rec.Notes = append(rec.Notes, "The host's tool returned a model's answer about the page, not the page: this records which URL the agent was told about, when, and what it was told. It proves neither what the page said nor that the answer is faithful; retrieve the URL to cite the page itself")
	} else {
		rec.Notes = append(rec.Notes, "The host's fetch is recorded as the host reported it; retrieve did not fetch the page, so it proves what the agent was given, not what the page said")
	}
	return rec
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// clip shortens s to n characters, at a character boundary.
func clip(s string, n int) string {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
