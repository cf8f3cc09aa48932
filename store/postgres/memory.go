package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// MemoryIndex is the PostgreSQL implementation of memory.Index: the
// notes in memory_notes with a generated tsvector and a GIN index, ranked
// with ts_rank_cd and cut with ts_headline (see docs/store.md for how the
// ranking compares with SQLite FTS5's bm25).
type MemoryIndex struct {
	db   *DB
	own  bool
	bulk atomic.Int32 // bulk loads under way (BeginBulk)
	lz4  lz4State
}

var (
	_ memory.Index        = (*MemoryIndex)(nil)
	_ memory.IndexCounter = (*MemoryIndex)(nil)
	_ memory.BulkIndex    = (*MemoryIndex)(nil)
)

// NewMemoryIndex returns the memory index of an open store (whose
// migrations Open applied). Closing the index does not close db.
func NewMemoryIndex(db *DB) *MemoryIndex { return &MemoryIndex{db: db} }

// OpenMemoryIndex opens the store at rawURL for the memory index alone.
// Closing the index closes the pool.
func OpenMemoryIndex(ctx context.Context, rawURL string) (*MemoryIndex, error) {
	db, err := Open(ctx, rawURL, Options{})
	if err != nil {
		return nil, err
	}
	return &MemoryIndex{db: db, own: true}, nil
}

// Close closes the pool when the index opened it.
func (m *MemoryIndex) Close() error {
	if m.own {
		return m.db.Close()
	}
	return nil
}

// MemoryStates implements memory.Index.
func (m *MemoryIndex) MemoryStates(ctx context.Context, dir string) (map[string]memory.FileState, error) {
	var out map[string]memory.FileState
	_, err := m.db.retry(ctx, func() error {
		rows, err := m.db.pool.Query(ctx, `SELECT path, size, mtime_ns, hash, indexed_ns FROM memory_notes WHERE dir = $1`, dir)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlcommon.FileStates(rows)
		return err
	})
	if err != nil {
		return nil, wrap(m.db.where, "cannot read the memory index", err)
	}
	return out, nil
}

// MemoryCount implements memory.IndexCounter: the sum of the ("notes", "")
// rows of memory_counts (MemoryCounts), not a count of memory_notes.
func (m *MemoryIndex) MemoryCount(ctx context.Context, dir string) (int, error) {
	var n int
	_, err := m.db.retry(ctx, func() error {
		return m.db.pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::bigint FROM memory_counts WHERE dir = $1 AND kind = 'notes' AND key = ''`, dir).Scan(&n)
	})
	if err != nil {
		return 0, wrap(m.db.where, "cannot read the memory index", err)
	}
	return n, nil
}

// memoryLoadColumns are the columns a bulk load copies, in order (tsv as
// a tsvectorValue).
var memoryLoadColumns = []string{"dir", "path", "tier", "note_id", "title", "tags", "tags_text", "body", "size", "mtime_ns", "hash", "warning", "indexed_ns", "tsv", "recorded_ns"}

// MemoryUpsert implements memory.Index. In a bulk load (BeginBulk) the
// rows, new after MemoryReset, are copied (COPY, one stream per batch);
// otherwise each is an INSERT ... ON CONFLICT of one pipelined batch, which
// replaces the row of the same path.
func (m *MemoryIndex) MemoryUpsert(ctx context.Context, dir string, notes []memory.IndexNote) error {
	if len(notes) == 0 {
		return nil
	}
	rows := memoryRows(dir, notes, time.Now().UnixNano())
	paths := make([]string, len(notes))
	for i := range notes {
		paths[i] = notes[i].Path
	}
	if m.bulk.Load() > 0 {
		_, err := m.db.retry(ctx, func() error {
			return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
				if err := m.lz4.use(ctx, tx); err != nil {
					return err
				}
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{"memory_notes"}, memoryLoadColumns, pgx.CopyFromRows(rows)); err != nil {
					return err
				}
				b := &pgx.Batch{}
				queueEvidence(b, dir, notes)
				writeImpacts(b, dir, paths)
				return tx.SendBatch(ctx, b).Close()
			})
		})
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23505" {
			if err != nil {
				return wrap(m.db.where, "cannot write the memory index", err)
			}
			return nil
		}
		// Another writer indexed some of these paths meanwhile: upsert.
	}
	_, err := m.db.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
			if err := m.lz4.use(ctx, tx); err != nil {
				return err
			}
			b := &pgx.Batch{}
			queueKeepVersions(b, dir, memoryPaths(notes), notes)
			deleteImpacts(b, dir, paths)
			for _, r := range rows {
				b.Queue(`INSERT INTO memory_notes (dir, path, tier, note_id, title, tags, tags_text, body, size, mtime_ns, hash, warning, indexed_ns, tsv, recorded_ns)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::tsvector, $15)
					ON CONFLICT (dir, path) DO UPDATE SET tier = excluded.tier, note_id = excluded.note_id, title = excluded.title,
						tags = excluded.tags, tags_text = excluded.tags_text, body = excluded.body, size = excluded.size,
						mtime_ns = excluded.mtime_ns, hash = excluded.hash, warning = excluded.warning, indexed_ns = excluded.indexed_ns,
						tsv = excluded.tsv, recorded_ns = excluded.recorded_ns`, r...)
			}
			queueEvidence(b, dir, notes)
			writeImpacts(b, dir, paths)
			return tx.SendBatch(ctx, b).Close()
		})
	})
	if err != nil {
		return wrap(m.db.where, "cannot write the memory index", err)
	}
	if len(notes) >= analyzeAfter && m.bulk.Load() == 0 {
		return m.analyze(ctx)
	}
	return nil
}

// lz4State says whether the server compresses with lz4 (PostgreSQL 14
// and later, built with it), asked once.
type lz4State struct {
	mu    sync.Mutex
	known bool
	ok    bool
}

// use makes tx compress the notes it writes with lz4 when the server can:
// a note's body and tsvector (2–10 KB) are compressed as they are stored,
// and pglz, the default, cost the server 2.6–3.4× lz4's time to insert
// 100,000 notes (docs/memory.md), for 15% less space.
func (c *lz4State) use(ctx context.Context, tx pgx.Tx) error {
	c.mu.Lock()
	known, ok := c.known, c.ok
	c.mu.Unlock()
	if !known {
		var has *bool
		err := tx.QueryRow(ctx, `SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&has)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no row: before PostgreSQL 14, pglz only
			return err
		}
		ok = has != nil && *has
		c.mu.Lock()
		c.known, c.ok = true, ok
		c.mu.Unlock()
	}
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, `SET LOCAL default_toast_compression = 'lz4'`)
	return err
}

// memoryRows are the rows of notes in memoryLoadColumns' order, built in
// parallel (a note's tsvector costs more than its share of the COPY).
func memoryRows(dir string, notes []memory.IndexNote, now int64) [][]any {
	rows := make([][]any, len(notes))
	workers := min(runtime.GOMAXPROCS(0), (len(notes)+63)/64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(notes); i += workers {
				n := &notes[i]
				tags := n.Tags
				if tags == nil {
					tags = []string{}
				}
				tj, _ := json.Marshal(tags)
				n.Analyze()
				tsv := tsvectorValue(weightedTerms{n.TitleTerms, 'A'}, weightedTerms{n.TagTerms, 'B'}, weightedTerms{n.BodyTerms, 'D'})
				rows[i] = []any{dir, n.Path, n.Tier, n.ID, stripNUL(n.Title), stripNUL(string(tj)), stripNUL(strings.Join(tags, " ")), stripNUL(n.Body),
					n.Size, n.ModTime, n.Hash, n.Warning, now, tsv, n.Recorded}
			}
		}()
	}
	wg.Wait()
	return rows
}

// tsvectorValue is the tsvector of fields, sent in PostgreSQL's binary
// form (a string would be parsed by pgx into this form first, and by the
// server's text input otherwise): every term a lexeme, its positions in
// term order across the fields (as the SQLite FTS5 columns count them),
// each with its field's weight; positions past the last one PostgreSQL
// keeps count as that one, once; lexemes sorted, as the server keeps
// them. It equals tsvectorLiteral's ::tsvector.
func tsvectorValue(fields ...weightedTerms) pgtype.TSVector {
	// Each distinct term once (at), each occurrence as its term's number:
	// then the terms are sorted, and the positions laid out term by term
	// in one array, in the order they came (increasing).
	type occurrence struct {
		lexeme int32
		pos    uint16
		weight byte
	}
	at := make(map[string]int32, 64)
	var words []string
	var occ []occurrence
	pos := 0
	for _, f := range fields {
		for t := range strings.FieldsSeq(f.terms) {
			pos++
			if strings.IndexByte(t, 0) >= 0 || !utf8.ValidString(t) {
				if t = stripNUL(t); t == "" {
					continue
				}
			}
			i, ok := at[t]
			if !ok {
				i = int32(len(words))
				at[t] = i
				words = append(words, t)
			}
			occ = append(occ, occurrence{i, uint16(min(pos, maxTSPosition)), f.weight})
		}
	}
	order := make([]int32, len(words)) // lexeme numbers in sorted order
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(words[a], words[b]) })
	lex := make([]pgtype.TSVectorLexeme, len(words))
	rank := make([]int32, len(words)) // a lexeme's place in lex
	for r, i := range order {
		rank[i] = int32(r)
		lex[r].Word = words[i]
	}
	start := make([]int32, len(words)+1)
	for _, o := range occ {
		start[rank[o.lexeme]+1]++
	}
	for r := range lex {
		start[r+1] += start[r]
	}
	all := make([]pgtype.TSVectorPosition, len(occ))
	for r := range lex {
		lex[r].Positions = all[start[r]:start[r]:start[r+1]]
	}
	// Positions past maxTSPosition all count as it, once (the first, of
	// the highest weight: the fields come in decreasing weight), and a
	// lexeme keeps maxTSPositions at most.
	for _, o := range occ {
		l := &lex[rank[o.lexeme]]
		if n := len(l.Positions); n >= maxTSPositions || n > 0 && l.Positions[n-1].Position == o.pos {
			continue
		}
		l.Positions = append(l.Positions, pgtype.TSVectorPosition{Position: o.pos, Weight: pgtype.TSVectorWeight(o.weight)})
	}
	return pgtype.TSVector{Lexemes: lex, Valid: true}
}

// analyze merges the GIN index's pending list and refreshes the table's
// statistics, after a bulk load: otherwise the planner filters every row
// of the folder (70 ms for 8,000 notes) instead of reading the index (0.1
// ms) until autovacuum catches up.
func (m *MemoryIndex) analyze(ctx context.Context) error {
	if _, err := m.db.pool.Exec(ctx, `SELECT gin_clean_pending_list('memory_notes_tsv'::regclass); ANALYZE memory_notes`); err != nil {
		return wrap(m.db.where, "cannot analyze the memory index", err)
	}
	return nil
}

// BeginBulk implements memory.BulkIndex: the upserts of a bulk load leave
// the GIN index's pending list and the statistics to EndBulk, once. When
// the table is empty (the store's only memory folder was just reset), the
// GIN index is dropped, and EndBulk builds it again in one sorted pass,
// several times faster than growing it row by row.
func (m *MemoryIndex) BeginBulk(ctx context.Context) error {
	if m.bulk.Add(1) > 1 {
		return nil
	}
	_, err := m.db.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
			var any bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memory_notes)`).Scan(&any); err != nil || any {
				return err
			}
			_, err := tx.Exec(ctx, `DROP INDEX IF EXISTS memory_notes_tsv`)
			return err
		})
	})
	if err != nil {
		m.bulk.Add(-1)
		return wrap(m.db.where, "cannot prepare the memory index for a bulk load", err)
	}
	return nil
}

// EndBulk implements memory.BulkIndex.
func (m *MemoryIndex) EndBulk(ctx context.Context) error {
	if m.bulk.Add(-1) > 0 {
		return nil
	}
	_, err := m.db.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '256MB'`); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `CREATE INDEX IF NOT EXISTS memory_notes_tsv ON memory_notes USING gin (tsv)`)
			return err
		})
	})
	if err != nil {
		return wrap(m.db.where, "cannot build the memory index", err)
	}
	return m.analyze(ctx)
}

// analyzeAfter is the batch size from which an upsert refreshes the
// table's statistics.
const analyzeAfter = 500

// stripNUL drops NUL characters and invalid UTF-8, which PostgreSQL text
// cannot hold.
func stripNUL(s string) string { return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "") }

// MemoryDelete implements memory.Index.
func (m *MemoryIndex) MemoryDelete(ctx context.Context, dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := m.db.retry(ctx, func() error {
		b := &pgx.Batch{}
		queueKeepVersions(b, dir, paths, nil)
		if err := m.db.pool.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		_, err := m.db.pool.Exec(ctx, deleteImpactsSQL, dir, paths)
		if err != nil {
			return err
		}
		_, err = m.db.pool.Exec(ctx, `DELETE FROM memory_notes WHERE dir = $1 AND path = ANY($2)`, dir, paths)
		if err != nil {
			return err
		}
		_, err = m.db.pool.Exec(ctx, `DELETE FROM memory_evidence WHERE dir = $1 AND path = ANY($2)`, dir, paths)
		return err
	})
	if err != nil {
		return wrap(m.db.where, "cannot write the memory index", err)
	}
	return nil
}

// MemoryReset implements memory.Index.
func (m *MemoryIndex) MemoryReset(ctx context.Context, dir string) error {
	_, err := m.db.retry(ctx, func() error {
		// The folder's lists go with its notes (the next searches build
		// them again).
		for _, t := range []string{"memory_impacts", "memory_impact_terms", "memory_impact_postings", "memory_notes", "memory_evidence"} {
			if _, err := m.db.pool.Exec(ctx, `DELETE FROM `+t+` WHERE dir = $1`, dir); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return wrap(m.db.where, "cannot write the memory index", err)
	}
	return nil
}

// The ts_rank_cd weights {D, C, B, A}: a hit in the title (A) counts 10
// times a hit in the body (D), a hit in the tags (B) 5 times, as the bm25
// column weights of the SQLite store.
const memorySearchSQL = `SELECT path, tier, note_id, title, tags, warning,
	ts_rank_cd('{0.1, 0.2, 0.5, 1.0}', tsv, $1::tsquery) AS score, body
FROM memory_notes
WHERE dir = $2 AND tsv @@ $1::tsquery %s
	AND recorded_ns <= $4
	AND ($5 OR NOT EXISTS (SELECT 1 FROM memory_marks r WHERE r.dir = memory_notes.dir AND r.path = memory_notes.path
		AND r.note_id = memory_notes.note_id AND r.kind IN ('outdated', 'forgotten') AND r.at_ns <= $4))
ORDER BY score DESC, path
LIMIT $3`

// MemorySearch implements memory.Index. The query's phrases, already
// analyzed by the memory service, become a tsquery literal (tsqueryLiteral),
// so no text search configuration of the server is involved.
func (m *MemoryIndex) MemorySearch(ctx context.Context, q memory.IndexQuery) ([]memory.IndexHit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	q, err := m.exactPrefixes(ctx, q)
	if err != nil {
		return nil, wrap(m.db.where, "cannot search the memory index", err)
	}
	tq := tsqueryLiteral(q)
	if tq == "" {
		return nil, nil
	}
	asOf := q.AsOf
	if asOf == 0 {
		asOf = math.MaxInt64
	}
	args := []any{stripNUL(tq), q.Dir, limit, asOf, q.Retired}
	tier := ""
	if q.Tier != "" {
		tier = "AND tier = $6"
		args = append(args, q.Tier)
	}
	sql := strings.Replace(memorySearchSQL, "%s", tier, 1)
	var hits []memory.IndexHit
	_, err = m.db.retry(ctx, func() error {
		hits = hits[:0]
		if listed, ok, err := m.impactSearch(ctx, q, limit); err != nil || ok {
			hits = listed
			return err
		}
		rows, err := m.db.pool.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		hits, err = scanHits(rows, &q)
		return err
	})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && (pe.Code == "42601" || pe.Code == "22023") {
			return nil, retrieve.Errorf(retrieve.CodeSearchError, "the search query cannot be run: %s", pe.Message).
				WithHint("use plain words; quotes and operators are not needed")
		}
		return nil, wrap(m.db.where, "cannot search the memory index", err)
	}
	return hits, nil
}

// scanHits reads the hits of a search (the columns of memorySearchSQL),
// each with its snippet, and closes rows.
func scanHits(rows pgx.Rows, q *memory.IndexQuery) ([]memory.IndexHit, error) {
	defer rows.Close()
	var hits []memory.IndexHit
	for rows.Next() {
		var h memory.IndexHit
		var tags, body string
		var score float32
		if err := rows.Scan(&h.Path, &h.Tier, &h.ID, &h.Title, &tags, &h.Warning, &score, &body); err != nil {
			return nil, err
		}
		h.Score = float64(score)
		h.Snippet = intl.Snippet(body, q.Matches, memory.SnippetTokens)
		_ = json.Unmarshal([]byte(tags), &h.Tags)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}
