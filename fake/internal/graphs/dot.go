package graphs

import (
	"bytes"
	"fmt"

	"github.com/nocgo/cuda/driver/backend"
	"github.com/nocgo/cuda/internal/abi"
)

// GraphDebugDot is cuGraphDebugDotPrint: the fake writes a DOT graph of
// its own, one vertex per node labelled with the node's type (the names
// the driver's dump uses: KERNEL, MEMCPY, MEMSET, HOST, GRAPH, EMPTY,
// WAIT_EVENT, EVENT_RECORD, MEM_ALLOC, MEM_FREE, CONDITIONAL), one edge per
// dependency, and child graphs and conditional bodies as clusters. With
// backend.GraphDebugDotVerbose the labels add the node's handle and, for
// memory nodes, the address and size.
func (r *Room) GraphDebugDot(g uintptr, flags uint32) ([]byte, error) {
	if err := r.enter(abi.CuGraphDebugDotPrint); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	gr, err := r.graphLocked(g)
	if err != nil {
		return nil, err
	}
	var w bytes.Buffer
	fmt.Fprintf(&w, "digraph \"graph_%#x\" {\n\tcompound=true;\n", gr.h)
	n := 0
	dotGraph(&w, gr, "\t", &n, flags&backend.GraphDebugDotVerbose != 0)
	w.WriteString("}\n")
	return w.Bytes(), nil
}

var dotNames = map[nodeKind]string{
	nodeKernel: "KERNEL", nodeMemcpy: "MEMCPY", nodeMemset: "MEMSET", nodeHost: "HOST",
	nodeChild: "GRAPH", nodeEmpty: "EMPTY", nodeWaitEvent: "WAIT_EVENT", nodeEventRecord: "EVENT_RECORD",
	nodeAlloc: "MEM_ALLOC", nodeFree: "MEM_FREE", nodeCond: "CONDITIONAL",
}

// dotGraph writes the nodes and edges of g, numbering the vertices from
// *n on (vertex names are unique in the whole dump).
func dotGraph(w *bytes.Buffer, g *fgraph, indent string, n *int, verbose bool) {
	ids := map[*gnode]int{}
	for _, node := range g.nodes {
		*n++
		id := *n
		ids[node] = id
		label := fmt.Sprintf("%d: %s", id, dotNames[node.kind])
		if verbose {
			label += fmt.Sprintf("\\nnode %#x", node.h)
			if node.mem != nil {
				label += fmt.Sprintf("\\ndptr %#x, %d bytes", node.mem.Base(), node.mem.Size())
			}
			if node.cond != nil {
				kind := "IF"
				if node.cond.typ == backend.GraphCondWhile {
					kind = "WHILE"
				}
				label += fmt.Sprintf("\\n%s, handle %#x", kind, node.cond.h.id)
			}
		}
		fmt.Fprintf(w, "%sn%d [shape=box label=\"%s\"];\n", indent, id, label)
		var inner *fgraph
		switch {
		case node.child != nil:
			inner = node.child
		case node.cond != nil:
			inner = node.cond.body
		}
		if inner != nil {
			fmt.Fprintf(w, "%ssubgraph cluster_n%d {\n%s\tlabel=\"%s\";\n", indent, id, indent, label)
			dotGraph(w, inner, indent+"\t", n, verbose)
			fmt.Fprintf(w, "%s}\n", indent)
		}
	}
	for _, node := range g.nodes {
		for _, d := range node.deps {
			fmt.Fprintf(w, "%sn%d -> n%d;\n", indent, ids[d], ids[node])
		}
	}
}
