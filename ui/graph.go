package ui

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The graph operations' JSON, as documented in docs/graph.md.
type (
	gNode struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	gEdge struct {
		Source         string  `json:"source"`
		Target         string  `json:"target"`
		Type           string  `json:"type"`
		Confidence     float64 `json:"confidence"`
		SourceDocument *string `json:"source_document"`
		SupportingText *string `json:"supporting_text"`
		ChunkID        *string `json:"chunk_id"`
		Unverified     bool    `json:"unverified"`
		StaleSince     string  `json:"stale_since"`
		RetiredAt      string  `json:"retired_at"`
		RecordedAt     string  `json:"recorded_at"`
	}
	gChunk struct {
		ChunkID string `json:"chunk_id"`
		Text    string `json:"text"`
	}
	gDoc struct {
		DocID     string   `json:"doc_id"`
		DocTitle  string   `json:"doc_title"`
		Chunks    []gChunk `json:"supporting_chunks"`
		Reference string   `json:"reference"`
		Hash      string   `json:"hash"`
	}
	gHop struct {
		From       string  `json:"from"`
		To         string  `json:"to"`
		Type       string  `json:"type"`
		Confidence float64 `json:"confidence"`
	}
	gPath struct {
		Chain      string  `json:"chain"`
		Hops       []gHop  `json:"hops"`
		Confidence float64 `json:"confidence"`
	}
	gEvidence struct {
		Query    string `json:"query"`
		Subgraph struct {
			Nodes map[string]gNode `json:"nodes"`
			Edges []gEdge          `json:"edges"`
		} `json:"subgraph"`
		Docs        []gDoc   `json:"supporting_documents"`
		Paths       []gPath  `json:"paths"`
		Confidence  float64  `json:"confidence"`
		NextCursor  string   `json:"next_cursor"`
		Assumptions []string `json:"assumptions"`
	}
)

// Size of the drawing (SVG user units).
const (
	graphW    = 960
	graphH    = 640
	ringGap   = 130.0
	nodeR     = 9.0
	maxLabelR = 24
)

type svgNode struct {
	ID, Name, Type string
	X, Y           float64
	Seed           bool
	Href           string
}

type svgEdge struct {
	N              int
	X1, Y1, X2, Y2 float64
	CX, CY         float64 // the control point of the curve
	LX, LY         float64 // label position
	ShowLabel      bool    // a place was found for the label
	// Freshness is fresh, stale (its source changed, graph verify) or
	// retired (an as-of view: retired since); StaleSince, RetiredAt,
	// RecordedAt are its times.
	Freshness                         string
	StaleSince, RetiredAt, RecordedAt string
	From, To, Type                    string
	Confidence                        float64
	Unverified                        bool
	Supporting                        string
	Before, Mark, Post                string // the chunk text around the supporting text
	Found                             bool   // the supporting text was found in the chunk
	Reference                         string // doc:<doc_id>#<chunk_id>
	DocReference                      string
	DocHash                           string
	DocTitle                          string
	Paths                             []string
}

type graphView struct {
	Query         string
	Depth         int
	MinConfidence float64
	MaxNodes      int
	AsOf          string
	Stale         string
	Assumptions   []string
	W, H          float64
	Nodes         []svgNode
	Edges         []svgEdge
	Paths         []gPath
	Confidence    float64
	Asked         bool
}

func (h *Handler) graph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := graphView{Query: strings.TrimSpace(q.Get("q")), Depth: 2, MinConfidence: 0.5, MaxNodes: 40, W: graphW, H: graphH}
	if n, err := strconv.Atoi(q.Get("depth")); err == nil && n >= 1 && n <= 5 {
		v.Depth = n
	}
	if f, err := strconv.ParseFloat(q.Get("min_confidence"), 64); err == nil && f >= 0 && f <= 1 {
		v.MinConfidence = f
	}
	if n, err := strconv.Atoi(q.Get("max_nodes")); err == nil && n >= 1 && n <= 200 {
		v.MaxNodes = n
	}
	v.AsOf = strings.TrimSpace(q.Get("as_of"))
	switch st := q.Get("stale"); st {
	case "include", "exclude":
		v.Stale = st
	default:
		v.Stale = "rank"
	}
	if v.Query == "" {
		h.render(w, http.StatusOK, "graph", page{Title: "Graph", Nav: "graph", Data: v})
		return
	}
	v.Asked = true
	in := map[string]any{"query": v.Query, "depth": v.Depth, "min_confidence": v.MinConfidence, "max_nodes": v.MaxNodes, "stale": v.Stale}
	if v.AsOf != "" {
		in["as_of"] = v.AsOf
	}
	ev, err := h.evidence(r.Context(), in)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Paths, v.Confidence, v.Assumptions = ev.Paths, ev.Confidence, ev.Assumptions
	v.Nodes, v.Edges = layoutGraph(ev, &v)
	h.render(w, http.StatusOK, "graph", page{Title: "Graph: " + v.Query, Nav: "graph", Data: v})
}

// evidence reads every page of an evidence answer (the drawing needs the
// whole subgraph) and joins them: the pages hold each edge, path and
// supporting chunk once, the nodes of their edges.
func (h *Handler) evidence(ctx context.Context, in map[string]any) (*gEvidence, error) {
	var ev gEvidence
	for pages := 0; ; pages++ {
		var p gEvidence
		if err := h.call(ctx, "graph_evidence", in, &p); err != nil {
			return nil, err
		}
		if pages == 0 {
			ev = p
		} else {
			for id, n := range p.Subgraph.Nodes {
				ev.Subgraph.Nodes[id] = n
			}
			ev.Subgraph.Edges = append(ev.Subgraph.Edges, p.Subgraph.Edges...)
			ev.Docs = append(ev.Docs, p.Docs...)
			ev.Paths = append(ev.Paths, p.Paths...)
		}
		if p.NextCursor == "" || pages == maxGraphPages {
			return &ev, nil
		}
		in["cursor"] = p.NextCursor
	}
}

// maxGraphPages bounds the pages one drawing reads (max_nodes ≤ 200 keeps
// answers far below it).
const maxGraphPages = 50

// layoutGraph places the subgraph (forceLayout from rings around its
// seeds, the nodes the paths start from) and draws its edges.
func layoutGraph(ev *gEvidence, v *graphView) ([]svgNode, []svgEdge) {
	nodes := ev.Subgraph.Nodes
	if len(nodes) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(nodes))
	widths := map[string]float64{}
	for id, n := range nodes {
		ids = append(ids, id)
		widths[id] = nodeLabelW(n.Name)
	}
	sort.Strings(ids)
	seeds, seen := graphSeeds(ev, ids)
	rings, parent := graphRings(ev.Subgraph.Edges, ids, seeds)
	pos := ringPositions(rings, parent)
	ends := make([][2]string, len(ev.Subgraph.Edges))
	for i, e := range ev.Subgraph.Edges {
		ends[i] = [2]string{e.Source, e.Target}
	}
	forceLayout(ids, ends, pos, widths)
	v.W, v.H = fitCanvas(ids, pos, widths)
	outNodes := make([]svgNode, 0, len(ids))
	for _, id := range ids {
		n := nodes[id]
		p := pos[id]
		href := "/ui/graph?q=" + url.QueryEscape(n.Name) + "&depth=" + strconv.Itoa(v.Depth) + "&min_confidence=" + strconv.FormatFloat(v.MinConfidence, 'f', -1, 64)
		if v.AsOf != "" {
			href += "&as_of=" + url.QueryEscape(v.AsOf)
		}
		outNodes = append(outNodes, svgNode{ID: id, Name: n.Name, Type: n.Type, X: p[0], Y: p[1], Seed: seen[id], Href: href})
	}
	docs := map[string]gDoc{}
	for _, d := range ev.Docs {
		docs[d.DocID] = d
	}
	outEdges := make([]svgEdge, 0, len(ev.Subgraph.Edges))
	for i, e := range ev.Subgraph.Edges {
		outEdges = append(outEdges, drawEdge(ev, i, e, docs))
	}
	edgeGeometry(outEdges, ends, pos, ids, widths)
	return outNodes, outEdges
}

// graphSeeds are the nodes the evidence paths start from (the first node
// when there is no path), in the paths' order.
func graphSeeds(ev *gEvidence, ids []string) (seeds []string, seen map[string]bool) {
	byName := map[string]string{}
	for id, n := range ev.Subgraph.Nodes {
		byName[n.Name] = id
	}
	seen = map[string]bool{}
	for _, p := range ev.Paths {
		if len(p.Hops) == 0 {
			continue
		}
		if id, ok := byName[p.Hops[0].From]; ok && !seen[id] {
			seen[id] = true
			seeds = append(seeds, id)
		}
	}
	if len(seeds) == 0 {
		seeds = []string{ids[0]}
		seen[ids[0]] = true
	}
	return seeds, seen
}

// graphRings are the breadth-first rings from the seeds, with the node
// each was reached from; unreachable nodes go on the last ring.
func graphRings(edges []gEdge, ids, seeds []string) (rings [][]string, parent map[string]string) {
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e.Source] = append(adj[e.Source], e.Target)
		adj[e.Target] = append(adj[e.Target], e.Source)
	}
	depth := map[string]int{}
	parent = map[string]string{}
	rings = [][]string{seeds}
	for _, s := range seeds {
		depth[s] = 0
	}
	for d := 0; d < len(rings); d++ {
		var next []string
		for _, id := range rings[d] {
			nb := append([]string(nil), adj[id]...)
			sort.Strings(nb)
			for _, m := range nb {
				if _, ok := depth[m]; ok {
					continue
				}
				depth[m], parent[m] = d+1, id
				next = append(next, m)
			}
		}
		if len(next) > 0 {
			rings = append(rings, next)
		}
	}
	var rest []string
	for _, id := range ids {
		if _, ok := depth[id]; !ok {
			rest = append(rest, id)
		}
	}
	if len(rest) > 0 {
		rings = append(rings, rest)
	}
	return rings, parent
}

// ringPositions places each ring on a circle around the centre, a node
// near the angle of the node it was reached from.
func ringPositions(rings [][]string, parent map[string]string) map[string][2]float64 {
	cx, cy := float64(graphW)/2, float64(graphH)/2
	scale := math.Min(1, (float64(graphH)/2-40)/(ringGap*float64(max(1, len(rings)-1))))
	angle := map[string]float64{}
	pos := map[string][2]float64{}
	for d, ring := range rings {
		if d > 0 {
			sort.SliceStable(ring, func(i, j int) bool { return angle[parent[ring[i]]] < angle[parent[ring[j]]] })
		}
		radius := float64(d) * ringGap * scale
		if d == 0 && len(ring) > 1 {
			radius = 40
		}
		for i, id := range ring {
			a := 2*math.Pi*float64(i)/float64(len(ring)) - math.Pi/2
			angle[id] = a
			pos[id] = [2]float64{cx + radius*math.Cos(a), cy + radius*math.Sin(a)}
		}
	}
	return pos
}

// drawEdge is edge i with its evidence (edgeGeometry places it): the
// supporting text marked in its chunk, the paths it is on, its freshness.
func drawEdge(ev *gEvidence, i int, e gEdge, docs map[string]gDoc) svgEdge {
	nodes := ev.Subgraph.Nodes
	se := svgEdge{N: i + 1, From: nodes[e.Source].Name, To: nodes[e.Target].Name, Type: e.Type, Confidence: e.Confidence, Unverified: e.Unverified,
		Freshness: "fresh", StaleSince: e.StaleSince, RetiredAt: e.RetiredAt, RecordedAt: e.RecordedAt}
	switch {
	case e.RetiredAt != "":
		se.Freshness = "retired"
	case e.StaleSince != "":
		se.Freshness = "stale"
	}
	if e.SupportingText != nil {
		se.Supporting = *e.SupportingText
	}
	if e.SourceDocument != nil {
		d := docs[*e.SourceDocument]
		se.DocReference, se.DocHash, se.DocTitle = d.Reference, d.Hash, d.DocTitle
		if e.ChunkID != nil {
			se.Reference = "doc:" + d.DocID + "#" + *e.ChunkID
			markSupport(&se, d.Chunks, *e.ChunkID)
		}
	}
	for _, p := range ev.Paths {
		for _, hop := range p.Hops {
			if hop.Type == e.Type && ((hop.From == se.From && hop.To == se.To) || (hop.From == se.To && hop.To == se.From)) {
				se.Paths = append(se.Paths, p.Chain)
				break
			}
		}
	}
	return se
}

// markSupport splits the edge's chunk around its supporting text.
func markSupport(se *svgEdge, chunks []gChunk, chunkID string) {
	for _, c := range chunks {
		if c.ChunkID != chunkID {
			continue
		}
		if k := strings.Index(c.Text, se.Supporting); se.Supporting != "" && k >= 0 {
			se.Before, se.Mark, se.Post, se.Found = c.Text[:k], se.Supporting, c.Text[k+len(se.Supporting):], true
		} else {
			se.Before = c.Text
		}
	}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
