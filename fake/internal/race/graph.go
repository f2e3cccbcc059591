package race

// A graph launch is one piece of work of its stream, but its nodes are
// ordered by their edges only: two nodes with no path between them may
// run at once on a GPU. Each node's work runs as an operation of its own
// (see Step), with the launch's clock (so it is ordered after the
// stream's earlier work and before its later work) and the set of nodes
// of the same launch that precede it, which the core computes from the
// graph's edges.

// GraphOrder says which steps of a graph launch precede which.
type GraphOrder struct {
	pred [][]uint64 // pred[i]: bit j set when step j precedes step i
}

// NewGraphOrder returns the order of a launch of steps steps in which
// step j precedes step i when bit j of pred[i] is set (word j/64, bit
// j%64). It keeps pred.
func NewGraphOrder(pred [][]uint64) *GraphOrder { return &GraphOrder{pred: pred} }

func (g *GraphOrder) precedes(j, i int) bool {
	return g.pred[i][j/64]&(1<<(j%64)) != 0
}

// Step runs work, step node of the graph launch op in order, as the
// detector's current work.
func (d *Detector) Step(op *Op, order *GraphOrder, node int, work func() error) error {
	if d == nil || op == nil || order == nil {
		return work()
	}
	step := *op
	step.graph, step.node = order, node
	prev := d.cur.Swap(&step)
	defer d.cur.Store(prev)
	return work()
}
