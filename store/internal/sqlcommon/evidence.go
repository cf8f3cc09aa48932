package sqlcommon

// An edge's evidence (issue 30): every document that states an edge keeps
// its own evidence in graph_edge_evidence, one row per (edge, document).
// The graph_edges row carries the edge's primary evidence — the one its
// queries, export and citations show: the best fresh one (highest
// confidence, then document id) when a change leaves it to choose. An edge
// goes stale only when every evidence row is stale; it is retired only
// when none is left. The statements below are the same in both dialects;
// param writes the n-th placeholder ("?n" or "$n").

// evKey matches the evidence rows of the graph_edges row being written.
const evKey = `v.source = graph_edges.source AND v.target = graph_edges.target AND v.type = graph_edges.type`

// EvidenceColumns read an evidence row of edge e as EdgeColumns (ScanEdge),
// from graph_edge_evidence v JOIN graph_edges e.
const EvidenceColumns = `v.source, v.target, v.type, v.confidence, v.doc_id, v.supporting_text, v.chunk_id, v.unverified, e.valid_from, e.valid_to, v.recorded_at, v.stale_at, v.stale_diff`

// EvidenceJoin is the FROM clause of EvidenceColumns.
const EvidenceJoin = `graph_edge_evidence v JOIN graph_edges e ON e.source = v.source AND e.target = v.target AND e.type = v.type`

// EvidenceUpsert writes one document's evidence of an edge: parameters
// source, target, type, document, chunk, supporting text, confidence,
// unverified, time. Evidence that changed is recorded again (fresh).
func EvidenceUpsert(param func(int) string) string {
	c := func(col string) string { return `graph_edge_evidence.` + col + ` <> excluded.` + col }
	return `INSERT INTO graph_edge_evidence (source, target, type, doc_id, chunk_id, supporting_text, confidence, unverified, recorded_at)
		VALUES (` + params(param, 1, 9) + `) ON CONFLICT (source, target, type, doc_id) DO UPDATE SET chunk_id = excluded.chunk_id,
		supporting_text = excluded.supporting_text, confidence = excluded.confidence, unverified = excluded.unverified,
		recorded_at = excluded.recorded_at, stale_at = 0, stale_diff = ''
		WHERE ` + c("chunk_id") + ` OR ` + c("supporting_text") + ` OR ` + c("confidence") + ` OR ` + c("unverified")
}

// EvidenceDelete removes one document's evidence of an edge: source,
// target, type, document.
func EvidenceDelete(param func(int) string) string {
	return `DELETE FROM graph_edge_evidence WHERE source = ` + param(1) + ` AND target = ` + param(2) + ` AND type = ` + param(3) + ` AND doc_id = ` + param(4)
}

// EvidenceRepoint gives the live edge (source, target, type) whose primary
// evidence came from document param(5), which no longer supports it, the
// best evidence left, recorded at param(4) (its previous version is
// retired first by the caller). An edge with no evidence left is not
// touched (the caller retires it).
func EvidenceRepoint(param func(int) string) string {
	return `UPDATE graph_edges SET (confidence, source_document, supporting_text, chunk_id, unverified, recorded_at, stale_at, stale_diff) =
		(SELECT v.confidence, v.doc_id, v.supporting_text, v.chunk_id, v.unverified, CAST(` + param(4) + ` AS BIGINT), v.stale_at, v.stale_diff
		 FROM graph_edge_evidence v WHERE ` + evKey + ` ORDER BY (v.stale_at > 0), v.confidence DESC, v.doc_id LIMIT 1)
		WHERE source = ` + param(1) + ` AND target = ` + param(2) + ` AND type = ` + param(3) + ` AND source_document = ` + param(5) + `
		AND NOT EXISTS (SELECT 1 FROM graph_edge_evidence v WHERE ` + evKey + ` AND v.doc_id = ` + param(5) + `)
		AND EXISTS (SELECT 1 FROM graph_edge_evidence v WHERE ` + evKey + `)`
}

// EvidenceOrphanDelete deletes the live edge (source, target, type) whose
// primary evidence came from document param(4) when no evidence is left.
func EvidenceOrphanDelete(param func(int) string) string {
	return `DELETE FROM graph_edges WHERE source = ` + param(1) + ` AND target = ` + param(2) + ` AND type = ` + param(3) + ` AND source_document = ` + param(4) + `
		AND NOT EXISTS (SELECT 1 FROM graph_edge_evidence v WHERE ` + evKey + `)`
}

// EvidenceStaleSync sets the stale mark of the live edge (source, target,
// type) from its evidence: fresh while one row is fresh, else stale since
// the last row went stale, with its primary evidence's diff. Only a
// change is written.
func EvidenceStaleSync(param func(int) string) string {
	fresh := `EXISTS (SELECT 1 FROM graph_edge_evidence v WHERE ` + evKey + ` AND v.stale_at = 0)`
	at := `CASE WHEN ` + fresh + ` THEN 0 ELSE (SELECT max(v.stale_at) FROM graph_edge_evidence v WHERE ` + evKey + `) END`
	diff := `CASE WHEN ` + fresh + ` THEN '' ELSE coalesce((SELECT v.stale_diff FROM graph_edge_evidence v WHERE ` + evKey +
		` AND v.doc_id = graph_edges.source_document), graph_edges.stale_diff) END`
	return `UPDATE graph_edges SET stale_at = ` + at + `, stale_diff = ` + diff + `
		WHERE source = ` + param(1) + ` AND target = ` + param(2) + ` AND type = ` + param(3) + `
		AND EXISTS (SELECT 1 FROM graph_edge_evidence v WHERE ` + evKey + `)
		AND (stale_at <> ` + at + ` OR stale_diff <> ` + diff + `)`
}

// EvidenceMark records verify's outcome on one document's evidence of an
// edge, while it is the version verify read: stale_at, diff, source,
// target, type, document, recorded_at.
func EvidenceMark(param func(int) string) string {
	return `UPDATE graph_edge_evidence SET stale_at = ` + param(1) + `, stale_diff = ` + param(2) + `
		WHERE source = ` + param(3) + ` AND target = ` + param(4) + ` AND type = ` + param(5) + ` AND doc_id = ` + param(6) + `
		AND recorded_at = ` + param(7) + ` AND (stale_at <> ` + param(1) + ` OR stale_diff <> ` + param(2) + `)`
}

// EvidenceOfEdge lists an edge's evidence, one row per document, as
// EdgeColumns: the primary first, then by confidence and document.
func EvidenceOfEdge(param func(int) string) string {
	return `SELECT ` + EvidenceColumns + ` FROM ` + EvidenceJoin + `
		WHERE v.source = ` + param(1) + ` AND v.target = ` + param(2) + ` AND v.type = ` + param(3) + `
		ORDER BY (v.doc_id = e.source_document) DESC, v.confidence DESC, v.doc_id`
}

// DocumentEvidence lists the evidence document param(1) gives live edges,
// as EdgeColumns, in key order.
func DocumentEvidence(param func(int) string) string {
	return `SELECT ` + EvidenceColumns + ` FROM ` + EvidenceJoin + ` WHERE v.doc_id = ` + param(1) + ` ORDER BY v.source, v.target, v.type`
}

func params(param func(int) string, from, to int) string {
	out := ""
	for i := from; i <= to; i++ {
		if i > from {
			out += ", "
		}
		out += param(i)
	}
	return out
}
