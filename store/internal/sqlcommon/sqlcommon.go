// Package sqlcommon is what the two SQL stores (store/sqlite and
// store/postgres) share that is not dialect: the ledger filter as a WHERE
// clause, reading the memory index's file states, walking graph documents,
// and the order and ontology tallies of a graph batch. What differs — how
// a parameter and a time are written, the driver — each store passes in.
package sqlcommon

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/retrieve-dev/retrieve/graph"
	"github.com/retrieve-dev/retrieve/memory"
	"github.com/retrieve-dev/retrieve/store"
)

// Dialect is how a store writes what differs between SQL dialects.
type Dialect struct {
	// Param is the placeholder of the n-th parameter (from 1): "?" or "$n".
	Param func(n int) string
	// Time is a time as the ledger's time column holds it.
	Time func(t time.Time) any
}

// EntriesQuery is the query that lists the ledger entries f selects, newest
// first, reading columns, and its arguments.
func EntriesQuery(d Dialect, columns string, f store.Filter) (string, []any) {
	var where []string
	var args []any
	add := func(col, op string, v any) {
		if v == "" {
			return
		}
		args = append(args, v)
		where = append(where, col+" "+op+" "+d.Param(len(args)))
	}
	add("op", "=", f.Op)
	add("op", "<>", f.ExcludeOp)
	add("target", "=", f.Target)
	add("source", "=", f.Source)
	add("status", "=", f.Status)
	add("reference", "=", f.Reference)
	if f.ReferencePrefix != "" {
		// substr counts characters in both SQLite and PostgreSQL.
		args = append(args, int64(utf8.RuneCountInString(f.ReferencePrefix)), f.ReferencePrefix)
		where = append(where, "substr(reference, 1, "+d.Param(len(args)-1)+") = "+d.Param(len(args)))
	}
	if !f.Since.IsZero() {
		add("time", ">=", d.Time(f.Since.UTC()))
	}
	if !f.Until.IsZero() {
		add("time", "<", d.Time(f.Until.UTC()))
	}
	add("id", "<", f.BeforeID)
	q := `SELECT ` + columns + ` FROM ledger`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return q, args
}

// Rows is what both drivers' result sets do (database/sql's *Rows and
// pgx's Rows).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// FileStates reads rows of (path, size, mtime_ns, hash, indexed_ns), the
// memory index's state of each note file, by path.
func FileStates(rows Rows) (map[string]memory.FileState, error) {
	out := map[string]memory.FileState{}
	for rows.Next() {
		var p string
		var s memory.FileState
		if err := rows.Scan(&p, &s.Size, &s.ModTime, &s.Hash, &s.IndexedAt); err != nil {
			return nil, err
		}
		out[p] = s
	}
	return out, rows.Err()
}

// CountDelta is what a write of the memory index changes in its counts
// (memory_counts): per (kind, key) — ("notes", ""), ("tier", tier),
// ("tag", tag) — the notes that count in or out. A note counts once per
// distinct tag.
type CountDelta map[[2]string]int

// Add counts a note of tier with tags in (sign 1) or out (-1).
func (d CountDelta) Add(tier string, tags []string, sign int) {
	d[[2]string{"notes", ""}] += sign
	d[[2]string{"tier", tier}] += sign
	seen := map[string]bool{}
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			d[[2]string{"tag", t}] += sign
		}
	}
}

// AddJSON is Add with the tags as the index stores them (a JSON array).
func (d CountDelta) AddJSON(tier, tags string, sign int) {
	var ts []string
	_ = json.Unmarshal([]byte(tags), &ts) // the index wrote it: a valid array
	d.Add(tier, ts, sign)
}

// Rows are the changes, in (kind, key) order (the lock order of the
// writers), without the ones that cancel out.
func (d CountDelta) Rows() []TypeCount {
	out := make([]TypeCount, 0, len(d))
	for k, n := range d {
		if n != 0 {
			out = append(out, TypeCount{Kind: k[0], Type: k[1], N: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// VersionColumns are the columns of memory_versions ScanVersions reads.
const VersionColumns = `path, note_id, hash, title, body, from_ns, to_ns`

// ScanVersions reads rows of VersionColumns into versions by path, in the
// rows' order.
func ScanVersions(rows Rows) (map[string][]memory.NoteVersion, error) {
	out := map[string][]memory.NoteVersion{}
	for rows.Next() {
		var v memory.NoteVersion
		if err := rows.Scan(&v.Path, &v.ID, &v.Hash, &v.Title, &v.Body, &v.From, &v.To); err != nil {
			return nil, err
		}
		out[v.Path] = append(out[v.Path], v)
	}
	return out, rows.Err()
}

// ScanCountRows reads rows of (kind, key, n) of memory_counts into the
// counts of a folder.
func ScanCountRows(rows Rows) (*memory.IndexCounts, error) {
	out := &memory.IndexCounts{ByTier: map[string]int{}, ByTag: map[string]int{}}
	for rows.Next() {
		var kind, key string
		var n int
		if err := rows.Scan(&kind, &key, &n); err != nil {
			return nil, err
		}
		switch kind {
		case "notes":
			out.Notes += n
		case "tier":
			out.ByTier[key] += n
		case "tag":
			out.ByTag[key] += n
		}
	}
	for k, n := range out.ByTier {
		if n == 0 {
			delete(out.ByTier, k)
		}
	}
	for k, n := range out.ByTag {
		if n == 0 {
			delete(out.ByTag, k)
		}
	}
	return out, rows.Err()
}

// EdgeColumns are the columns of a graph edge that ScanEdge reads, in
// graph_edges and graph_edges_retired alike.
const EdgeColumns = `source, target, type, confidence, source_document, supporting_text, chunk_id, unverified, valid_from, valid_to, recorded_at, stale_at, stale_diff`

// RetiredEdgeColumns are the columns of a retired edge version that
// ScanRetiredEdge reads.
const RetiredEdgeColumns = EdgeColumns + `, retired_at, reason`

// ScanEdge reads a row of EdgeColumns.
func ScanEdge(r Rows) (*graph.Edge, error) {
	e := &graph.Edge{}
	var doc, text, chunk string
	if err := r.Scan(&e.Source, &e.Target, &e.Type, &e.Confidence, &doc, &text, &chunk, &e.Unverified,
		&e.ValidFrom, &e.ValidTo, &e.RecordedAt, &e.StaleAt, &e.StaleDiff); err != nil {
		return nil, err
	}
	e.SourceDocument, e.SupportingText, e.ChunkID = graph.NullString(doc), graph.NullString(text), graph.NullString(chunk)
	return e, nil
}

// ScanRetiredEdge reads a row of RetiredEdgeColumns.
func ScanRetiredEdge(r Rows) (*graph.Edge, error) {
	e := &graph.Edge{}
	var doc, text, chunk string
	if err := r.Scan(&e.Source, &e.Target, &e.Type, &e.Confidence, &doc, &text, &chunk, &e.Unverified,
		&e.ValidFrom, &e.ValidTo, &e.RecordedAt, &e.StaleAt, &e.StaleDiff, &e.RetiredAt, &e.Retired); err != nil {
		return nil, err
	}
	e.SourceDocument, e.SupportingText, e.ChunkID = graph.NullString(doc), graph.NullString(text), graph.NullString(chunk)
	return e, nil
}

// Rewrites is the SQL condition under which a batch's edge rewrites a
// stored one: a higher confidence, or other evidence from the document the
// batch replaces. The parameters, numbered from n (param writes a
// placeholder), are the confidence, the replaced document ("" for none)
// twice, the supporting text, the chunk, the confidence and the unverified
// flag; col qualifies the stored row's columns ("g." or "").
func Rewrites(col string, param func(int) string, n int) string {
	p := func(i int) string { return param(n + i) }
	return `(` + col + `confidence < ` + p(0) + ` OR (` + p(1) + ` <> '' AND ` + col + `source_document = ` + p(2) + ` AND (` + col + `supporting_text <> ` + p(3) +
		` OR ` + col + `chunk_id <> ` + p(4) + ` OR ` + col + `confidence <> ` + p(5) + ` OR ` + col + `unverified <> ` + p(6) + `)))`
}

// ChunkIDsGone are the ids of old that are not chunk ids of chunks.
func ChunkIDsGone(old []string, chunks []graph.Chunk) []string {
	keep := map[string]bool{}
	for _, c := range chunks {
		keep[c.ChunkID] = true
	}
	var gone []string
	for _, id := range old {
		if !keep[id] {
			gone = append(gone, id)
		}
	}
	return gone
}

// EdgesNotRestated are the keys of old (edges of the document a batch
// replaces) that the batch does not state, in key order.
func EdgesNotRestated(old []*graph.Edge, b *graph.Batch) []*graph.Edge {
	stated := map[string]bool{}
	for _, e := range b.Edges {
		stated[e.Key()] = true
	}
	var out []*graph.Edge
	for _, e := range old {
		if !stated[e.Key()] {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// EachDocument reads the graph documents ids names, one at a time, and
// hands each to fn: a store never holds a connection while fn runs.
func EachDocument(ctx context.Context, ids []string, read func(context.Context, string) (*graph.Document, error), fn func(*graph.Document) error) error {
	for _, id := range ids {
		d, err := read(ctx, id)
		if err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// SortedNodes are a batch's nodes in id order and SortedEdges its edges in
// (source, target, type) order: concurrent writers then take row locks in
// the same order and cannot deadlock, and ids come out the same each run.
func SortedNodes(b *graph.Batch) []*graph.Node {
	nodes := append([]*graph.Node(nil), b.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	return nodes
}

// SortedEdges: see SortedNodes.
func SortedEdges(b *graph.Batch) []*graph.Edge {
	edges := append([]*graph.Edge(nil), b.Edges...)
	sort.SliceStable(edges, func(i, j int) bool {
		a, c := edges[i], edges[j]
		if a.Source != c.Source {
			return a.Source < c.Source
		}
		if a.Target != c.Target {
			return a.Target < c.Target
		}
		return a.Type < c.Type
	})
	return edges
}

// TypeCount is one row of the graph ontology: how many nodes (kind
// "entity") or edges ("relation") have a type.
type TypeCount struct {
	Kind, Type string
	N          int
}

// OntologyRows are the ontology rows a batch writes, in (kind, type)
// order: add, the types of the nodes and edges it added (entityNew,
// relationNew), counted when b.CountNewTypes; atLeast, the counts of
// b.SetOntology, kept when the stored count is larger.
func OntologyRows(b *graph.Batch, entityNew, relationNew map[string]int) (add, atLeast []TypeCount) {
	if b.CountNewTypes {
		add = appendCounts(add, "entity", entityNew)
		add = appendCounts(add, "relation", relationNew)
	}
	if o := b.SetOntology; o != nil {
		atLeast = appendCounts(atLeast, "entity", o.EntityTypes)
		atLeast = appendCounts(atLeast, "relation", o.RelationTypes)
	}
	for _, l := range [][]TypeCount{add, atLeast} {
		sort.Slice(l, func(i, j int) bool { return l[i].Kind+"\x00"+l[i].Type < l[j].Kind+"\x00"+l[j].Type })
	}
	return add, atLeast
}

func appendCounts(l []TypeCount, kind string, m map[string]int) []TypeCount {
	for t, n := range m {
		l = append(l, TypeCount{kind, t, n})
	}
	return l
}

// OnlyNodes is the query of the ids of the live nodes that only document
// $1 (param(1)) supports, in id order: nodes it names (source document,
// an edge of it, a chunk of it), first named by it or by none, with no
// live edge and no chunk of another document. After its edges are retired, they are the nodes to retire.
func OnlyNodes(param func(int) string) string {
	d := param(1)
	return `SELECT n.id FROM graph_nodes n WHERE n.retired_at = 0 AND (n.source_document = ` + d + `
		OR n.id IN (SELECT source FROM graph_edges WHERE source_document = ` + d + `)
		OR n.id IN (SELECT target FROM graph_edges WHERE source_document = ` + d + `)
		OR n.id IN (SELECT source FROM graph_edges_retired WHERE source_document = ` + d + `)
		OR n.id IN (SELECT target FROM graph_edges_retired WHERE source_document = ` + d + `)
		OR n.id IN (SELECT nc.node_id FROM graph_node_chunks nc JOIN graph_chunks c ON c.chunk_id = nc.chunk_id WHERE c.doc_id = ` + d + `))
	AND n.source_document IN ('', ` + d + `)
	AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.source = n.id AND e.source_document <> ` + d + `)
	AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.target = n.id AND e.source_document <> ` + d + `)
	AND NOT EXISTS (SELECT 1 FROM graph_node_chunks nc JOIN graph_chunks c ON c.chunk_id = nc.chunk_id WHERE nc.node_id = n.id AND c.doc_id <> ` + d + `)
	ORDER BY n.id`
}

// ForgetEdgeColumns are RetiredEdgeColumns' values for a live edge that
// is forgotten: its supporting text and diff erased; param(1) is the
// time, the reason RetiredForgotten.
func ForgetEdgeColumns(param func(int) string) string {
	return `source, target, type, confidence, source_document, '', chunk_id, unverified, valid_from, valid_to, recorded_at, stale_at, '', ` +
		param(1) + `, '` + graph.RetiredForgotten + `'`
}

// ScanKeys reads rows of (source, target, type): edge keys.
func ScanKeys(r Rows) ([]*graph.Edge, error) {
	var out []*graph.Edge
	for r.Next() {
		e := &graph.Edge{}
		if err := r.Scan(&e.Source, &e.Target, &e.Type); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, r.Err()
}
