package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/intl"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Top k without scoring every match (issue 31.5; docs/memory.md, "Top k
// without scoring every match"). FTS5 computes bm25() for every match
// before the limit: 100,000 calls for a word in every note. For a term
// found in more than impactRare notes the store keeps an impact list: the
// notes whose impact (memory.Impact: the term's BM25 part without its IDF)
// is above the list's theta, built from one full FTS5 ranking the first
// time the term is searched, and kept by every write after it (a new note
// whose impact beats theta joins the list; a removed note leaves it). A
// note outside the list holds the term with an impact of at most theta,
// which bounds the score of every note outside the candidates; the
// candidates are scored exactly (from the list, or by analyzing their
// stored text), and the answer is taken when the limit-th best beats every
// bound. Otherwise the search falls back to FTS5.
const (
	// impactRare: a phrase with at most this many matches is ranked by
	// FTS5 alone (a few milliseconds).
	impactRare = 1000
	// impactListLen is the length of a list when it is built, for a term
	// in more than impactCompleteFrac of the notes; a term in fewer gets
	// a complete list (every note holding it, theta 0).
	impactListLen = 1000
	// impactDrift: a list built when the store held n notes is built
	// again when it holds more than n × (1 ± impactDrift).
	impactDrift = 0.1
	// impactAnalyzeBatch is how many candidates are loaded and analyzed
	// at a time.
	impactAnalyzeBatch = 64
	// impactAnalyzeMax: past this many candidates scored without a
	// decision, FTS5 ranks the query instead.
	impactAnalyzeMax = 128
)

// impactCompleteFrac: a term found in at most this fraction of the
// notes gets a complete list (a variable for the tests).
var impactCompleteFrac = 0.1

// memoryPostingsMigration (memory migration 8, issue 31.5) caches each
// list read whole (a query of several words) as one blob: the rows of a
// complete list are thousands, read at ~1 µs each; the blob in a few
// microseconds. The rows stay the truth: every write that changes a
// term's rows deletes its blob (writeImpacts, deleteImpacts), and the next
// search writes it again from the rows (listPostings).
//
// longer says whether the index may hold a longer term that the list's
// term starts (a prefix search must find those notes too): counted at the
// list's build, set by a write that adds one (writeImpacts), never
// cleared but by a build. The lists of an older schema keep 1 (unknown).
const memoryPostingsMigration = `CREATE TABLE memory_impact_postings (
		term TEXT PRIMARY KEY,
		postings BLOB NOT NULL
	);
	ALTER TABLE memory_impact_terms ADD COLUMN longer INTEGER NOT NULL DEFAULT 1;`

// impactList is one term's list header.
type impactList struct {
	// Every note holding the term whose (impact, path) is before (theta,
	// thetaPath) — a higher impact, or the same and a path before it, the
	// search's order — is in the list.
	theta     float64
	thetaPath string
	avgdl     float64
	df, nrows int64
	// longer: a longer term starting with the list's term may be indexed
	// (memoryPostingsMigration).
	longer bool
}

// before reports whether a note of impact g and path p comes before the
// list's bound, and so must be in the list.
func (l *impactList) before(g float64, p string) bool {
	return g > l.theta || g == l.theta && p < l.thetaPath
}

// ftsTotals reads FTS5's "averages" record (the data row with id 1: the
// row count, then each column's term count, as SQLite varints): the n and
// avgdl of bm25().
func ftsTotals(ctx context.Context, q querier) (n int64, avgdl float64, err error) {
	var block []byte
	if err := q.QueryRowContext(ctx, `SELECT block FROM memory_terms_data WHERE id = 1`).Scan(&block); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	v, k := sqliteVarint(block)
	block = block[k:]
	var total uint64
	for len(block) > 0 {
		c, k := sqliteVarint(block)
		if k == 0 {
			break
		}
		total += c
		block = block[k:]
	}
	if v == 0 {
		return 0, 0, nil
	}
	return int64(v), float64(total) / float64(v), nil
}

// sqliteVarint decodes SQLite's big-endian varint (7 bits a byte, the
// ninth byte whole); k is 0 for an empty buffer.
func sqliteVarint(b []byte) (v uint64, k int) {
	for k < len(b) && k < 8 {
		v = v<<7 | uint64(b[k]&0x7f)
		k++
		if b[k-1]&0x80 == 0 {
			return v, k
		}
	}
	if k == 8 && len(b) > 8 {
		return v<<8 | uint64(b[8]), 9
	}
	return v, k
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// ftsQuote quotes one term for an FTS5 expression.
func ftsQuote(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// countMatchesSQL counts the notes matching an FTS5 expression, up to a
// limit (iterating the matches without scoring them).
const countMatchesSQL = `SELECT count(*) FROM (SELECT rowid FROM memory_terms WHERE memory_terms MATCH ? LIMIT ?)`

// impactListedSQL tells whether a term has a list.
const impactListedSQL = `SELECT EXISTS (SELECT 1 FROM memory_impact_terms WHERE term = ?)`

// countMatches counts the notes matching an FTS5 expression, up to limit+1.
func (m *MemoryIndex) countMatches(ctx context.Context, match string, limit int) (int, error) {
	var n int
	err := m.counted.QueryRowContext(ctx, match, limit+1).Scan(&n)
	return n, err
}

// impactListOf returns term's list, building it (or building it again when
// the store has grown or shrunk by more than impactDrift since) when the
// term matches more than impactRare notes; nil when it matches fewer.
func (m *MemoryIndex) impactListOf(ctx context.Context, term string, nrows int64) (*impactList, error) {
	l := &impactList{}
	err := m.db.db.QueryRowContext(ctx, `SELECT theta, theta_path, avgdl, df, nrows, longer FROM memory_impact_terms WHERE term = ?`, term).Scan(&l.theta, &l.thetaPath, &l.avgdl, &l.df, &l.nrows, &l.longer)
	switch {
	case err == nil:
		if d := float64(nrows - l.nrows); d <= impactDrift*float64(l.nrows) && -d <= impactDrift*float64(l.nrows) {
			return l, nil
		}
	case errors.Is(err, sql.ErrNoRows):
		n, err := m.countMatches(ctx, ftsQuote(term), impactRare)
		if err != nil || n <= impactRare {
			return nil, err
		}
	default:
		return nil, err
	}
	l, err = m.buildImpactList(ctx, term)
	if err != nil && cannotWrite(err) {
		// The list is a cache: a store that cannot be written now (read
		// only, full, locked past the timeout) is searched without it.
		return nil, errNoList
	}
	return l, err
}

// errNoList says that a frequent term has no list: its query is ranked
// by FTS5.
var errNoList = errors.New("no impact list")

// cannotWrite reports whether err says the store cannot be written now.
func cannotWrite(err error) bool {
	var e *sqlite.Error
	return isBusy(err) || retrieve.IsDiskFull(err) ||
		errors.As(err, &e) && (e.Code()&0xff == sqlite3.SQLITE_READONLY || e.Code()&0xff == sqlite3.SQLITE_FULL)
}

// buildImpactList ranks every note holding term with FTS5 once and keeps
// the best impactListLen: theta is the impact of the next one (every note
// left out has at most that impact).
func (m *MemoryIndex) buildImpactList(ctx context.Context, term string) (*impactList, error) {
	tx, err := m.db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// A write first, so that the transaction holds the write lock before
	// it reads (no other writer can change the notes in between).
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_impacts WHERE term = ?`, term); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_impact_postings WHERE term = ?`, term); err != nil {
		return nil, err
	}
	nrows, avgdl, err := ftsTotals(ctx, tx)
	if err != nil || nrows == 0 {
		return nil, err
	}
	match := ftsQuote(term)
	var df int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memory_terms WHERE memory_terms MATCH ?`, match).Scan(&df); err != nil {
		return nil, err
	}
	idf := memory.IDF(float64(nrows), float64(df))
	listLen := impactListLen
	if float64(df) <= impactCompleteFrac*float64(nrows) {
		listLen = int(df) // complete: theta stays 0
	}
	// The search's order (score, then path), as memoryTopSQL.
	rows, err := tx.QueryContext(ctx, `WITH m AS MATERIALIZED (
			SELECT rowid, bm25(memory_terms, 10.0, 5.0, 1.0) AS s FROM memory_terms WHERE memory_terms MATCH ?1),
		cut AS (SELECT s FROM m ORDER BY s LIMIT 1 OFFSET ?2)
		SELECT m.rowid, -m.s, n.path FROM m JOIN memory_notes n ON n.rowid = m.rowid
		WHERE (SELECT s FROM cut) IS NULL OR m.s <= (SELECT s FROM cut)
		ORDER BY m.s, n.path LIMIT ?2 + 1`, match, listLen)
	if err != nil {
		return nil, err
	}
	type entry struct {
		note int64
		g    float64
		path string
	}
	var entries []entry
	for rows.Next() {
		var e entry
		var s float64
		if err := rows.Scan(&e.note, &s, &e.path); err != nil {
			rows.Close()
			return nil, err
		}
		e.g = memory.RoundImpact(s / idf)
		entries = append(entries, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	l := &impactList{avgdl: avgdl, df: df, nrows: nrows}
	if len(entries) > listLen {
		l.theta, l.thetaPath = entries[listLen].g, entries[listLen].path
		entries = entries[:listLen]
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO memory_impacts (term, impact, path, note) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	for _, e := range entries {
		if _, err := ins.ExecContext(ctx, term, e.g, e.path, e.note); err != nil {
			return nil, err
		}
	}
	var longer int
	if err := tx.QueryRowContext(ctx, countMatchesSQL, match+"* NOT "+match, 1).Scan(&longer); err != nil {
		return nil, err
	}
	l.longer = longer > 0
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO memory_impact_terms (term, theta, theta_path, avgdl, df, nrows, longer) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		term, l.theta, l.thetaPath, l.avgdl, l.df, l.nrows, l.longer); err != nil {
		return nil, err
	}
	return l, tx.Commit()
}

// impactPhrase is one phrase of a query on the impact path.
type impactPhrase struct {
	memory.IndexPhrase
	list  *impactList // nil: every note holding the phrase is a candidate
	idf   float64
	bound float64 // the impact of a note outside the candidates is at most this
	avgdl float64
}

// impactCand is a note to rank: the impacts known from the lists (-1:
// unknown), its bound, and its exact score once computed.
type impactCand struct {
	rowid int64
	known []float64
	ub    float64
	score float64
	exact bool
}

// impactSearch answers q from the impact lists when it can (ok); it
// cannot for a phrase of several terms, a limit above the lists' length,
// a query whose required phrase matches few notes (FTS5 ranks those
// faster), or when the candidates do not decide the top limit.
func (m *MemoryIndex) impactSearch(ctx context.Context, q memory.IndexQuery, limit int) (hits []memory.IndexHit, ok bool, err error) {
	ok, read, err := m.impactEligible(ctx, q, limit)
	if err != nil || !ok {
		if errors.Is(err, errNoNote) {
			return nil, true, nil
		}
		return nil, false, err
	}
	nrows, avgdl, err := ftsTotals(ctx, m.db.db)
	if err != nil || nrows == 0 {
		return nil, false, err
	}
	phrases := make([]impactPhrase, len(q.Phrases))
	cands := map[int64]*impactCand{}
	// Candidates are allocated in slabs (a query of several words of
	// thousands of notes each makes tens of thousands).
	var slab []impactCand
	var known []float64
	cand := func(rowid int64) *impactCand {
		c := cands[rowid]
		if c == nil {
			if len(slab) == 0 {
				slab = make([]impactCand, 1024)
				known = make([]float64, 1024*len(phrases))
			}
			c, slab = &slab[0], slab[1:]
			c.rowid, c.known, known = rowid, known[:len(phrases):len(phrases)], known[len(phrases):]
			for i := range c.known {
				c.known[i] = unknownImpact
			}
			cands[rowid] = c
		}
		return c
	}
	anyList := false
	for i, p := range q.Phrases {
		phrases[i].IndexPhrase = p
		if ok, err := m.impactPhrase(ctx, q.Any, i, &phrases[i], nrows, avgdl, cand); err != nil || !ok {
			return nil, false, err
		}
		anyList = anyList || phrases[i].list != nil
	}
	if !anyList {
		return nil, false, nil
	}
	if len(phrases) == 1 && !phrases[0].Prefix {
		return m.impactHead(ctx, q, &phrases[0], limit)
	}
	if allComplete(phrases) {
		return m.mergeComplete(ctx, q, phrases, limit, read)
	}
	// The heads of the lists: every entry for several phrases; for one,
	// the first limit and those tied with the last. The map is sized for
	// every entry at once.
	if len(phrases) > 1 {
		n := len(cands)
		for i := range phrases {
			switch l := phrases[i].list; {
			case l == nil:
			case l.theta == 0: // complete
				n += int(l.df)
			default:
				n += impactListLen
			}
		}
		sized := make(map[int64]*impactCand, n)
		for k, c := range cands {
			sized[k] = c
		}
		cands = sized
	}
	for i := range phrases {
		if phrases[i].list == nil {
			continue
		}
		if err := m.addListEntries(ctx, phrases[i].Terms[0], i, len(phrases) == 1, limit, cand); err != nil {
			return nil, false, err
		}
	}
	return m.rankCandidates(ctx, q, phrases, cands, limit)
}

// impactEligible reports whether the lists may answer q: one-term
// phrases, a limit within the lists, no prefix among required words (FTS5
// finds the few notes holding all faster than the lists' candidates are
// counted), and, all words required, more than impactRare notes holding
// all (FTS5 finds those without scoring them, and ranks few faster).
//
// The lists it read to count (a query of required words), in the phrases'
// order, are returned for the ranking to merge.
func (m *MemoryIndex) impactEligible(ctx context.Context, q memory.IndexQuery, limit int) (ok bool, lists [][]posting, err error) {
	if limit > impactListLen/2 || len(q.Phrases) == 0 || len(q.Phrases) > 8 {
		return false, nil, nil
	}
	for _, p := range q.Phrases {
		if len(p.Terms) != 1 || p.Prefix && !q.Any && len(q.Phrases) > 1 {
			return false, nil, nil
		}
	}
	if !q.Any && len(q.Phrases) > 1 {
		n, lists, err := m.requiredFromLists(ctx, q)
		if err == nil && lists == nil {
			n, err = m.countMatches(ctx, ftsMatch(q), impactRare)
		}
		if err == nil && n == 0 {
			return false, nil, errNoNote
		}
		return n > impactRare, lists, err
	}
	if len(q.Phrases) == 1 && !q.Any && !q.Phrases[0].Prefix {
		// One word: listed, or in enough notes to be (two look-ups, before
		// anything else is read, for the many searches of a rare word).
		var listed bool
		if err := m.listed.QueryRowContext(ctx, q.Phrases[0].Terms[0]).Scan(&listed); err != nil || listed {
			return listed, nil, err
		}
		n, err := m.countMatches(ctx, ftsQuote(q.Phrases[0].Terms[0]), impactRare)
		return n > impactRare, nil, err
	}
	return true, nil, nil
}

// errNoNote says that no note holds every word of a query of required
// words: its answer is empty, without asking FTS5.
var errNoNote = errors.New("no note holds every word")

// requiredFromLists counts the notes holding every word of q (one-term
// phrases, all required) from the words' complete lists (returned, in the
// phrases' order; nil when a word has none): a complete list holds every note with its word, kept
// so by every write whatever the drift (writeImpacts). The count goes up
// to impactRare+1, as countMatches', without FTS5 merging the words'
// doclists (and then again to run the query) for an answer the lists know.
func (m *MemoryIndex) requiredFromLists(ctx context.Context, q memory.IndexQuery) (n int, lists [][]posting, err error) {
	for _, p := range q.Phrases {
		var theta float64
		err := m.theta.QueryRowContext(ctx, p.Terms[0]).Scan(&theta)
		if errors.Is(err, sql.ErrNoRows) || err == nil && theta != 0 {
			return 0, nil, nil
		}
		if err != nil {
			return 0, nil, err
		}
	}
	lists = make([][]posting, len(q.Phrases))
	for i, p := range q.Phrases {
		if lists[i], err = m.listPostings(ctx, p.Terms[0]); err != nil {
			return 0, nil, err
		}
	}
	return intersectCount(lists, impactRare+1), lists, nil
}

// intersectCount counts the rowids found in every list (each sorted by
// rowid), up to max. lists keeps its order.
func intersectCount(lists [][]posting, max int) int {
	lists = slices.Clone(lists)
	slices.SortFunc(lists, func(a, b []posting) int { return cmp.Compare(len(a), len(b)) })
	pos := make([]int, len(lists))
	n := 0
next:
	for _, p := range lists[0] {
		for i := 1; i < len(lists); i++ {
			l := lists[i]
			j := pos[i]
			for j < len(l) && l[j].note < p.note {
				j++
			}
			pos[i] = j
			if j == len(l) {
				return n
			}
			if l[j].note != p.note {
				continue next
			}
		}
		if n++; n >= max {
			return n
		}
	}
	return n
}

// impactPhrase fills phrase i of a query: its list (built when due) and
// bound, or, for a term of few notes, all of them as candidates (when any
// phrase may match); a prefix's longer terms as candidates too (when few).
// ok is false when the lists cannot answer.
func (m *MemoryIndex) impactPhrase(ctx context.Context, anyOf bool, i int, ph *impactPhrase, nrows int64, avgdl float64, cand func(int64) *impactCand) (ok bool, err error) {
	term := ph.Terms[0]
	if ph.list, err = m.impactListOf(ctx, term, nrows); err != nil {
		if errors.Is(err, errNoList) {
			return false, nil
		}
		return false, err
	}
	df := int64(0)
	if ph.list != nil {
		df = ph.list.df
		ph.bound, ph.avgdl = ph.list.theta, ph.list.avgdl
	} else {
		if !anyOf {
			return false, nil
		}
		n, err := m.countMatches(ctx, ftsQuote(term), impactRare)
		if err != nil {
			return false, err
		}
		df, ph.avgdl = int64(n), avgdl
		if err := addScored(ctx, m.db.db, ftsQuote(term), i, memory.IDF(float64(nrows), float64(n)), cand); err != nil {
			return false, err
		}
	}
	if ph.Prefix && (ph.list == nil || ph.list.longer) {
		n, err := addMatches(ctx, m.db.db, ftsQuote(term)+"* NOT "+ftsQuote(term), i, cand)
		if err != nil || n > impactRare {
			return false, err
		}
		df += int64(n)
	}
	ph.idf = memory.IDF(float64(nrows), float64(df))
	return true, nil
}

// The known impacts of a candidate: a value ≥ 0 is the phrase's impact,
// unknownImpact that the note may hold the phrase with at most the list's
// theta (0 without a list: it does not hold it), mustAnalyze that it holds
// the phrase (or a longer term of a prefix phrase) with an impact to
// compute.
const (
	unknownImpact = -1
	mustAnalyze   = -2
)

// impactHead answers a query of one listed term from the head of its
// list: the first limit entries in the search's order (impact, then path),
// when the last of them comes before the list's bound.
func (m *MemoryIndex) impactHead(ctx context.Context, q memory.IndexQuery, ph *impactPhrase, limit int) ([]memory.IndexHit, bool, error) {
	rows, err := m.db.db.QueryContext(ctx, `SELECT note, impact, path FROM memory_impacts WHERE term = ? ORDER BY impact DESC, path LIMIT ?`,
		ph.Terms[0], limit)
	if err != nil {
		return nil, false, err
	}
	type entry struct {
		c    impactCand
		g    float64
		path string
	}
	var es []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.c.rowid, &e.g, &e.path); err != nil {
			rows.Close()
			return nil, false, err
		}
		e.c.score = ph.idf * e.g
		es = append(es, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(es) < limit {
		return nil, false, nil
	}
	if last := es[limit-1]; !ph.list.before(last.g, last.path) {
		return nil, false, nil
	}
	cs := make([]*impactCand, limit)
	for i := range cs {
		cs[i] = &es[i].c
	}
	hits, err := m.impactHits(ctx, q, cs)
	if err != nil || len(hits) < limit {
		return nil, false, err
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Path < hits[b].Path
	})
	return hits, true, nil
}

// addMatches makes the notes matching an FTS5 expression candidates whose
// impact for phrase i is to be computed, when there are at most impactRare
// (n is how many, impactRare+1 for more).
func addMatches(ctx context.Context, q querier, match string, i int, cand func(int64) *impactCand) (n int, err error) {
	rows, err := q.QueryContext(ctx, `SELECT rowid FROM memory_terms WHERE memory_terms MATCH ? LIMIT ?`, match, impactRare+1)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return 0, err
		}
		ids = append(ids, id)
	}
	if len(ids) <= impactRare {
		for _, id := range ids {
			cand(id).known[i] = mustAnalyze
		}
	}
	return len(ids), rows.Err()
}

// addScored makes every note holding a term of few notes (at most
// impactRare) a candidate with its impact for phrase i, from FTS5's bm25()
// of the term alone (idf times the impact).
func addScored(ctx context.Context, q querier, match string, i int, idf float64, cand func(int64) *impactCand) error {
	rows, err := q.QueryContext(ctx, `SELECT rowid, -bm25(memory_terms, 10.0, 5.0, 1.0) FROM memory_terms WHERE memory_terms MATCH ?`, match)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			return err
		}
		if c := cand(id); c.known[i] != mustAnalyze {
			c.known[i] = s / idf
		}
	}
	return rows.Err()
}

// addListEntries adds the entries of term's list as candidates with a known
// impact for phrase i (with head, only the first limit and their ties).
func (m *MemoryIndex) addListEntries(ctx context.Context, term string, i int, head bool, limit int, cand func(int64) *impactCand) error {
	if !head {
		ps, err := m.listPostings(ctx, term)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if c := cand(p.note); c.known[i] != mustAnalyze {
				c.known[i] = p.impact
			}
		}
		return nil
	}
	rows, err := m.db.db.QueryContext(ctx, `SELECT note, impact FROM memory_impacts
		WHERE term = ?1 AND impact >= coalesce((SELECT impact FROM memory_impacts WHERE term = ?1 ORDER BY impact DESC LIMIT 1 OFFSET ?2), -1)`, term, limit-1)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var g float64
		if err := rows.Scan(&id, &g); err != nil {
			return err
		}
		if c := cand(id); c.known[i] != mustAnalyze {
			c.known[i] = g
		}
	}
	return rows.Err()
}

// posting is one entry of a list: a note's rowid and its impact.
type posting struct {
	note   int64
	impact float64
}

// listPostings returns every entry of term's list, by rowid: from its blob
// (memoryPostingsMigration), or from its rows, then kept as its blob (when
// the store can be written: the blob is a cache).
func (m *MemoryIndex) listPostings(ctx context.Context, term string) ([]posting, error) {
	var blob []byte
	err := m.postings.QueryRowContext(ctx, term).Scan(&blob)
	if err == nil {
		if ps, ok := decodePostings(blob); ok {
			return ps, nil
		}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	ps, err := m.writePostings(ctx, term)
	if err != nil && cannotWrite(err) {
		return readPostings(ctx, m.db.db, term)
	}
	return ps, err
}

// writePostings reads term's rows and writes them as its blob, in a
// transaction that takes the write lock first (no writer changes the rows
// in between).
func (m *MemoryIndex) writePostings(ctx context.Context, term string) ([]posting, error) {
	tx, err := m.db.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_impact_postings WHERE term = ?`, term); err != nil {
		return nil, err
	}
	ps, err := readPostings(ctx, tx, term)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_impact_postings (term, postings) VALUES (?, ?)`, term, encodePostings(ps)); err != nil {
		return nil, err
	}
	return ps, tx.Commit()
}

// readPostings reads term's list from its rows, by rowid.
func readPostings(ctx context.Context, q querier, term string) ([]posting, error) {
	rows, err := q.QueryContext(ctx, `SELECT note, impact FROM memory_impacts WHERE term = ? ORDER BY note`, term)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ps []posting
	for rows.Next() {
		var p posting
		if err := rows.Scan(&p.note, &p.impact); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// encodePostings writes entries sorted by rowid as a blob: each the
// rowid's difference from the previous (uvarint; a rowid is never twice
// in a list) and the impact's float64 bits (little-endian).
func encodePostings(ps []posting) []byte {
	b := make([]byte, 0, len(ps)*11)
	prev := int64(0)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.note-prev))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.impact))
		prev = p.note
	}
	return b
}

// decodePostings reads encodePostings' blob; ok is false for a damaged one
// (the rows are read instead).
func decodePostings(b []byte) (ps []posting, ok bool) {
	ps = make([]posting, 0, len(b)/10)
	prev := int64(0)
	for len(b) > 0 {
		d, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+8 {
			return nil, false
		}
		prev += int64(d)
		ps = append(ps, posting{note: prev, impact: math.Float64frombits(binary.LittleEndian.Uint64(b[k:]))})
		b = b[k+8:]
	}
	return ps, true
}

// allComplete reports whether every phrase has a complete list whose
// entries are all its notes (a prefix only of a term no longer term
// starts): the lists alone then give every candidate's exact score.
func allComplete(phrases []impactPhrase) bool {
	for _, ph := range phrases {
		if ph.list == nil || ph.list.theta != 0 || ph.Prefix && ph.list.longer {
			return false
		}
	}
	return true
}

// mergeComplete ranks a query of several phrases whose lists are all
// complete by merging the lists (each sorted by rowid): a note's score is
// the sum, in the phrases' order as boundCandidates sums it, of IDF ×
// impact over the lists holding it (all of them for required phrases).
// The best limit and every note tied with the limit-th go to takeBest;
// fewer than limit matches are left to FTS5, as rankCandidates leaves
// them.
//
// lists are the phrases' lists when already read (impactEligible), else
// nil.
func (m *MemoryIndex) mergeComplete(ctx context.Context, q memory.IndexQuery, phrases []impactPhrase, limit int, lists [][]posting) ([]memory.IndexHit, bool, error) {
	if lists == nil {
		lists = make([][]posting, len(phrases))
		for i := range phrases {
			var err error
			if lists[i], err = m.listPostings(ctx, phrases[i].Terms[0]); err != nil {
				return nil, false, err
			}
		}
	}
	type scored struct {
		rowid int64
		score float64
	}
	var all []scored
	pos := make([]int, len(lists))
	for {
		next := int64(math.MaxInt64)
		for i, l := range lists {
			if pos[i] < len(l) && l[pos[i]].note < next {
				next = l[pos[i]].note
			}
		}
		if next == math.MaxInt64 {
			break
		}
		score, held := 0.0, 0
		for i, l := range lists {
			if pos[i] < len(l) && l[pos[i]].note == next {
				score += phrases[i].idf * l[pos[i]].impact
				pos[i]++
				held++
			}
		}
		if q.Any || held == len(lists) {
			all = append(all, scored{next, score})
		}
	}
	if len(all) < limit {
		return nil, false, nil
	}
	h := make(sqlcommon.Top[float64], 0, limit)
	for _, c := range all {
		h = h.Offer(c.score)
	}
	var best []*impactCand
	for _, c := range all {
		if c.score >= h[0] {
			best = append(best, &impactCand{rowid: c.rowid, score: c.score, exact: true})
		}
	}
	slices.SortFunc(best, func(a, b *impactCand) int { return cmp.Compare(b.score, a.score) })
	return m.takeBest(ctx, q, best, limit)
}

// rankCandidates scores the candidates, best bound first, until the
// limit-th best exact score beats the bound of every note not yet scored.
func (m *MemoryIndex) rankCandidates(ctx context.Context, q memory.IndexQuery, phrases []impactPhrase, cands map[int64]*impactCand, limit int) ([]memory.IndexHit, bool, error) {
	outside := 0.0 // the bound of a note that is no candidate
	for _, ph := range phrases {
		outside += ph.idf * ph.bound
	}
	list := boundCandidates(q, phrases, cands, limit)
	slices.SortFunc(list, func(a, b *impactCand) int { return cmp.Compare(b.ub, a.ub) })
	if len(list) < limit || list[limit-1].ub <= outside {
		// The limit-th best score is at most the limit-th best bound: the
		// candidates cannot decide.
		return nil, false, nil
	}
	var best []*impactCand // exact, matching
	kth := func() float64 {
		if len(best) < limit {
			return -1
		}
		slices.SortFunc(best, func(a, b *impactCand) int { return cmp.Compare(b.score, a.score) })
		return best[limit-1].score
	}
	analyzed := 0
	for i := 0; i < len(list); {
		if k := kth(); k > outside && k > list[i].ub {
			break
		}
		j := min(i+impactAnalyzeBatch, len(list))
		for _, c := range list[i:j] {
			if !c.exact {
				analyzed++
			}
		}
		if analyzed > impactAnalyzeMax {
			return nil, false, nil
		}
		if err := m.scoreExact(ctx, q, phrases, list[i:j]); err != nil {
			return nil, false, err
		}
		for _, c := range list[i:j] {
			if c.exact && c.score > 0 {
				best = append(best, c)
			}
		}
		i = j
	}
	if k := kth(); k <= outside {
		return nil, false, nil
	}
	return m.takeBest(ctx, q, best, limit)
}

// takeBest loads the hits of the best limit of the exact candidates (best
// sorted by score): every note tied with the limit-th is among best, and
// the tie is broken by path, read for the tied notes only.
func (m *MemoryIndex) takeBest(ctx context.Context, q memory.IndexQuery, best []*impactCand, limit int) ([]memory.IndexHit, bool, error) {
	cut := best[limit-1].score
	above := 0
	for above < len(best) && best[above].score > cut {
		above++
	}
	tied := best[above:]
	for k, c := range tied {
		if c.score < cut {
			tied = tied[:k]
			break
		}
	}
	if above+len(tied) > limit {
		paths, err := m.notePaths(ctx, tied)
		if err != nil {
			return nil, false, err
		}
		slices.SortFunc(tied, func(a, b *impactCand) int { return strings.Compare(paths[a.rowid], paths[b.rowid]) })
		tied = tied[:limit-above]
	}
	keep := append(best[:above:above], tied...)
	hits, err := m.impactHits(ctx, q, keep)
	if err != nil || len(hits) < len(keep) {
		return nil, false, err
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Path < hits[b].Path
	})
	return hits, true, nil
}

// notePaths reads the paths of candidates, by rowid.
func (m *MemoryIndex) notePaths(ctx context.Context, cs []*impactCand) (map[int64]string, error) {
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.rowid
	}
	ij, _ := json.Marshal(ids)
	rows, err := m.db.db.QueryContext(ctx, `SELECT rowid, path FROM memory_notes WHERE rowid IN (SELECT value FROM json_each(?))`, string(ij))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	paths := make(map[int64]string, len(cs))
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		paths[id] = p
	}
	return paths, rows.Err()
}

// boundCandidates computes each candidate's bound (its exact score when
// every impact is known) and returns those that may be in the answer: a
// note missing from a required word's complete list lacks the word; the
// limit-th best exact score among the candidates scored from their lists
// alone bounds the answer's from below, so a candidate whose bound is
// below it cannot be in the answer, nor tied with it.
func boundCandidates(q memory.IndexQuery, phrases []impactPhrase, cands map[int64]*impactCand, limit int) []*impactCand {
	list := make([]*impactCand, 0, len(cands))
cands:
	for _, c := range cands {
		complete := true
		for i, g := range c.known {
			switch {
			case g >= 0:
				c.ub += phrases[i].idf * g
			case g == mustAnalyze:
				complete = false
				c.ub += phrases[i].idf * memory.MaxImpact
			case phrases[i].list != nil && phrases[i].bound > 0:
				complete = false
				c.ub += phrases[i].idf * phrases[i].bound
			case !q.Any:
				continue cands
			}
		}
		if complete {
			c.score, c.exact = c.ub, true
		}
		list = append(list, c)
	}
	if floor := kthExact(list, limit); floor > 0 {
		keep := list[:0]
		for _, c := range list {
			if c.ub >= floor {
				keep = append(keep, c)
			}
		}
		list = keep
	}
	return list
}

// kthExact returns the limit-th best score of the candidates already
// exact (0 when fewer), with a min-heap of limit scores.
func kthExact(list []*impactCand, limit int) float64 {
	h := make(sqlcommon.Top[float64], 0, limit)
	for _, c := range list {
		if c.exact {
			h = h.Offer(c.score)
		}
	}
	if len(h) < limit {
		return 0
	}
	return h[0]
}

// scoreExact computes the exact score of candidates whose impacts are not
// all known, from their stored title, tags and body analyzed again (the
// terms FTS5 indexed); a note that lacks a required phrase scores 0.
func (m *MemoryIndex) scoreExact(ctx context.Context, q memory.IndexQuery, phrases []impactPhrase, cs []*impactCand) error {
	var ids []int64
	byID := map[int64]*impactCand{}
	for _, c := range cs {
		if !c.exact {
			ids = append(ids, c.rowid)
			byID[c.rowid] = c
		}
	}
	if len(ids) == 0 {
		return nil
	}
	ij, _ := json.Marshal(ids)
	rows, err := m.db.db.QueryContext(ctx, `SELECT rowid, title, tags, body FROM memory_notes WHERE rowid IN (SELECT value FROM json_each(?))`, string(ij))
	if err != nil {
		return err
	}
	defer rows.Close()
	ps := make([]memory.IndexPhrase, len(phrases))
	for i := range phrases {
		ps[i] = phrases[i].IndexPhrase
	}
	for rows.Next() {
		var id int64
		var n memory.IndexNote
		var tags string
		if err := rows.Scan(&id, &n.Title, &tags, &n.Body); err != nil {
			return err
		}
		_ = json.Unmarshal([]byte(tags), &n.Tags)
		af, dl := n.PhraseFreqs(ps)
		c := byID[id]
		c.score, c.exact = 0, true
		for i, ph := range phrases {
			if af[i] == 0 && !q.Any {
				c.score = 0
				break
			}
			c.score += ph.idf * memory.Impact(af[i], float64(dl), ph.avgdl)
		}
	}
	return rows.Err()
}

// impactHits loads the hits of the chosen candidates.
func (m *MemoryIndex) impactHits(ctx context.Context, q memory.IndexQuery, cs []*impactCand) ([]memory.IndexHit, error) {
	ids := make([]int64, len(cs))
	score := map[int64]float64{}
	for i, c := range cs {
		ids[i] = c.rowid
		score[c.rowid] = c.score
	}
	ij, _ := json.Marshal(ids)
	rows, err := m.db.db.QueryContext(ctx, `SELECT rowid, path, tier, note_id, title, tags, warning, body FROM memory_notes
		WHERE rowid IN (SELECT value FROM json_each(?)) AND +dir = ?`, string(ij), q.Dir)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []memory.IndexHit
	for rows.Next() {
		var h memory.IndexHit
		var id int64
		var tags, body string
		if err := rows.Scan(&id, &h.Path, &h.Tier, &h.ID, &h.Title, &tags, &h.Warning, &body); err != nil {
			return nil, err
		}
		h.Score = score[id]
		h.Snippet = intl.Snippet(body, q.Matches, memory.SnippetTokens)
		_ = json.Unmarshal([]byte(tags), &h.Tags)
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// impactListHeads is what a write needs of the lists: each term's theta
// and avgdl (nil when there is no list).
func impactListHeads(ctx context.Context, tx *sql.Tx) (map[string]impactList, error) {
	rows, err := tx.QueryContext(ctx, `SELECT term, theta, theta_path, avgdl, longer FROM memory_impact_terms`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out map[string]impactList
	for rows.Next() {
		var t string
		var l impactList
		if err := rows.Scan(&t, &l.theta, &l.thetaPath, &l.avgdl, &l.longer); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]impactList{}
		}
		out[t] = l
	}
	return out, rows.Err()
}

// writeImpacts keeps the impact lists true after notes were written with
// the given rowids (the indexer's writes call it in their transaction):
// a note whose impact for a listed term beats the list's theta joins it.
// With no list (after a reset, during a reindex) it costs one query.
func writeImpacts(ctx context.Context, tx *sql.Tx, notes []memory.IndexNote, rowids []int64) error {
	heads, err := impactListHeads(ctx, tx)
	if err != nil || len(heads) == 0 {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO memory_impacts (term, impact, path, note) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	touched, longer := map[string]bool{}, map[string]bool{}
	for i := range notes {
		n := &notes[i]
		n.Analyze()
		af := map[string]float64{}
		dl := 0
		for c, terms := range [3]string{n.TitleTerms, n.TagTerms, n.BodyTerms} {
			for t := range strings.FieldsSeq(terms) {
				dl++
				if _, ok := heads[t]; ok {
					af[t] += memory.ColumnWeights[c]
				}
				for k := len(t) - 1; k > 0; k-- {
					if h, ok := heads[t[:k]]; ok && !h.longer {
						longer[t[:k]] = true
					}
				}
			}
		}
		for t, f := range af {
			l := heads[t]
			if g := memory.Impact(f, float64(dl), l.avgdl); l.before(g, notes[i].Path) {
				if _, err := ins.ExecContext(ctx, t, g, notes[i].Path, rowids[i]); err != nil {
					return err
				}
				touched[t] = true
			}
		}
	}
	for t := range touched {
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_impact_postings WHERE term = ?`, t); err != nil {
			return err
		}
	}
	for t := range longer {
		if _, err := tx.ExecContext(ctx, `UPDATE memory_impact_terms SET longer = 1 WHERE term = ?`, t); err != nil {
			return err
		}
	}
	return nil
}

// deleteImpacts removes a note from every list (before its row goes), and
// the blobs of those lists.
func deleteImpacts(ctx context.Context, tx *sql.Tx, rowid int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM memory_impact_postings WHERE term IN (SELECT term FROM memory_impacts WHERE note = ?)`, rowid); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM memory_impacts WHERE note = ?`, rowid)
	return err
}

// exactPrefixes returns q with its prefix phrases made exact where the
// index holds no longer term that the phrase's last term starts (its list
// says so: longer false), which matches the same notes with the same
// scores without FTS5 expanding the prefix (one look-up per prefix).
func (m *MemoryIndex) exactPrefixes(ctx context.Context, q memory.IndexQuery) (memory.IndexQuery, error) {
	cloned := false
	for i, p := range q.Phrases {
		if !p.Prefix || len(p.Terms) == 0 {
			continue
		}
		var longer bool
		err := m.longer.QueryRowContext(ctx, p.Terms[len(p.Terms)-1]).Scan(&longer)
		if errors.Is(err, sql.ErrNoRows) || err == nil && longer {
			continue
		}
		if err != nil {
			return q, err
		}
		if !cloned {
			q.Phrases, cloned = slices.Clone(q.Phrases), true
		}
		q.Phrases[i].Prefix = false
	}
	return q, nil
}
