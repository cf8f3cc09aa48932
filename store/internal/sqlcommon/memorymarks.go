package sqlcommon

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve/memory"
)

// EvidenceRow is one row of memory_evidence.
type EvidenceRow struct {
	Path, NoteID, Session, SourceKey, RetrievalID, JSON string
	Ord                                                 int
}

// EvidenceRows are the memory_evidence rows of notes: one per evidence,
// and one without evidence for a note linked to a session only, so that
// `forget --session` finds it.
func EvidenceRows(notes []memory.IndexNote) []EvidenceRow {
	var out []EvidenceRow
	for i := range notes {
		n := &notes[i]
		for j, e := range n.Evidence {
			b, _ := json.Marshal(e)
			out = append(out, EvidenceRow{Path: n.Path, NoteID: n.ID, Session: n.Session, SourceKey: memory.SourceKey(e.Reference),
				RetrievalID: e.RetrievalID, JSON: string(b), Ord: j})
		}
		if len(n.Evidence) == 0 && n.Session != "" {
			out = append(out, EvidenceRow{Path: n.Path, NoteID: n.ID, Session: n.Session, JSON: "{}"})
		}
	}
	return out
}

// MarksQuery is the query of the marks of dir made at or before asOf (all
// when zero), of paths (all when nil), oldest first, and its arguments.
func MarksQuery(d Dialect, dir string, paths []string, asOf time.Time) (string, []any) {
	args := []any{dir}
	q := `SELECT path, note_id, kind, at_ns, by_who, reference, reason, detail FROM memory_marks WHERE dir = ` + d.Param(1)
	if !asOf.IsZero() {
		args = append(args, asOf.UnixNano())
		q += ` AND at_ns <= ` + d.Param(len(args))
	}
	if paths != nil && len(paths) == 0 {
		q += ` AND 1 = 0`
	} else if paths != nil {
		ps := make([]string, len(paths))
		for i, p := range paths {
			args = append(args, p)
			ps[i] = d.Param(len(args))
		}
		q += ` AND path IN (` + strings.Join(ps, ", ") + `)`
	}
	return q + ` ORDER BY at_ns, id`, args
}

// ScanMarks reads the rows of MarksQuery.
func ScanMarks(rows Rows) ([]memory.Mark, error) {
	var out []memory.Mark
	for rows.Next() {
		var m memory.Mark
		var at int64
		if err := rows.Scan(&m.Path, &m.NoteID, &m.Kind, &at, &m.By, &m.Reference, &m.Reason, &m.Detail); err != nil {
			return nil, err
		}
		m.At = time.Unix(0, at).UTC()
		out = append(out, m)
	}
	return out, rows.Err()
}

// EvidenceQuery is the query of the evidence rows of dir that cite
// source (a memory.SourceKey), retrievalID or session (all when the three
// are ""), and its arguments.
func EvidenceQuery(d Dialect, dir, source, retrievalID, session string) (string, []any) {
	args := []any{dir}
	q := `SELECT path, note_id, session, evidence FROM memory_evidence WHERE dir = ` + d.Param(1)
	var or []string
	for _, c := range [][2]string{{"source_key", source}, {"retrieval_id", retrievalID}, {"session", session}} {
		if c[1] != "" {
			args = append(args, c[1])
			or = append(or, c[0]+" = "+d.Param(len(args)))
		}
	}
	if len(or) > 0 {
		q += ` AND (` + strings.Join(or, " OR ") + `)`
	}
	return q + ` ORDER BY path, ord`, args
}

// ScanEvidence reads the rows of EvidenceQuery.
func ScanEvidence(rows Rows) ([]memory.IndexEvidence, error) {
	var out []memory.IndexEvidence
	for rows.Next() {
		var e memory.IndexEvidence
		var js string
		if err := rows.Scan(&e.Path, &e.NoteID, &e.Session, &js); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(js), &e.Evidence)
		out = append(out, e)
	}
	return out, rows.Err()
}
