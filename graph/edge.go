package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/retrieve-dev/retrieve"
)

// EdgeID is the id of an edge, what graph:edge/<id> names: the id of its
// source node, a dot, and 12 hex digits of the sha256 of (source, target,
// type). An edge keeps its id while its endpoints and type stay (its
// confidence and evidence may change: the hash of what graph:edge/<id>
// returns then changes); it is found among the edges of its source node,
// so no store needs an index of edge ids. The hash part holds no dot, so
// the last dot splits an id even when an imported node id holds dots.
func EdgeID(e *Edge) string {
	h := sha256.Sum256([]byte("edge\x00" + e.Source + "\x00" + e.Target + "\x00" + e.Type))
	return e.Source + "." + hex.EncodeToString(h[:6])
}

// EdgeReference is the citation reference of an edge: graph:edge/<id>.
func EdgeReference(e *Edge) string { return "graph:edge/" + EdgeID(e) }

// EdgeView is what graph:edge/<id> returns: the relation with its
// evidence.
type EdgeView struct {
	ID   string  `json:"id"`
	From EdgeEnd `json:"from"`
	Type string  `json:"type"`
	To   EdgeEnd `json:"to"`
	// Confidence is the relation's confidence as ingested.
	Confidence float64 `json:"confidence"`
	// Verified is false for a relation whose supporting text was not found
	// in its chunk (kept with allow_unverified).
	Verified bool         `json:"verified"`
	Evidence EdgeEvidence `json:"evidence"`
	// Support lists every document's evidence of the edge, when more
	// than one document supports it (Evidence is the first): an edge is
	// stale only when all of it is.
	Support []EdgeSupport `json:"support,omitempty"`
}

// EdgeSupport is one document's evidence of an edge.
type EdgeSupport struct {
	DocID          string  `json:"doc_id"`
	ChunkID        string  `json:"chunk_id"`
	SupportingText string  `json:"supporting_text"`
	Confidence     float64 `json:"confidence"`
	// StaleSince is when graph verify found this evidence gone from its
	// source (RFC 3339; "" while it is there).
	StaleSince string `json:"stale_since,omitempty"`
}

// EdgeEnd is one end of an edge.
type EdgeEnd struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// EdgeEvidence is the text that supports an edge and where it is: the
// chunk (doc:<doc_id>#<chunk_id>) and the citation of the document it came
// from.
type EdgeEvidence struct {
	SupportingText *string `json:"supporting_text"`
	DocID          string  `json:"doc_id"`
	ChunkID        string  `json:"chunk_id"`
	Citation       HopCite `json:"citation"`
}

// FindEdge returns the whole edge (with its evidence) whose id is id, or an
// error with code NOT_FOUND.
func FindEdge(ctx context.Context, st Store, id string) (*Edge, error) {
	dot := strings.LastIndexByte(id, '.')
	notFound := retrieve.Errorf(retrieve.CodeNotFound, "no graph edge with id %q", id).
		WithHint("edge ids are <source node id>.<12 hex digits>: find them with graph_query or graph_evidence (each edge's id, each hop's edge)")
	if dot <= 0 || len(id)-dot-1 != 12 {
		return nil, notFound
	}
	source := id[:dot]
	light, err := st.IncidentEdges(ctx, []string{source}, 0)
	if err != nil {
		return nil, err
	}
	for _, e := range light {
		if e.Source != source || EdgeID(e) != id {
			continue
		}
		whole, err := st.EdgesAmong(ctx, []string{e.Source, e.Target}, 0)
		if err != nil {
			return nil, err
		}
		for _, w := range whole {
			if w.Key() == e.Key() {
				return w, nil
			}
		}
	}
	return nil, notFound
}

// ViewEdge returns what graph:edge/<id> shows: the edge id names, its end
// nodes and its evidence with the citation of its document. An unknown id
// is NOT_FOUND.
func ViewEdge(ctx context.Context, st Store, id string) (*EdgeView, error) {
	e, err := FindEdge(ctx, st, id)
	if err != nil {
		return nil, err
	}
	nodes, err := st.GraphNodes(ctx, []string{e.Source, e.Target})
	if err != nil {
		return nil, err
	}
	end := func(id string) EdgeEnd {
		if n := nodes[id]; n != nil {
			return EdgeEnd{ID: id, Name: n.Name, Type: n.Type}
		}
		return EdgeEnd{ID: id}
	}
	v := &EdgeView{ID: id, From: end(e.Source), Type: e.Type, To: end(e.Target), Confidence: e.Confidence, Verified: !e.Unverified,
		Evidence: EdgeEvidence{DocID: string(e.SourceDocument), ChunkID: string(e.ChunkID)}}
	if e.SupportingText != "" {
		s := string(e.SupportingText)
		v.Evidence.SupportingText = &s
	}
	v.Evidence.Citation.Reference = DocReference(string(e.SourceDocument), string(e.ChunkID))
	support, err := st.EdgeEvidence(ctx, e.Source, e.Target, e.Type)
	if err != nil {
		return nil, err
	}
	if len(support) > 1 {
		for _, s := range support {
			es := EdgeSupport{DocID: string(s.SourceDocument), ChunkID: string(s.ChunkID), SupportingText: string(s.SupportingText), Confidence: s.Confidence}
			if s.StaleAt != 0 {
				es.StaleSince = FromMicros(s.StaleAt)
			}
			v.Support = append(v.Support, es)
		}
	}
	if e.SourceDocument != "" {
		docs, err := st.GraphDocumentInfo(ctx, []string{string(e.SourceDocument)})
		if err != nil {
			return nil, err
		}
		if d := docs[string(e.SourceDocument)]; d != nil {
			v.Evidence.Citation.DocumentReference, v.Evidence.Citation.DocumentHash, v.Evidence.Citation.RetrievalID = d.Reference, d.Hash, d.RetrievalID
		}
	}
	return v, nil
}
