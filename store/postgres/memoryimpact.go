package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store/internal/sqlcommon"
)

// Top k without scoring every match (issue 31.5; docs/memory.md, "Top k
// without scoring every match"), as the SQLite store does it: for a term
// found in more than impactRare notes of a folder, the store keeps the
// notes whose rank (ts_rank_cd, which depends on the note alone) comes
// before the list's bound (theta, theta_path) in the search's order. A
// list is built from one full ranking the first time its term is searched
// and kept by every write (writeImpacts, deleteImpacts). A query of one
// such term reads the head of its list. A term in at most
// impactCompleteFrac of the folder's notes gets a complete list (theta 0:
// every note holding it); a query of any of several terms whose lists are
// all complete sums them (impactAnySearch: ts_rank_cd of an OR is the sum
// of its terms' ranks). Any other query ranks every match as before.
const (
	impactRare    = 1000
	impactListLen = 1000
)

// impactCompleteFrac: a term in at most this fraction of the folder's
// notes gets a complete list (a variable for the tests).
var impactCompleteFrac = 0.1

// impactRank is the rank of the search (memorySearchSQL) for a one-term
// tsquery.
const impactRank = `ts_rank_cd('{0.1, 0.2, 0.5, 1.0}', n.tsv, ` + tsqTermT + `)`

// tsqTermT is the one-term tsquery of the column t.term (quoted as
// tsQuote does).
const tsqTermT = `(('''' || replace(replace(t.term, '\', '\\'), '''', '''''') || '''')::tsquery)`

// writeImpactsSQL adds the notes just written ($2: their paths in folder
// $1) to every list of the folder they come before the bound of.
const writeImpactsSQL = `WITH ins AS (INSERT INTO memory_impacts (dir, term, impact, path)
SELECT n.dir, t.term, r.rank, n.path
FROM memory_notes n JOIN memory_impact_terms t ON t.dir = n.dir
	CROSS JOIN LATERAL (SELECT ` + impactRank + ` AS rank) r
WHERE n.dir = $1 AND n.path = ANY($2) AND n.tsv @@ ` + tsqTermT + `
	AND (r.rank > t.theta OR r.rank = t.theta AND n.path < t.theta_path)
ON CONFLICT DO NOTHING RETURNING term)
DELETE FROM memory_impact_postings WHERE dir = $1 AND term IN (SELECT term FROM ins)`

// deleteImpactsSQL removes the notes at paths $2 of folder $1 from every
// list, and the cached arrays of those lists.
const deleteImpactsSQL = `WITH d AS (DELETE FROM memory_impacts WHERE dir = $1 AND path = ANY($2) RETURNING term)
DELETE FROM memory_impact_postings WHERE dir = $1 AND term IN (SELECT term FROM d)`

// tsqPrefixT is the prefix tsquery of the column t.term.
const tsqPrefixT = `(('''' || replace(replace(t.term, '\', '\\'), '''', '''''') || ''':*')::tsquery)`

// writeLongerSQL marks the lists of the folder that a longer lexeme of the
// notes just written starts.
const writeLongerSQL = `UPDATE memory_impact_terms t SET longer = true
WHERE t.dir = $1 AND NOT t.longer AND EXISTS (SELECT 1 FROM memory_notes n
	WHERE n.dir = $1 AND n.path = ANY($2) AND n.tsv @@ ` + tsqPrefixT + ` AND NOT n.tsv @@ ` + tsqTermT + `)`

// writeImpacts keeps the lists true after notes were written (in the
// writing transaction; with no list it joins nothing).
func writeImpacts(b *pgx.Batch, dir string, paths []string) {
	b.Queue(writeImpactsSQL, dir, paths)
	b.Queue(writeLongerSQL, dir, paths)
}

// deleteImpacts removes notes from every list, before they are replaced
// or deleted.
func deleteImpacts(b *pgx.Batch, dir string, paths []string) {
	b.Queue(deleteImpactsSQL, dir, paths)
}

// impactSearch answers a query of one term (not a prefix) of more than
// impactRare notes from the head of its list (ok); any other query is
// left to the full ranking.
func (m *MemoryIndex) impactSearch(ctx context.Context, q memory.IndexQuery, limit int) ([]memory.IndexHit, bool, error) {
	if q.Any && len(q.Phrases) > 1 {
		return m.impactAnySearch(ctx, q, limit)
	}
	if len(q.Phrases) != 1 || len(q.Phrases[0].Terms) != 1 || q.Phrases[0].Prefix || q.Tier != "" || q.AsOf != 0 || limit > impactListLen/2 {
		return nil, false, nil
	}
	term := stripNUL(q.Phrases[0].Terms[0])
	// One round trip before the search of a rare word: retired notes, the
	// term's list, else how many notes hold it (up to impactRare+1).
	var retired, listed bool
	var n int
	if err := m.db.pool.QueryRow(ctx, `WITH l AS (SELECT EXISTS (SELECT 1 FROM memory_impact_terms WHERE dir = $1 AND term = $2) AS listed)
		SELECT NOT $5 AND EXISTS (SELECT 1 FROM memory_marks WHERE dir = $1 AND kind IN ('outdated', 'forgotten')), l.listed,
			CASE WHEN l.listed THEN 0 ELSE (SELECT count(*) FROM (SELECT 1 FROM memory_notes WHERE dir = $1 AND tsv @@ $3::tsquery LIMIT $4) s) END
		FROM l`, q.Dir, term, tsQuote(term), impactRare+1, q.Retired).Scan(&retired, &listed, &n); err != nil || retired {
		return nil, false, err
	}
	if !listed && n > impactRare {
		var err error
		if listed, err = m.buildOrSkip(ctx, q.Dir, term); err != nil {
			return nil, false, err
		}
	}
	if !listed {
		return nil, false, nil
	}
	// Only entries before the bound (compared in SQL: the order of paths
	// is the database's collation, as in the search).
	rows, err := m.db.pool.Query(ctx, `SELECT n.path, n.tier, n.note_id, n.title, n.tags, n.warning, i.impact, n.body
		FROM (SELECT i.impact, i.path FROM memory_impacts i JOIN memory_impact_terms t ON t.dir = i.dir AND t.term = i.term
			WHERE i.dir = $1 AND i.term = $2 AND (i.impact > t.theta OR i.impact = t.theta AND i.path < t.theta_path)
			ORDER BY i.impact DESC, i.path LIMIT $3) i
		JOIN memory_notes n ON n.dir = $1 AND n.path = i.path
		ORDER BY i.impact DESC, i.path`, q.Dir, term, limit)
	if err != nil {
		return nil, false, err
	}
	hits, err := scanHits(rows, &q)
	if err != nil {
		return nil, false, err
	}
	if len(hits) < limit {
		return nil, false, nil
	}
	return hits, true, nil
}

// buildOrSkip builds term's list; false when the server is read only.
func (m *MemoryIndex) buildOrSkip(ctx context.Context, dir, term string) (bool, error) {
	if err := m.buildImpactList(ctx, dir, term); err != nil {
		// The list is a cache: a read-only server (a standby, a
		// read-only transaction) is searched without it.
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "25006" {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// buildImpactList ranks every note of the folder holding term once and
// keeps the best impactListLen; the next one is the bound. The notes are
// locked against writes meanwhile (SHARE), so that no note is written
// between the ranking and the list becoming visible to the writers.
func (m *MemoryIndex) buildImpactList(ctx context.Context, dir, term string) error {
	var theta float32
	var thetaPath string
	return pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE memory_notes IN SHARE MODE`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM memory_impacts WHERE dir = $1 AND term = $2`, dir, term); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM memory_impact_postings WHERE dir = $1 AND term = $2`, dir, term); err != nil {
			return err
		}
		// The term's notes, the folder's, and whether a longer lexeme
		// starts the term.
		var df, n int64
		var longer bool
		// The prefix's notes found by the GIN index alone (else the
		// planner reads every note's tsvector for the NOT).
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM memory_notes WHERE dir = $1 AND tsv @@ $2::tsquery),
			(SELECT count(*) FROM memory_notes WHERE dir = $1),
			EXISTS (SELECT 1 FROM (SELECT dir, tsv FROM memory_notes WHERE tsv @@ $3::tsquery OFFSET 0) p
				WHERE p.dir = $1 AND NOT p.tsv @@ $2::tsquery)`,
			dir, tsQuote(term), tsQuote(term)+":*").Scan(&df, &n, &longer); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = on`); err != nil {
			return err
		}
		listLen := int64(impactListLen)
		if float64(df) <= impactCompleteFrac*float64(n) {
			listLen = df // complete: theta stays 0
		}
		tag, err := tx.Exec(ctx, `INSERT INTO memory_impacts (dir, term, impact, path)
			SELECT $1, $2, ts_rank_cd('{0.1, 0.2, 0.5, 1.0}', tsv, $3::tsquery) AS r, path FROM memory_notes
			WHERE dir = $1 AND tsv @@ $3::tsquery ORDER BY r DESC, path LIMIT $4`, dir, term, tsQuote(term), listLen+1)
		if err != nil {
			return err
		}
		if tag.RowsAffected() > listLen {
			// The last one is the bound, not in the list.
			if err := tx.QueryRow(ctx, `DELETE FROM memory_impacts WHERE (dir, term, impact, path) =
				(SELECT dir, term, impact, path FROM memory_impacts WHERE dir = $1 AND term = $2 ORDER BY impact, path DESC LIMIT 1)
				RETURNING impact, path`, dir, term).Scan(&theta, &thetaPath); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO memory_impact_terms (dir, term, theta, theta_path, longer) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (dir, term) DO UPDATE SET theta = excluded.theta, theta_path = excluded.theta_path, longer = excluded.longer`, dir, term, theta, thetaPath, longer)
		return err
	})
}

// impactAnySearch answers a query of any of several terms (each one term,
// a prefix only of a term no longer lexeme starts) when every term has a
// complete list: a term without a list gets one when it is in at most
// impactCompleteFrac of the notes. The rank of an OR in ts_rank_cd sums
// the weights of every position of any of its terms (each is a cover of
// its own), so a note's rank is the sum of its lists' entries: summed in
// one aggregate over the lists, the first limit by rank, then path.
func (m *MemoryIndex) impactAnySearch(ctx context.Context, q memory.IndexQuery, limit int) ([]memory.IndexHit, bool, error) {
	if len(q.Phrases) > 8 || q.Tier != "" || q.AsOf != 0 || limit > impactListLen/2 {
		return nil, false, nil
	}
	terms := make([]string, len(q.Phrases))
	for i, p := range q.Phrases {
		if len(p.Terms) != 1 {
			return nil, false, nil
		}
		terms[i] = stripNUL(p.Terms[0])
	}
	heads, retired, err := m.anyHeads(ctx, q.Dir, terms)
	if err != nil || retired && !q.Retired {
		return nil, false, err
	}
	for i, t := range terms {
		h, ok := heads[t]
		if !ok {
			if ok, err := m.buildOrSkip(ctx, q.Dir, t); err != nil || !ok {
				return nil, false, err
			}
			if err := m.db.pool.QueryRow(ctx, `SELECT theta = 0, longer FROM memory_impact_terms WHERE dir = $1 AND term = $2`, q.Dir, t).Scan(&h.complete, &h.longer); err != nil {
				return nil, false, err
			}
			heads[t] = h
		}
		if !h.complete || q.Phrases[i].Prefix && h.longer {
			return nil, false, nil
		}
	}
	// Each list's cached entries (written from its rows when missing, in
	// the notes' order), merged and summed in float8 in the terms' order,
	// rounded to real as ts_rank_cd returns it.
	lists := make([]postings, len(terms))
	for i, t := range terms {
		if lists[i], err = m.listPostings(ctx, q.Dir, t); err != nil {
			return nil, false, err
		}
	}
	all, sorted := mergePostings(lists)
	if !sorted {
		return nil, false, nil
	}
	if len(all) == 0 {
		return nil, true, nil
	}
	// The limit-th best rank, and every note at it or above: their order
	// (ties by path in the database's collation) is the database's.
	h := make(sqlcommon.Top[float32], 0, min(limit, len(all)))
	for _, c := range all {
		h = h.Offer(c.rank)
	}
	var nids []int64
	var kept []float32
	for _, c := range all {
		if c.rank >= h[0] {
			nids, kept = append(nids, c.nid), append(kept, c.rank)
		}
	}
	rows, err := m.db.pool.Query(ctx, `SELECT n.path, n.tier, n.note_id, n.title, n.tags, n.warning, c.score, n.body
		FROM unnest($2::bigint[], $3::real[]) c(nid, score) JOIN memory_notes n ON n.nid = c.nid AND n.dir = $1
		ORDER BY c.score DESC, n.path LIMIT $4`, q.Dir, nids, kept, limit)
	if err != nil {
		return nil, false, err
	}
	hits, err := scanHits(rows, &q)
	return hits, err == nil, err
}

// postings is a complete list's cached entries: the notes' numbers
// (memory_notes.nid), ascending, and their ranks.
type postings struct {
	nids    []int64
	impacts []float32
}

// ranked is a note's number and rank.
type ranked struct {
	nid  int64
	rank float32
}

// mergePostings returns every note of any of the lists with its rank: the
// sum of its entries in the lists' order (float8, as ts_rank_cd sums), as
// real. ok is false when a list is not in ascending order of notes
// (checked as it goes; the search then ranks every match).
func mergePostings(lists []postings) (all []ranked, ok bool) {
	n := 0
	for _, l := range lists {
		n += len(l.nids)
	}
	all = make([]ranked, 0, n)
	pos := make([]int, len(lists))
	for {
		next := int64(math.MaxInt64)
		for i, l := range lists {
			if pos[i] < len(l.nids) && l.nids[pos[i]] < next {
				next = l.nids[pos[i]]
			}
		}
		if next == math.MaxInt64 {
			return all, true
		}
		sum := 0.0
		for i, l := range lists {
			if p := pos[i]; p < len(l.nids) && l.nids[p] == next {
				sum += float64(l.impacts[p])
				if pos[i]++; pos[i] < len(l.nids) && l.nids[pos[i]] <= next {
					return nil, false
				}
			}
		}
		all = append(all, ranked{next, float32(sum)})
	}
}

// decodePostings reads a list's cached entries: 8 bytes a note number
// and 4 a rank, big-endian (int8send, float4send); ok is false for
// entries of other lengths.
func decodePostings(nids, impacts []byte) (postings, bool) {
	if len(nids)%8 != 0 || len(impacts)%4 != 0 || len(nids)/8 != len(impacts)/4 {
		return postings{}, false
	}
	p := postings{nids: make([]int64, len(nids)/8), impacts: make([]float32, len(impacts)/4)}
	for i := range p.nids {
		p.nids[i] = int64(binary.BigEndian.Uint64(nids[8*i:]))
		p.impacts[i] = math.Float32frombits(binary.BigEndian.Uint32(impacts[4*i:]))
	}
	return p, true
}

// anyHead is what a query of several terms needs of a list.
type anyHead struct{ complete, longer bool }

// anyHeads reads, in one round trip, whether the folder has retired notes
// and the lists the terms have.
func (m *MemoryIndex) anyHeads(ctx context.Context, dir string, terms []string) (map[string]anyHead, bool, error) {
	rows, err := m.db.pool.Query(ctx, `SELECT NULL, false, false, EXISTS (SELECT 1 FROM memory_marks WHERE dir = $1 AND kind IN ('outdated', 'forgotten'))
		UNION ALL SELECT term, theta = 0, longer, false FROM memory_impact_terms WHERE dir = $1 AND term = ANY($2)`, dir, terms)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	heads := map[string]anyHead{}
	retired := false
	for rows.Next() {
		var term *string
		var h anyHead
		var r bool
		if err := rows.Scan(&term, &h.complete, &h.longer, &r); err != nil {
			return nil, false, err
		}
		if term == nil {
			retired = r
			continue
		}
		heads[*term] = h
	}
	return heads, retired, rows.Err()
}

// listPostings returns the entries of a term's list from its cache
// (memory_impact_postings), writing it from the rows when missing (with
// the lists locked against writes, so that none changes the rows in
// between); from the rows alone on a read-only server.
func (m *MemoryIndex) listPostings(ctx context.Context, dir, term string) (postings, error) {
	var nids, impacts []byte
	err := m.db.pool.QueryRow(ctx, `SELECT nids, impacts FROM memory_impact_postings WHERE dir = $1 AND term = $2`, dir, term).Scan(&nids, &impacts)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return postings{}, err
	}
	if err == nil {
		if p, ok := decodePostings(nids, impacts); ok {
			return p, nil
		}
	}
	const entries = `coalesce(string_agg(int8send(n.nid), ''::bytea ORDER BY n.nid), ''::bytea),
		coalesce(string_agg(float4send(i.impact), ''::bytea ORDER BY n.nid), ''::bytea)
		FROM memory_impacts i JOIN memory_notes n ON n.dir = i.dir AND n.path = i.path WHERE i.dir = $1 AND i.term = $2`
	err = pgx.BeginFunc(ctx, m.db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `LOCK TABLE memory_impacts IN SHARE MODE`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO memory_impact_postings (dir, term, nids, impacts) SELECT $1::text, $2::text, `+entries+`
			ON CONFLICT (dir, term) DO UPDATE SET nids = excluded.nids, impacts = excluded.impacts
			RETURNING nids, impacts`, dir, term).Scan(&nids, &impacts)
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "25006" {
		err = m.db.pool.QueryRow(ctx, `SELECT `+entries, dir, term).Scan(&nids, &impacts)
	}
	if err != nil {
		return postings{}, err
	}
	p, ok := decodePostings(nids, impacts)
	if !ok {
		return postings{}, fmt.Errorf("the impact list of %q in %s has entries of unequal lengths", term, dir)
	}
	return p, nil
}

// exactPrefixes returns q with its prefix phrases made exact where the
// folder indexes no longer lexeme that the phrase's last term starts (its
// list says so: longer false), which finds the same notes with the same
// ranks without expanding the prefix (one look-up, for a query with a
// prefix only).
func (m *MemoryIndex) exactPrefixes(ctx context.Context, q memory.IndexQuery) (memory.IndexQuery, error) {
	var terms []string
	for _, p := range q.Phrases {
		if p.Prefix && len(p.Terms) > 0 {
			terms = append(terms, stripNUL(p.Terms[len(p.Terms)-1]))
		}
	}
	if len(terms) == 0 {
		return q, nil
	}
	rows, err := m.db.pool.Query(ctx, `SELECT term FROM memory_impact_terms WHERE dir = $1 AND term = ANY($2) AND NOT longer`, q.Dir, terms)
	if err != nil {
		return q, err
	}
	exact, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(exact) == 0 {
		return q, err
	}
	q.Phrases = slices.Clone(q.Phrases)
	for i, p := range q.Phrases {
		if p.Prefix && len(p.Terms) > 0 && slices.Contains(exact, stripNUL(p.Terms[len(p.Terms)-1])) {
			q.Phrases[i].Prefix = false
		}
	}
	return q, nil
}
