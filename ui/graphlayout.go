package ui

import (
	"math"
	"sort"
)

// The drawing of a subgraph (docs/graph.md, "See it"): a force-directed
// layout computed here, in Go, so the page needs no script and works
// offline. It starts from rings around the seeds (ringPositions, so the
// result is the same every time), runs Fruchterman–Reingold for a fixed
// number of rounds, then pushes apart every two nodes whose labels
// overlap; the canvas grows to what the layout needs. Edges are drawn from
// circle to circle with an arrow, curved when two edges join the same
// nodes; an edge's label goes where it overlaps no other label, or is left
// to the edge's tooltip.

// Label metrics (SVG user units) for 12 px labels.
const (
	labelCharW  = 7.0
	labelH      = 16.0
	labelGap    = 6.0
	layoutIters = 250
	layoutPad   = 30.0
)

// box is a label's rectangle.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// nodeLabelW is the width of a node's label as drawn (short, 28 runes).
func nodeLabelW(name string) float64 {
	n := len([]rune(name))
	if n > 28 {
		n = 28
	}
	return float64(n)*labelCharW + 8
}

// nodeBox is the rectangle a node takes: its circle and its label above.
func nodeBox(x, y, w float64) box {
	half := math.Max(w/2, nodeR+2)
	return box{x - half, y - nodeR - 6 - labelH, x + half, y + nodeR + 2}
}

// forceLayout moves the nodes (ids, initial positions in pos) so that
// edges are short, nodes far apart, and no two node boxes overlap.
func forceLayout(ids []string, edges [][2]string, pos map[string][2]float64, widths map[string]float64) {
	n := len(ids)
	if n < 2 {
		return
	}
	idx := map[string]int{}
	xs, ys := make([]float64, n), make([]float64, n)
	for i, id := range ids {
		idx[id] = i
		// A small, fixed turn off the rings, so that nodes on one line
		// (a chain) are not held on it.
		xs[i], ys[i] = pos[id][0]+20*math.Cos(float64(i)*2.39996), pos[id][1]+20*math.Sin(float64(i)*2.39996)
	}
	area := float64(graphW * graphH)
	k := math.Sqrt(area/float64(n)) * 0.75
	temp := float64(graphW) / 8
	dx, dy := make([]float64, n), make([]float64, n)
	for it := 0; it < layoutIters; it++ {
		clear(dx)
		clear(dy)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				ddx, ddy := xs[i]-xs[j], ys[i]-ys[j]
				d2 := ddx*ddx + ddy*ddy
				if d2 < 0.01 {
					ddx, ddy, d2 = float64(i-j), 1, float64((i-j)*(i-j)+1)
				}
				f := k * k / d2
				dx[i] += ddx * f
				dy[i] += ddy * f
				dx[j] -= ddx * f
				dy[j] -= ddy * f
			}
		}
		for _, e := range edges {
			a, b := idx[e[0]], idx[e[1]]
			if a == b {
				continue
			}
			ddx, ddy := xs[a]-xs[b], ys[a]-ys[b]
			d := math.Hypot(ddx, ddy)
			if d < 0.01 {
				continue
			}
			f := d / k
			dx[a] -= ddx * f
			dy[a] -= ddy * f
			dx[b] += ddx * f
			dy[b] += ddy * f
		}
		for i := 0; i < n; i++ {
			// A gentle pull to the centre keeps unconnected parts near.
			dx[i] -= (xs[i] - graphW/2) * 0.01 * k / 10
			dy[i] -= (ys[i] - graphH/2) * 0.01 * k / 10
			d := math.Hypot(dx[i], dy[i])
			if d > 0 {
				step := math.Min(d, temp)
				xs[i] += dx[i] / d * step
				ys[i] += dy[i] / d * step
			}
		}
		temp = math.Max(1, temp*0.97)
	}
	separate(ids, xs, ys, widths)
	for i, id := range ids {
		pos[id] = [2]float64{xs[i], ys[i]}
	}
}

// separate pushes apart the nodes whose boxes overlap, along the axis that
// needs the smaller move, until none does (or a bound of rounds).
func separate(ids []string, xs, ys []float64, widths map[string]float64) {
	n := len(ids)
	for round := 0; round < 400; round++ {
		moved := false
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				a := nodeBox(xs[i], ys[i], widths[ids[i]])
				b := nodeBox(xs[j], ys[j], widths[ids[j]])
				a.x1 += labelGap
				a.y1 += labelGap
				if !a.overlaps(b) {
					continue
				}
				moved = true
				ox := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
				oy := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
				if ox < oy {
					s := ox/2 + 0.5
					if xs[i] < xs[j] || xs[i] == xs[j] && i < j {
						s = -s
					}
					xs[i] += s
					xs[j] -= s
				} else {
					s := oy/2 + 0.5
					if ys[i] < ys[j] || ys[i] == ys[j] && i < j {
						s = -s
					}
					ys[i] += s
					ys[j] -= s
				}
			}
		}
		if !moved {
			return
		}
	}
}

// fitCanvas shifts the layout so that its boxes start at the padding and
// returns the canvas size it needs (at least graphW × graphH, centred).
func fitCanvas(ids []string, pos map[string][2]float64, widths map[string]float64) (w, h float64) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, id := range ids {
		b := nodeBox(pos[id][0], pos[id][1], widths[id])
		minX, minY = math.Min(minX, b.x0), math.Min(minY, b.y0)
		maxX, maxY = math.Max(maxX, b.x1), math.Max(maxY, b.y1)
	}
	w = math.Max(graphW, maxX-minX+2*layoutPad)
	h = math.Max(graphH, maxY-minY+2*layoutPad)
	offX := (w-(maxX-minX))/2 - minX
	offY := (h-(maxY-minY))/2 - minY
	for _, id := range ids {
		p := pos[id]
		pos[id] = [2]float64{round1(p[0] + offX), round1(p[1] + offY)}
	}
	return math.Ceil(w), math.Ceil(h)
}

// edgeGeometry draws the edges: from circle to circle (the arrow ends at
// the target's circle), curved apart when several join the same two
// nodes, each label where it overlaps no node box nor placed label.
func edgeGeometry(edges []svgEdge, ends [][2]string, pos map[string][2]float64, ids []string, widths map[string]float64) {
	var taken []box
	for _, id := range ids {
		taken = append(taken, nodeBox(pos[id][0], pos[id][1], widths[id]))
	}
	pairs := map[[2]string][]int{}
	for i, e := range ends {
		k := e
		if k[0] > k[1] {
			k[0], k[1] = k[1], k[0]
		}
		pairs[k] = append(pairs[k], i)
	}
	bend := make([]float64, len(edges))
	keys := make([][2]string, 0, len(pairs))
	for k := range pairs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		group := pairs[k]
		for j, i := range group {
			if len(group) > 1 {
				bend[i] = (float64(j) - float64(len(group)-1)/2) * 28
				if ends[i][0] > ends[i][1] {
					bend[i] = -bend[i] // the same side whichever way it points
				}
			}
		}
	}
	for i := range edges {
		a, b := pos[ends[i][0]], pos[ends[i][1]]
		ex, ey := b[0]-a[0], b[1]-a[1]
		d := math.Hypot(ex, ey)
		if d < 1 {
			d = 1
		}
		ux, uy := ex/d, ey/d
		// Control point: the midpoint moved perpendicular by the bend.
		cx, cy := (a[0]+b[0])/2-uy*bend[i], (a[1]+b[1])/2+ux*bend[i]
		// Start and end on the circles, towards the control point.
		sx, sy := towards(a, cx, cy, nodeR+1)
		tx, ty := towards(b, cx, cy, nodeR+4)
		e := &edges[i]
		e.X1, e.Y1, e.X2, e.Y2 = round1(sx), round1(sy), round1(tx), round1(ty)
		e.CX, e.CY = round1(cx), round1(cy)
		e.ShowLabel = false
		w := float64(len([]rune(e.Type)))*6.2 + 6
		for _, t := range []float64{0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8} {
			for _, off := range []float64{0, -12, 12, -22, 22} {
				// A point of the quadratic curve, moved off it.
				px := (1-t)*(1-t)*sx + 2*(1-t)*t*cx + t*t*tx - uy*off
				py := (1-t)*(1-t)*sy + 2*(1-t)*t*cy + t*t*ty + ux*off
				lb := box{px - w/2, py - 11, px + w/2, py + 3}
				if !overlapsAny(lb, taken) {
					taken = append(taken, lb)
					e.LX, e.LY, e.ShowLabel = round1(px), round1(py), true
					break
				}
			}
			if e.ShowLabel {
				break
			}
		}
	}
}

// towards is the point at distance r from p in the direction of (x, y).
func towards(p [2]float64, x, y, r float64) (float64, float64) {
	dx, dy := x-p[0], y-p[1]
	d := math.Hypot(dx, dy)
	if d < 1e-9 {
		return p[0], p[1]
	}
	return p[0] + dx/d*r, p[1] + dy/d*r
}

func overlapsAny(b box, boxes []box) bool {
	for _, o := range boxes {
		if b.overlaps(o) {
			return true
		}
	}
	return false
}
