package graph

import "context"

// Paged answers. A query's answer is cut into items so that it can be read
// a page at a time (graph_query, graph_evidence, `retrieve graph query
// --limit/--cursor`): an item is one edge of the subgraph, in the order of
// Subgraph.Edges (confidence descending, then source, target, type), then
// one item per node that no edge of the answer touches, in traversal order
// (seeds first). A page is self-contained: it carries the nodes its edges
// join (a node may come again on a later page), and, for evidence, the
// paths that end with its edges and the chunk texts its edges and its new
// nodes cite. The pages of an answer, joined, are the whole answer: every
// edge, node, path and supporting chunk exactly once (nodes repeated only
// as the ends of edges), in the whole answer's order.

// Item is one item of a paged answer. Its JSON is what it adds to a page,
// so that a page can be cut to a message budget by the sizes of its items.
type Item struct {
	// Edge is the item's edge, nil for a node that no edge touches.
	Edge *Edge `json:"edge,omitempty"`
	// EdgeID is the edge's id (graph:edge/<id>).
	EdgeID string `json:"edge_id,omitempty"`
	// Nodes are the nodes the item needs: the edge's two ends, or the lone
	// node.
	Nodes []*Node `json:"nodes"`
	// Paths (evidence only) are the paths whose last hop is the edge.
	Paths []Path `json:"paths,omitempty"`
	// Chunks (evidence only) are the supporting chunks that this item
	// cites first in the answer.
	Chunks []SupportChunk `json:"chunks,omitempty"`

	index int
}

// Answer is a query's whole answer, cut into items.
type Answer struct {
	Items []Item
	// TotalNodes and TotalEdges count the whole answer.
	TotalNodes, TotalEdges int
	// Assumptions are the whole answer's (as-of, stale edges).
	Assumptions []string

	query string
	tr    *traversal
	// Evidence answers: the whole output, and which item each supporting
	// chunk (doc, chunk) and each path belongs to.
	ev         *EvidenceOutput
	chunkOwner map[[2]string]int
	pathOwner  []int
}

// QueryAnswer runs a query and cuts its subgraph into items.
func (t *Tools) QueryAnswer(ctx context.Context, in QueryInput) (*Answer, error) {
	tr, err := t.traverse(ctx, in)
	if err != nil {
		return nil, err
	}
	return newAnswer(in.Query, tr), nil
}

func newAnswer(query string, tr *traversal) *Answer {
	a := &Answer{query: query, tr: tr, TotalNodes: len(tr.sub.Nodes), TotalEdges: len(tr.sub.Edges), Assumptions: tr.assumptions}
	touched := map[string]bool{}
	for _, e := range tr.sub.Edges {
		it := Item{Edge: e, EdgeID: EdgeID(e), index: len(a.Items)}
		for _, id := range []string{e.Source, e.Target} {
			touched[id] = true
			if n := tr.sub.Nodes[id]; n != nil {
				it.Nodes = append(it.Nodes, n)
			}
		}
		a.Items = append(a.Items, it)
	}
	for _, id := range tr.order {
		if n := tr.sub.Nodes[id]; n != nil && !touched[id] {
			a.Items = append(a.Items, Item{Nodes: []*Node{n}, index: len(a.Items)})
		}
	}
	return a
}

// Subgraph is the part of the answer that items hold: their edges and the
// nodes they need. All the items give the whole subgraph.
func (a *Answer) Subgraph(items []Item) *Subgraph {
	sub := &Subgraph{Nodes: map[string]*Node{}, Edges: []*Edge{}}
	for _, it := range items {
		if it.Edge != nil {
			sub.Edges = append(sub.Edges, it.Edge)
		}
		for _, n := range it.Nodes {
			sub.Nodes[n.ID] = n
		}
	}
	return sub
}

// EvidenceAnswer runs a query with evidence and cuts it into items.
func (t *Tools) EvidenceAnswer(ctx context.Context, in QueryInput) (*Answer, error) {
	tr, err := t.traverse(ctx, in)
	if err != nil {
		return nil, err
	}
	ev, err := t.evidence(ctx, in.Query, tr)
	if err != nil {
		return nil, err
	}
	a := newAnswer(in.Query, tr)
	a.ev = ev
	// Each supporting chunk belongs to the first item that cites it: an
	// edge its evidence chunk, a node its source chunks.
	a.chunkOwner = map[[2]string]int{}
	own := func(doc, chunk string, item int) {
		k := [2]string{doc, chunk}
		if _, ok := a.chunkOwner[k]; !ok && doc != "" && chunk != "" {
			a.chunkOwner[k] = item
		}
	}
	byEdge := map[string]int{}
	for i := range a.Items {
		it := &a.Items[i]
		if it.Edge != nil {
			byEdge["graph:edge/"+it.EdgeID] = i
		}
		for _, n := range it.Nodes {
			for _, c := range n.SourceChunks {
				own(string(n.SourceDocument), c, i)
			}
		}
		if it.Edge != nil {
			own(string(it.Edge.SourceDocument), string(it.Edge.ChunkID), i)
		}
	}
	// A path belongs to the item of its last hop's edge (every hop's edge
	// is an edge of the subgraph); failing that, to the first item.
	a.pathOwner = make([]int, len(ev.Paths))
	for p, path := range ev.Paths {
		last := path.Hops[len(path.Hops)-1]
		a.pathOwner[p] = byEdge[last.Edge]
		a.Items[a.pathOwner[p]].Paths = append(a.Items[a.pathOwner[p]].Paths, path)
	}
	for _, d := range ev.SupportingDocuments {
		for _, c := range d.SupportingChunks {
			if i, ok := a.chunkOwner[[2]string{d.DocID, c.ChunkID}]; ok {
				a.Items[i].Chunks = append(a.Items[i].Chunks, c)
			}
		}
	}
	return a, nil
}

// Evidence is the evidence output that items hold: their subgraph, the
// supporting chunks and paths they own, in the whole answer's order, and
// the evidence chain of their edges. Confidence is the whole answer's
// (its best path).
func (a *Answer) Evidence(items []Item) *EvidenceOutput {
	sub := a.Subgraph(items)
	out := &EvidenceOutput{Query: a.query, Subgraph: sub, SupportingDocuments: []SupportDoc{}, Paths: []Path{}, Assumptions: a.Assumptions}
	if a.ev == nil {
		return out
	}
	out.Confidence = a.ev.Confidence
	if len(a.tr.sub.Nodes) == 0 {
		out.EvidenceChain = a.ev.EvidenceChain
		return out
	}
	on := map[int]bool{}
	for _, it := range items {
		on[it.index] = true
	}
	for _, d := range a.ev.SupportingDocuments {
		sd := d
		sd.SupportingChunks = nil
		for _, c := range d.SupportingChunks {
			if i, ok := a.chunkOwner[[2]string{d.DocID, c.ChunkID}]; ok && on[i] {
				sd.SupportingChunks = append(sd.SupportingChunks, c)
			}
		}
		if len(sd.SupportingChunks) > 0 {
			out.SupportingDocuments = append(out.SupportingDocuments, sd)
		}
	}
	for p, path := range a.ev.Paths {
		if on[a.pathOwner[p]] {
			out.Paths = append(out.Paths, path)
		}
	}
	out.EvidenceChain = a.tr.chain(sub.Edges)
	return out
}
