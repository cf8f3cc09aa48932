// Package graph is the source of knowledge-graph citations: doc:<doc_id>
// (a whole ingested document), doc:<doc_id>#<chunk_id> (the chunk a hop's
// evidence is in), graph:node/<name or id> (an entity with its edges) and
// graph:edge/<id> (a relation with its evidence), so that `retrieve get`
// re-retrieves what `retrieve graph query` and `retrieve graph evidence`
// cite.
package graph

import (
	"context"
	"io"
	"strings"

	"github.com/retrieve-dev/retrieve"
	"github.com/retrieve-dev/retrieve/graph"
)

// Source reads the graph of one workspace.
type Source struct {
	open func(context.Context) (graph.Store, error)
}

var (
	_ retrieve.Source          = (*Source)(nil)
	_ retrieve.Schemer         = (*Source)(nil)
	_ retrieve.ReferenceParser = (*Source)(nil)
)

// New returns the source; open is called on first use to reach the store.
func New(open func(context.Context) (graph.Store, error)) *Source { return &Source{open: open} }

// Kind implements retrieve.Source.
func (s *Source) Kind() string { return "graph" }

// Schemes implements retrieve.Schemer: doc:<doc_id>[#<chunk_id>], graph:node/<name or id> and graph:edge/<id>.
func (s *Source) Schemes() []string { return []string{"doc", "graph"} }

// ParseReference implements retrieve.ReferenceParser: doc:… and graph:…,
// whole (a node's name may end in :N).
func (s *Source) ParseReference(ref string) (retrieve.Reference, bool) {
	scheme, _, _ := strings.Cut(ref, ":")
	return retrieve.WholeReference(scheme, ref), true
}

// Fetch implements retrieve.Source.
func (s *Source) Fetch(ctx context.Context, req *retrieve.Request) (*retrieve.Document, error) {
	t := req.Target
	st, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(t, "doc:"):
		docID, chunkID, _ := strings.Cut(strings.TrimPrefix(t, "doc:"), "#")
		d, err := st.GraphDocument(ctx, docID)
		if err != nil {
			return nil, err
		}
		text, label := d.Content, "graph:doc/"+docID
		if chunkID != "" {
			found := false
			for _, c := range d.Chunks {
				if c.ChunkID == chunkID {
					text, found = c.Text, true
				}
			}
			if !found {
				e := retrieve.Errorf(retrieve.CodeNotFound, "document %s has no chunk %s", docID, chunkID).
					WithHint("chunks are named <doc_id>_chunk_NNN")
				for _, c := range d.Chunks {
					if len(e.Alternatives) < 5 {
						e.Alternatives = append(e.Alternatives, graph.DocReference(docID, c.ChunkID))
					}
				}
				return nil, e
			}
			label += "#" + chunkID
		}
		meta := map[string]any{"doc_id": docID, "title": d.Title, "source": retrieve.RedactURL(d.Source)}
		if d.Reference != "" {
			meta["document_reference"], meta["document_hash"] = d.Reference, d.Hash
		}
		doc := &retrieve.Document{Body: io.NopCloser(strings.NewReader(text)), Size: int64(len(text)), Format: "text",
			Name: docID + ".txt", Locator: t, Label: label, Authority: retrieve.AuthorityMedium,
			Reliability: "ingested document text, stored as ingested", Metadata: meta}
		if d.Reference != "" {
			doc.Assumptions = []string{"the text is as ingested from " + d.Reference + " (" + d.Hash + "); retrieve that reference for the current version"}
		}
		return doc, nil
	case strings.HasPrefix(t, "graph:edge/"):
		id := strings.TrimPrefix(t, "graph:edge/")
		v, err := graph.ViewEdge(ctx, st, id)
		if err != nil {
			return nil, err
		}
		authority := retrieve.AuthorityMedium
		if v.Confidence < 0.8 {
			authority = retrieve.AuthorityLow
		}
		return &retrieve.Document{Data: v, Format: "json", Locator: t, Label: t, Authority: authority,
			Reliability: "agent-extracted relation; its supporting text is cited by evidence.citation"}, nil
	default:
		rest := strings.TrimPrefix(t, "graph:")
		name, ok := strings.CutPrefix(rest, "node/")
		if !ok {
			return nil, retrieve.Errorf(retrieve.CodeInputValidation, "unknown graph reference %q", t).
				WithHint("use graph:node/<entity name or id>, graph:edge/<id>, doc:<doc_id> or doc:<doc_id>#<chunk_id>")
		}
		ids, err := st.NodeIDsByName(ctx, []string{graph.NormalizeName(name)})
		if err != nil {
			return nil, err
		}
		id, ok := ids[graph.NormalizeName(name)]
		if !ok {
			id = name // graph:node/<id>, the id a query result shows
		}
		nodes, err := st.GraphNodes(ctx, []string{id})
		if err != nil {
			return nil, err
		}
		if nodes[id] == nil {
			return nil, retrieve.Errorf(retrieve.CodeNotFound, "no graph entity named or with id %q", name).
				WithHint("find entities with `retrieve graph query`")
		}
		light, err := st.IncidentEdges(ctx, []string{id}, 0)
		if err != nil {
			return nil, err
		}
		ids = map[string]string{id: id}
		around := []string{id}
		for _, e := range light {
			for _, x := range []string{e.Source, e.Target} {
				if _, ok := ids[x]; !ok {
					ids[x] = x
					around = append(around, x)
				}
			}
		}
		all, err := st.EdgesAmong(ctx, around, 0)
		if err != nil {
			return nil, err
		}
		edges := []*graph.Edge{}
		for _, e := range all {
			if e.Source == id || e.Target == id {
				edges = append(edges, e)
			}
		}
		data := map[string]any{"id": id, "node": nodes[id], "edges": edges}
		return &retrieve.Document{Data: data, Format: "json", Locator: t, Label: "graph:node/" + graph.NormalizeName(name),
			Authority: retrieve.AuthorityMedium, Reliability: "agent-extracted entity; every edge cites its chunk"}, nil
	}
}
