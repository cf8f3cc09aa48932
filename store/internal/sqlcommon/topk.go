package sqlcommon

import "cmp"

// Top is a min-heap of the best cap(h) values offered (the impact lists'
// top k, issue 31.5): once full, h[0] is the cap(h)-th best. Make it with
// make(Top[T], 0, k).
type Top[T cmp.Ordered] []T

// Offer adds v to h when it is among the best cap(h), and returns h.
func (h Top[T]) Offer(v T) Top[T] {
	switch {
	case len(h) < cap(h):
		h = append(h, v)
		for i := len(h) - 1; i > 0 && h[(i-1)/2] > h[i]; i = (i - 1) / 2 {
			h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
		}
	case len(h) > 0 && v > h[0]:
		h[0] = v
		for i := 0; ; {
			j := 2*i + 1
			if j >= len(h) {
				break
			}
			if j+1 < len(h) && h[j+1] < h[j] {
				j++
			}
			if h[i] <= h[j] {
				break
			}
			h[i], h[j] = h[j], h[i]
			i = j
		}
	}
	return h
}
