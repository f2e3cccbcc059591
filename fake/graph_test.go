package fake

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nocgo/cuda/fake/internal/graphs"
)

// The graph room's methods are the backend's own, promoted from the field
// that embeds the room: the core defines no method of the same name (a
// forwarder, or one that would shadow the room's).
func TestGraphEntryPointsAreTheRooms(t *testing.T) {
	room := map[string]bool{}
	rt := reflect.TypeFor[*graphs.Room]()
	for i := range rt.NumMethod() {
		room[rt.Method(i).Name] = true
	}
	require.Contains(t, room, "GraphLaunch")
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "fakeBackend" {
				assert.False(t, room[fn.Name.Name], "%s: fakeBackend.%s is the graph room's method", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}
