package graph

import (
	"fmt"
	"io"

	"github.com/nocgo/cuda/driver/backend"
)

// DOT writes the graph in Graphviz's DOT language to w, for debugging
// (cuGraphDebugDotPrint; render it with `dot -Tsvg`): a vertex per node,
// an edge per dependency, child graphs and conditional bodies as clusters;
// with verbose, every node's parameters too. The real driver's dump has
// more detail than the fake's, which labels each node with its type.
func (g *Graph) DOT(w io.Writer, verbose bool) error {
	const op = "graph.Graph.DOT"
	if w == nil {
		return fmt.Errorf("%s: nil writer: %w", op, errInvalid)
	}
	if err := g.use(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer g.hold.Unuse()
	api, err := g.nodes()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var flags uint32
	if verbose {
		flags = backend.GraphDebugDotVerbose
	}
	dot, err := api.GraphDebugDot(g.h, flags)
	if err != nil {
		return fmt.Errorf("%s: %s: cuGraphDebugDotPrint: %w", op, g, err)
	}
	if _, err := w.Write(dot); err != nil {
		return fmt.Errorf("%s: %s: %w", op, g, err)
	}
	return nil
}
