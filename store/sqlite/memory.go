package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// memoryMigrations is the schema of the memory index: one precomputed
// overview row per note (memory_notes) and an FTS5 table over title, tags
// and body whose rowid is the note's rowid.
var memoryMigrations = []string{
	`CREATE TABLE memory_notes (
		rowid INTEGER PRIMARY KEY,
		dir TEXT NOT NULL,
		path TEXT NOT NULL,
		tier TEXT NOT NULL,
		note_id TEXT NOT NULL,
		title TEXT NOT NULL,
		tags TEXT NOT NULL,
		size INTEGER NOT NULL,
		mtime_ns INTEGER NOT NULL,
		hash TEXT NOT NULL,
		warning TEXT NOT NULL,
		indexed_ns INTEGER NOT NULL,
		UNIQUE (dir, path)
	);
	CREATE VIRTUAL TABLE memory_fts USING fts5(title, tags, body, tokenize = 'porter unicode61 remove_diacritics 2');`,
	// Version 2: the application analyzes the text (intl.IndexText: NFKC,
	// case and Latin diacritics folded, English/Russian stems, CJK bigrams)
	// and FTS5 only splits the terms on spaces (the ascii tokenizer keeps
	// every non-ASCII character in its term). The index holds no copy of
	// the text (contentless); the body is kept in memory_notes for the
	// snippet. The rows are dropped so that the next query re-indexes.
	`DROP TABLE memory_fts;
	DELETE FROM memory_notes;
	ALTER TABLE memory_notes ADD COLUMN body TEXT NOT NULL DEFAULT '';
	CREATE VIRTUAL TABLE memory_terms USING fts5(title, tags, body, content = '', contentless_delete = 1, tokenize = 'ascii');`,
	// Version 3: the freshness check reads every note's state (path, size,
	// mtime, hash); from this covering index it reads ~100 bytes a note
	// instead of the rows, which hold the bodies (400 MB at 100,000 notes).
	`CREATE INDEX memory_notes_state ON memory_notes (dir, path, size, mtime_ns, hash, indexed_ns);`,
	// Version 4 (issue 30): notes carry their evidence and time. The
	// evidence of each note (its retrieve: frontmatter block) is indexed by
	// source, retrieval id and session; marks (stale with the diff, fresh,
	// outdated, forgotten) are events that no reindex touches; recorded_ns
	// is when the note was written (its created), the start of its
	// transaction time. The rows are dropped so that the next query
	// re-indexes every note with its evidence and created time.
	`DROP TABLE memory_terms;
	DELETE FROM memory_notes;
	ALTER TABLE memory_notes ADD COLUMN recorded_ns INTEGER NOT NULL DEFAULT 0;
	CREATE VIRTUAL TABLE memory_terms USING fts5(title, tags, body, content = '', contentless_delete = 1, tokenize = 'ascii');
	CREATE TABLE memory_evidence (
		dir TEXT NOT NULL,
		path TEXT NOT NULL,
		ord INTEGER NOT NULL,
		note_id TEXT NOT NULL,
		session TEXT NOT NULL,
		source_key TEXT NOT NULL,
		retrieval_id TEXT NOT NULL,
		evidence TEXT NOT NULL,
		PRIMARY KEY (dir, path, ord)
	);
	CREATE INDEX memory_evidence_source ON memory_evidence (dir, source_key);
	CREATE INDEX memory_evidence_retrieval ON memory_evidence (dir, retrieval_id);
	CREATE INDEX memory_evidence_session ON memory_evidence (dir, session);
	CREATE TABLE memory_marks (
		id INTEGER PRIMARY KEY,
		dir TEXT NOT NULL,
		path TEXT NOT NULL,
		note_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		at_ns INTEGER NOT NULL,
		by_who TEXT NOT NULL,
		reference TEXT NOT NULL,
		reason TEXT NOT NULL,
		detail TEXT NOT NULL
	);
	CREATE INDEX memory_marks_path ON memory_marks (dir, path, at_ns);`,
	// Version 5 (issue 31.5): impact lists, top k without scoring every
	// match (memoryimpact.go). A list is built the first time its term is
	// searched, so the existing rows stay.
	`CREATE TABLE memory_impact_terms (
		term TEXT PRIMARY KEY,
		theta REAL NOT NULL,
		theta_path TEXT NOT NULL,
		avgdl REAL NOT NULL,
		df INTEGER NOT NULL,
		nrows INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE memory_impacts (
		term TEXT NOT NULL,
		impact REAL NOT NULL,
		path TEXT NOT NULL,
		note INTEGER NOT NULL,
		PRIMARY KEY (term, impact DESC, path, note)
	) WITHOUT ROWID;
	CREATE INDEX memory_impacts_note ON memory_impacts (note);`,
	memoryCountsMigration,
	memoryVersionsMigration,
	memoryPostingsMigration,
}

// MemoryIndex is the SQLite implementation of memory.Index.
type MemoryIndex struct {
	db        *DB
	own       bool
	search    *lazyStmt
	searchTie *lazyStmt
	top       *lazyStmt
	dirs      *lazyStmt
	states    *lazyStmt
	retired   *lazyStmt
	// listed, counted and theta are impactEligible's look-ups
	// (memoryimpact.go).
	listed  *lazyStmt
	counted *lazyStmt
	theta   *lazyStmt
	// postings reads a list's blob (listPostings), longer its flag
	// (exactPrefixes).
	postings *lazyStmt
	longer   *lazyStmt
}

var (
	_ memory.Index        = (*MemoryIndex)(nil)
	_ memory.IndexCounter = (*MemoryIndex)(nil)
	_ memory.VersionIndex = (*MemoryIndex)(nil)
)

// The BM25 column weights: a hit in the title counts 10 times a hit in the
// body, a hit in the tags 5 times.
const memorySearchSQL = `SELECT n.path, n.tier, n.note_id, n.title, n.tags, n.warning,
	-bm25(memory_terms, 10.0, 5.0, 1.0) AS score, n.body
FROM memory_terms JOIN memory_notes n ON n.rowid = memory_terms.rowid
WHERE memory_terms MATCH ? AND n.dir = ? %s
	AND n.recorded_ns <= ?
	AND (? OR NOT EXISTS (SELECT 1 FROM memory_marks r WHERE r.dir = n.dir AND r.path = n.path AND r.note_id = n.note_id
		AND r.kind IN ('outdated', 'forgotten') AND r.at_ns <= ?))
ORDER BY bm25(memory_terms, 10.0, 5.0, 1.0), n.path
LIMIT ?`

// memoryTopSQL is the same search, without a tier, when the store holds
// one memory folder (the folder and the tier are columns of memory_notes,
// so filtering on them needs the full query). FTS5 scores every match once
// (m); the score of the limit-th best (cut) keeps the matches that can be
// in the answer — the best limit and every note tied with the last — and
// only those are joined with memory_notes to be ordered by score, then
// path. The sorter so holds a rowid and a score per match, not the note's
// body (which made a query matching every note of 100,000 sort ~400 MB).
const memoryTopSQL = `WITH m AS MATERIALIZED (
	SELECT rowid, bm25(memory_terms, 10.0, 5.0, 1.0) AS s FROM memory_terms WHERE memory_terms MATCH ?),
cut AS (SELECT s FROM m ORDER BY s LIMIT 1 OFFSET ?)
SELECT n.path, n.tier, n.note_id, n.title, n.tags, n.warning, -m.s AS score, n.body
FROM m JOIN memory_notes n ON n.rowid = m.rowid
WHERE (SELECT s FROM cut) IS NULL OR m.s <= (SELECT s FROM cut)
ORDER BY m.s, n.path
LIMIT ?`

// memoryDirsSQL returns the smallest and largest memory folder of the
// store (two index look-ups): equal, the store holds one folder.
const memoryDirsSQL = `SELECT (SELECT dir FROM memory_notes ORDER BY dir LIMIT 1), (SELECT dir FROM memory_notes ORDER BY dir DESC LIMIT 1)`

// NewMemoryIndex applies the memory migrations to db and prepares the
// statements. Closing the index does not close db.
func NewMemoryIndex(ctx context.Context, db *DB) (*MemoryIndex, error) {
	if err := db.Migrate(ctx, "memory", memoryMigrations); err != nil {
		return nil, wrapStore(db.path, err)
	}
	d := db.db
	m := &MemoryIndex{db: db,
		search:    newLazyStmt(d, fmt.Sprintf(memorySearchSQL, "")),
		searchTie: newLazyStmt(d, fmt.Sprintf(memorySearchSQL, "AND n.tier = ?")),
		top:       newLazyStmt(d, memoryTopSQL),
		dirs:      newLazyStmt(d, memoryDirsSQL),
		states:    newLazyStmt(d, `SELECT path, size, mtime_ns, hash, indexed_ns FROM memory_notes WHERE dir = ?`),
		retired:   newLazyStmt(d, `SELECT EXISTS (SELECT 1 FROM memory_marks WHERE kind IN ('outdated', 'forgotten'))`),
		listed:    newLazyStmt(d, impactListedSQL),
		counted:   newLazyStmt(d, countMatchesSQL),
		theta:     newLazyStmt(d, `SELECT theta FROM memory_impact_terms WHERE term = ?`),
		postings:  newLazyStmt(d, `SELECT postings FROM memory_impact_postings WHERE term = ?`),
		longer:    newLazyStmt(d, `SELECT longer FROM memory_impact_terms WHERE term = ?`),
	}
	return m, nil
}

// OpenMemoryIndex opens the store file at path for the memory index alone.
// Closing the index closes the file.
func OpenMemoryIndex(ctx context.Context, path string) (*MemoryIndex, error) {
	db, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	m, err := NewMemoryIndex(ctx, db)
	if err != nil {
		db.Close()
		return nil, err
	}
	m.own = true
	return m, nil
}

// Close releases the statements (and the file when the index opened it).
func (m *MemoryIndex) Close() error {
	for _, s := range []*lazyStmt{m.search, m.searchTie, m.top, m.dirs, m.states, m.retired, m.listed, m.counted, m.theta, m.postings, m.longer} {
		s.Close()
	}
	if m.own {
		return m.db.Close()
	}
	return nil
}

// MemoryStates implements memory.Index.
func (m *MemoryIndex) MemoryStates(ctx context.Context, dir string) (map[string]memory.FileState, error) {
	var out map[string]memory.FileState
	err := retry(ctx, func() error {
		rows, err := m.states.QueryContext(ctx, dir)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.FileStates(rows)
		return err
	})
	if err != nil {
		return nil, storeErr(m.db.path, "cannot read the memory index", err)
	}
	return out, nil
}

// MemoryCount implements memory.IndexCounter: the ("notes", "") row of
// memory_counts, which the writes keep in their transaction (a count(*)
// over memory_notes_state cost a CLI full check 6 ms at 10,000 notes).
func (m *MemoryIndex) MemoryCount(ctx context.Context, dir string) (int, error) {
	var n int
	err := retry(ctx, func() error {
		err := m.db.db.QueryRowContext(ctx, `SELECT n FROM memory_counts WHERE dir = ? AND kind = 'notes' AND key = ''`, dir).Scan(&n)
		if err == sql.ErrNoRows {
			n, err = 0, nil
		}
		return err
	})
	if err != nil {
		return 0, storeErr(m.db.path, "cannot read the memory index", err)
	}
	return n, nil
}

// MemoryUpsert implements memory.Index.
func (m *MemoryIndex) MemoryUpsert(ctx context.Context, dir string, notes []memory.IndexNote) error {
	if len(notes) == 0 {
		return nil
	}
	now := time.Now().UnixNano()
	err := retry(ctx, func() error {
		tx, err := m.db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// Three phases, so that no statement interleaves writes to the FTS
		// table with statements that open a savepoint: each savepoint makes
		// FTS5 flush its pending terms into a new segment, which made bulk
		// indexing an order of magnitude slower.
		find, err := tx.PrepareContext(ctx, `SELECT rowid FROM memory_notes WHERE dir = ? AND path = ?`)
		if err != nil {
			return err
		}
		defer find.Close()
		if err := updateCounts(ctx, tx, dir, notePaths(notes), notes); err != nil {
			return err
		}
		if err := keepVersions(ctx, tx, dir, notePaths(notes), notes); err != nil {
			return err
		}
		var old []int64
		for i := range notes {
			var rowid int64
			switch err := find.QueryRowContext(ctx, dir, notes[i].Path).Scan(&rowid); err {
			case nil:
				old = append(old, rowid)
			case sql.ErrNoRows:
			default:
				return err
			}
		}
		for _, rowid := range old {
			if err := deleteImpacts(ctx, tx, rowid); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_terms WHERE rowid = ?`, rowid); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_notes WHERE rowid = ?`, rowid); err != nil {
				return err
			}
		}
		if err := upsertEvidence(ctx, tx, dir, notes); err != nil {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, size, mtime_ns, hash, warning, indexed_ns, body, recorded_ns)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		rowids := make([]int64, len(notes))
		for i := range notes {
			n := &notes[i]
			n.Analyze()
			tags := n.Tags
			if tags == nil {
				tags = []string{}
			}
			tj, _ := json.Marshal(tags)
			r, err := ins.ExecContext(ctx, dir, n.Path, n.Tier, n.ID, n.Title, string(tj), n.Size, n.ModTime, n.Hash, n.Warning, now, n.Body, n.Recorded)
			if err != nil {
				return err
			}
			if rowids[i], err = r.LastInsertId(); err != nil {
				return err
			}
		}
		fts, err := tx.PrepareContext(ctx, `INSERT INTO memory_terms (rowid, title, tags, body) VALUES (?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer fts.Close()
		for i := range notes {
			if _, err := fts.ExecContext(ctx, rowids[i], notes[i].TitleTerms, notes[i].TagTerms, notes[i].BodyTerms); err != nil {
				return err
			}
		}
		if err := writeImpacts(ctx, tx, notes, rowids); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return storeErr(m.db.path, "cannot write the memory index", err)
	}
	return nil
}

// MemoryDelete implements memory.Index.
func (m *MemoryIndex) MemoryDelete(ctx context.Context, dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	err := retry(ctx, func() error {
		tx, err := m.db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := updateCounts(ctx, tx, dir, paths, nil); err != nil {
			return err
		}
		if err := keepVersions(ctx, tx, dir, paths, nil); err != nil {
			return err
		}
		for _, p := range paths {
			var rowid int64
			err := tx.QueryRowContext(ctx, `DELETE FROM memory_notes WHERE dir = ? AND path = ? RETURNING rowid`, dir, p).Scan(&rowid)
			if err == sql.ErrNoRows {
				continue
			}
			if err != nil {
				return err
			}
			if err := deleteImpacts(ctx, tx, rowid); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_terms WHERE rowid = ?`, rowid); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_evidence WHERE dir = ? AND path = ?`, dir, p); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return storeErr(m.db.path, "cannot write the memory index", err)
	}
	return nil
}

// MemoryReset implements memory.Index.
func (m *MemoryIndex) MemoryReset(ctx context.Context, dir string) error {
	err := retry(ctx, func() error {
		tx, err := m.db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// The lists rank the whole store: a reset changes it too much to
		// keep them (the next searches build them again).
		for _, t := range []string{"memory_impacts", "memory_impact_terms", "memory_impact_postings"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_terms WHERE rowid IN (SELECT rowid FROM memory_notes WHERE dir = ?)`, dir); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_notes WHERE dir = ?`, dir); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_evidence WHERE dir = ?`, dir); err != nil {
			return err
		}
		if err := resetCounts(ctx, tx, dir); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return storeErr(m.db.path, "cannot write the memory index", err)
	}
	return nil
}

// MemorySearch implements memory.Index.
func (m *MemoryIndex) MemorySearch(ctx context.Context, q memory.IndexQuery) ([]memory.IndexHit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	q, err := m.exactPrefixes(ctx, q)
	if err != nil {
		return nil, storeErr(m.db.path, "cannot search the memory index", err)
	}
	match := ftsMatch(q)
	if match == "" {
		return nil, nil
	}
	var hits []memory.IndexHit
	scan := func(rows *sql.Rows) (err error) {
		hits, err = scanHits(rows, &q)
		return err
	}
	asOf := q.AsOf
	if asOf == 0 {
		asOf = math.MaxInt64
	}
	err = retry(ctx, func() error {
		hits = hits[:0]
		if q.Tier == "" && q.AsOf == 0 {
			var lo, hi sql.NullString
			if err := m.dirs.QueryRowContext(ctx).Scan(&lo, &hi); err != nil {
				return err
			}
			// The fast path knows no marks: it serves a store where no
			// note was retired (or a search that keeps them).
			retired := false
			if !q.Retired {
				if err := m.retired.QueryRowContext(ctx).Scan(&retired); err != nil {
					return err
				}
			}
			if lo.String == q.Dir && hi.String == q.Dir && !retired {
				var ok bool
				var err error
				if hits, ok, err = m.impactSearch(ctx, q, limit); err != nil || ok {
					return err
				}
				rows, err := m.top.QueryContext(ctx, match, limit-1, limit)
				if err != nil {
					return err
				}
				return scan(rows)
			}
		}
		var rows *sql.Rows
		var err error
		if q.Tier != "" {
			rows, err = m.searchTie.QueryContext(ctx, match, q.Dir, q.Tier, asOf, q.Retired, asOf, limit)
		} else {
			rows, err = m.search.QueryContext(ctx, match, q.Dir, asOf, q.Retired, asOf, limit)
		}
		if err != nil {
			return err
		}
		return scan(rows)
	})
	if err != nil {
		if strings.Contains(err.Error(), "fts5") || strings.Contains(err.Error(), "syntax error") {
			return nil, retrieve.Errorf(retrieve.CodeSearchError, "the search query cannot be run: %v", err).
				WithHint("use plain words; quotes and operators are not needed")
		}
		return nil, storeErr(m.db.path, "cannot search the memory index", err)
	}
	return hits, nil
}

// scanHits reads the hits of a search (the columns of memorySearchSQL),
// each with its snippet, and closes rows.
func scanHits(rows *sql.Rows, q *memory.IndexQuery) ([]memory.IndexHit, error) {
	defer rows.Close()
	var hits []memory.IndexHit
	for rows.Next() {
		var h memory.IndexHit
		var tags, body string
		if err := rows.Scan(&h.Path, &h.Tier, &h.ID, &h.Title, &tags, &h.Warning, &h.Score, &body); err != nil {
			return nil, err
		}
		h.Snippet = intl.Snippet(body, q.Matches, memory.SnippetTokens)
		_ = json.Unmarshal([]byte(tags), &h.Tags)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// ftsMatch writes the query as an FTS5 expression: each phrase quoted (its
// terms adjacent), the last term starred when it is a prefix, joined by AND
// or OR.
func ftsMatch(q memory.IndexQuery) string {
	parts := make([]string, 0, len(q.Phrases))
	for _, p := range q.Phrases {
		if len(p.Terms) == 0 {
			continue
		}
		s := `"` + strings.ReplaceAll(strings.Join(p.Terms, " "), `"`, `""`) + `"`
		if p.Prefix {
			s += "*"
		}
		parts = append(parts, s)
	}
	op := " AND "
	if q.Any {
		op = " OR "
	}
	return strings.Join(parts, op)
}
