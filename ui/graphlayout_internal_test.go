package ui

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The layout of graphs a person must read: a star of 130 spokes (one page
// of an answer and more), a dense random graph, a chain, two edges between
// the same nodes. No two node boxes (circle and label) overlap, no shown
// edge label overlaps a node box or another label, every node is inside
// the canvas, edges end on their circles, and the same graph gives the
// same drawing.
func TestGraphLayoutReadable(t *testing.T) {
	cases := map[string]func() *gEvidence{
		"star": func() *gEvidence {
			ev := newEv()
			for i := range 130 {
				addEdge(ev, "switchboard", fmt.Sprintf("line%03d", i), "routes")
			}
			return ev
		},
		"dense": func() *gEvidence {
			ev := newEv()
			r := rand.New(rand.NewPCG(1, 2))
			for range 120 {
				a, b := r.IntN(40), r.IntN(40)
				if a != b {
					addEdge(ev, fmt.Sprintf("entity with a long name %d", a), fmt.Sprintf("entity with a long name %d", b), "depends on")
				}
			}
			return ev
		},
		"chain": func() *gEvidence {
			ev := newEv()
			for i := range 12 {
				addEdge(ev, fmt.Sprintf("step %d", i), fmt.Sprintf("step %d", i+1), "causes")
			}
			return ev
		},
		"both ways": func() *gEvidence {
			ev := newEv()
			addEdge(ev, "cache", "heap", "uses")
			addEdge(ev, "heap", "cache", "feeds")
			addEdge(ev, "cache", "heap", "leaks into")
			return ev
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			v := graphView{Depth: 2, MinConfidence: 0.5}
			nodes, edges := layoutGraph(mk(), &v)
			var boxes []box
			for _, n := range nodes {
				if n.X < 0 || n.Y < 0 || n.X > v.W || n.Y > v.H {
					t.Errorf("node %s at (%v, %v) is outside the %vx%v canvas", n.Name, n.X, n.Y, v.W, v.H)
				}
				b := nodeBox(n.X, n.Y, nodeLabelW(n.Name))
				for j, o := range boxes {
					if b.overlaps(o) {
						t.Fatalf("node %s overlaps node %s", n.Name, nodes[j].Name)
					}
				}
				boxes = append(boxes, b)
			}
			shown := 0
			for _, e := range edges {
				if !e.ShowLabel {
					continue
				}
				shown++
				w := float64(len([]rune(e.Type)))*6.2 + 6
				lb := box{e.LX - w/2, e.LY - 11, e.LX + w/2, e.LY + 3}
				if overlapsAny(lb, boxes) {
					t.Fatalf("the label of %s -%s-> %s overlaps another label", e.From, e.Type, e.To)
				}
				boxes = append(boxes, lb)
			}
			if name != "star" && name != "dense" && shown != len(edges) {
				t.Errorf("%d of %d edge labels shown", shown, len(edges))
			}
			if name == "both ways" && (edges[0].CX == edges[2].CX && edges[0].CY == edges[2].CY) {
				t.Errorf("two edges between the same nodes are drawn on one curve")
			}
			v2 := graphView{Depth: 2, MinConfidence: 0.5}
			nodes2, edges2 := layoutGraph(mk(), &v2)
			if fmt.Sprint(nodes2, edges2) != fmt.Sprint(nodes, edges) {
				t.Error("the same graph was drawn differently")
			}
		})
	}
}

func newEv() *gEvidence {
	ev := &gEvidence{}
	ev.Subgraph.Nodes = map[string]gNode{}
	return ev
}

func addEdge(ev *gEvidence, a, b, typ string) {
	for _, n := range []string{a, b} {
		ev.Subgraph.Nodes["id "+n] = gNode{Name: n, Type: "component"}
	}
	ev.Subgraph.Edges = append(ev.Subgraph.Edges, gEdge{Source: "id " + a, Target: "id " + b, Type: typ, Confidence: 0.9})
}
