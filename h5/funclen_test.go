package h5

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds the length of a function (from func to its closing
// brace) in h5 and internal/engine, so that each reads at a glance.
const maxFuncLines = 59

// TestFunctionLength: every function of h5 and internal/engine (their
// non-test files) is under 60 lines.
func TestFunctionLength(t *testing.T) {
	for _, dir := range []string{".", "../internal/engine"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			for fn, n := range longFuncs(t, name) {
				t.Errorf("%s: %s is %d lines, over %d", name, fn, n, maxFuncLines)
			}
		}
	}
}

// longFuncs returns the functions of the file name longer than
// maxFuncLines, with their lengths.
func longFuncs(t *testing.T, name string) map[string]int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	long := map[string]int{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
			fn := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				fn = recvName(fd.Recv.List[0].Type) + "." + fn
			}
			long[fn] = n
		}
	}
	return long
}

// recvName names a receiver's type (T or *T) for messages.
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	}
	return "?"
}
