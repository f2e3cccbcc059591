package fake

import "github.com/nocgo/cuda/fake/internal/race"

// A graph launch is one item of its stream, but its nodes are ordered by
// their edges only: two nodes with no path between them may run at once
// on a GPU. With the race detector on, each node's work runs as a step of
// its own (race.Detector.Step) with the set of nodes of the same launch
// that precede it, computed here from the edges, child graphs included: a
// node after a child graph node follows all of the child's nodes, and the
// child's nodes follow what the child graph node follows.

// newGraphOrder computes the order of steps, the flattened nodes of shape.
// It returns nil when a step is not where shape says (the steps were made
// some other way): the launch then stays one operation, unchecked inside.
func newGraphOrder(shape *fgraph, steps []*gnode) *race.GraphOrder {
	if shape == nil {
		return nil
	}
	// Steps are copies of the shape's nodes (gnode.orig), after the
	// launch's own leading steps (the conditions' reset), which precede
	// every other.
	index := make(map[*gnode]int, len(steps))
	lead := 0
	for i, n := range steps {
		if n.orig == nil && lead == i {
			lead++
			continue
		}
		index[shapeNode(n)] = i
	}
	words := (len(steps) + 63) / 64
	pred := make([][]uint64, len(steps))
	entry := make([]uint64, words)
	for i := range lead {
		pred[i] = make([]uint64, words)
		entry[i/64] |= 1 << (i % 64)
	}
	done := map[*gnode][]uint64{} // the steps complete once a node is
	seen := lead
	var walk func(f *fgraph, entry []uint64) bool
	walk = func(f *fgraph, entry []uint64) bool {
		for _, n := range f.nodes {
			p := append([]uint64(nil), entry...)
			for _, d := range n.deps {
				for w, v := range done[d] {
					p[w] |= v
				}
			}
			if n.child != nil {
				before := seen
				if !walk(n.child, p) {
					return false
				}
				all := append([]uint64(nil), p...)
				for k := before; k < seen; k++ {
					for w, v := range done[shapeNode(steps[k])] {
						all[w] |= v
					}
				}
				done[n] = all
				continue
			}
			i, ok := index[n]
			if !ok || i != seen {
				return false
			}
			seen++
			pred[i] = p
			self := append([]uint64(nil), p...)
			self[i/64] |= 1 << (i % 64)
			done[n] = self
		}
		return true
	}
	if !walk(shape, entry) || seen != len(steps) {
		return nil
	}
	return race.NewGraphOrder(pred)
}

// shapeNode returns the node of the exec's shape that step s copies.
func shapeNode(s *gnode) *gnode {
	if s.orig != nil {
		return s.orig
	}
	return s
}

// raceSteps returns the steps a launch's item body runs: with the detector
// on, each node's work runs as its own operation (see above); otherwise
// steps themselves. Table lock held.
func (b *fakeBackend) raceSteps(body *item, shape *fgraph, steps []*gnode) []*gnode {
	d := b.race
	if d == nil {
		return steps
	}
	order := newGraphOrder(shape, steps)
	if order == nil {
		return steps
	}
	out := make([]*gnode, len(steps))
	for i, n := range steps {
		if n.run == nil {
			out[i] = n
			continue
		}
		c := *n
		run := n.run
		c.run = func() error { return d.Step(body.race, order, i, run) }
		out[i] = &c
	}
	return out
}
