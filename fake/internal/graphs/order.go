package graphs

// A graph launch is one item of its stream, but its nodes are ordered by
// their edges only: two nodes with no path between them may run at once
// on a GPU. With the race detector on, the core runs each node's work as a
// step of its own with the set of nodes of the same launch that precede
// it (Launch.Order), computed here from the edges, child graphs included: a
// node after a child graph node follows all of the child's nodes, and the
// child's nodes follow what the child graph node follows.

// graphOrder computes the order of steps, the flattened nodes of shape:
// for each step, the steps that precede it. It returns nil when a step is
// not where shape says (the steps were made some other way).
func graphOrder(shape *fgraph, steps []*gnode) [][]uint64 {
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
	return pred
}

// shapeNode returns the node of the exec's shape that step s copies.
func shapeNode(s *gnode) *gnode {
	if s.orig != nil {
		return s.orig
	}
	return s
}
