package docs

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path of the root module; examples/ and beam/ are
// modules below it.
const module = "github.com/lindigo/lindi"

// layer is a row of the layer table in DESIGN.md §2.
type layer struct {
	line     int      // in DESIGN.md, for messages
	packages []string // patterns: a path in the module, or path/... for it and below
	imports  []string // the patterns its packages may import
}

// matches reports whether the package path pkg is matched by pattern.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

// overlap reports whether two patterns can match a package in common.
func overlap(a, b string) bool {
	base := func(p string) string { return strings.TrimSuffix(p, "/...") }
	return matches(a, base(b)) || matches(b, base(a))
}

var quoted = regexp.MustCompile("`([^`]+)`")

// readLayers parses the table of DESIGN.md whose header is
// "| packages | may import (in this module) |".
func readLayers(t *testing.T, design []byte) []layer {
	var rows []layer
	in := false
	for i, line := range strings.Split(string(design), "\n") {
		switch {
		case strings.HasPrefix(line, "| packages | may import"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "| "), "|")
			if len(cells) != 2 {
				t.Fatalf("DESIGN.md:%d: a row of the layer table has %d cells, not 2", i+1, len(cells))
			}
			l := layer{line: i + 1}
			for _, m := range quoted.FindAllStringSubmatch(cells[0], -1) {
				l.packages = append(l.packages, m[1])
			}
			for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
				l.imports = append(l.imports, m[1])
			}
			if len(l.packages) == 0 {
				t.Fatalf("DESIGN.md:%d: a row of the layer table names no package", i+1)
			}
			rows = append(rows, l)
		case in:
			in = false
		}
	}
	if len(rows) == 0 {
		t.Fatal("DESIGN.md has no layer table (| packages | may import (in this module) |)")
	}
	return rows
}

// checkTable checks that the table is a layering: a row may import only
// packages of earlier rows, or its own (a subtree such as codecs/...).
func checkTable(rows []layer) []string {
	var errs []string
	for i, l := range rows {
		for _, q := range l.imports {
			if slices.Contains(l.packages, q) && strings.HasSuffix(q, "/...") {
				continue
			}
			found := false
			for k, other := range rows {
				for _, p := range other.packages {
					if !overlap(p, q) {
						continue
					}
					found = true
					if k >= i {
						errs = append(errs, fmt.Sprintf("DESIGN.md:%d: %v may import %s, which DESIGN.md:%d (a later row, or its own) holds: an import up",
							l.line, l.packages, q, other.line))
					}
				}
			}
			if !found {
				errs = append(errs, fmt.Sprintf("DESIGN.md:%d: %v may import %s, which no row holds", l.line, l.packages, q))
			}
		}
	}
	return errs
}

// goList runs go list in dir (a module's root) and returns each package's
// imports of this module's packages, by path relative to the module.
func goList(t *testing.T, dir string) map[string][]string {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	rel := func(p string) (string, bool) { return strings.CutPrefix(p, module+"/") }
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		name, ok := rel(f[0])
		if !ok {
			t.Fatalf("go list in %s: %s is not in module %s", dir, f[0], module)
		}
		pkgs[name] = []string{}
		for _, imp := range f[1:] {
			if r, ok := rel(imp); ok {
				pkgs[name] = append(pkgs[name], r)
			}
		}
	}
	return pkgs
}

// checkImports checks every package against the table: one row names it,
// and its row allows each of its imports of this module's packages.
func checkImports(rows []layer, pkgs map[string][]string) []string {
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		var row *layer
		for i := range rows {
			if slices.ContainsFunc(rows[i].packages, func(p string) bool { return matches(p, name) }) {
				if row != nil {
					errs = append(errs, fmt.Sprintf("%s is in two rows of DESIGN.md's layer table (lines %d and %d)", name, row.line, rows[i].line))
				}
				row = &rows[i]
			}
		}
		if row == nil {
			errs = append(errs, fmt.Sprintf("%s is in no row of DESIGN.md's layer table: place it in a layer", name))
			continue
		}
		for _, imp := range pkgs[name] {
			if !slices.ContainsFunc(row.imports, func(p string) bool { return matches(p, imp) }) {
				errs = append(errs, fmt.Sprintf("%s imports %s, which its row of DESIGN.md's layer table (line %d) does not allow", name, imp, row.line))
			}
		}
	}
	// A row that names no package left is stale.
	names := slices.Collect(maps.Keys(pkgs))
	for _, l := range rows {
		for _, p := range l.packages {
			if !slices.ContainsFunc(names, func(name string) bool { return matches(p, name) }) {
				errs = append(errs, fmt.Sprintf("DESIGN.md:%d names %s, and there is no such package", l.line, p))
			}
		}
	}
	return errs
}

// watchSources opens every directory of the repository holding Go files
// (not .git or testdata), so that go test's cache, which keys a test's
// result on the files and directories it opened (a directory by the names,
// sizes and times of its entries), runs these tests again when a Go file or
// package changes: what go list reads is not otherwise known to it.
func watchSources(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLayers holds the imports of every package of the repository (the
// root module, examples/ and beam/) to the layer table of DESIGN.md §2.
func TestLayers(t *testing.T) {
	design, err := os.ReadFile("DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := readLayers(t, design)
	errs := checkTable(rows)
	watchSources(t)
	pkgs := map[string][]string{}
	for _, dir := range []string{"..", "../examples", "../beam"} {
		for name, imps := range goList(t, filepath.FromSlash(dir)) {
			pkgs[name] = imps
		}
	}
	errs = append(errs, checkImports(rows, pkgs)...)
	for _, e := range errs {
		t.Error(e)
	}
}

// TestLayersCatch: the checks find an import the table forbids, an import
// up in the table, and a package no row names.
func TestLayersCatch(t *testing.T) {
	rows := []layer{
		{line: 1, packages: []string{"zarrmeta", "io/source"}},
		{line: 2, packages: []string{"codecs/..."}, imports: []string{"codecs/..."}},
		{line: 3, packages: []string{"h5"}, imports: []string{"codecs", "zarrmeta"}},
		{line: 4, packages: []string{"dandi"}, imports: []string{"io/source"}},
	}
	if errs := checkTable(rows); len(errs) != 0 {
		t.Errorf("a layering refused: %v", errs)
	}
	ok := map[string][]string{"zarrmeta": {}, "io/source": {}, "codecs": {"codecs/blosc"}, "codecs/blosc": {}, "h5": {"codecs"}, "dandi": {"io/source"}}
	if errs := checkImports(rows, ok); len(errs) != 0 {
		t.Errorf("allowed imports refused: %v", errs)
	}
	bad := map[string][]string{"zarrmeta": {}, "io/source": {}, "codecs/blosc": {}, "h5": {"codecs", "dandi"}, "dandi": {"io/source"}, "nwb": {"h5"}}
	errs := checkImports(rows, bad)
	if len(errs) != 2 || !strings.Contains(errs[0], "h5 imports dandi") || !strings.Contains(errs[1], "nwb is in no row") {
		t.Errorf("errors %q, want h5 importing dandi and nwb in no row", errs)
	}
	up := append(slices.Clone(rows), layer{line: 5, packages: []string{"io/fetch"}, imports: []string{"h5", "nwb"}})
	up[0].imports = []string{"dandi"}
	errs = checkTable(up)
	if len(errs) != 2 || !strings.Contains(errs[0], "import up") || !strings.Contains(errs[1], "no row holds") {
		t.Errorf("errors %q, want an import up and an unknown package", errs)
	}
}

// TestShippedCommand: the lindi command links no benchmark machinery (a
// test HTTP server and its certificate, the file generator, the network
// simulator, a subprocess runner); those are cmd/lindi-bench's.
func TestShippedCommand(t *testing.T) {
	watchSources(t)
	cmd := exec.Command("go", "list", "-deps", "./cmd/lindi")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/h5") {
		t.Fatalf("go list -deps ./cmd/lindi does not list h5:\n%s", out)
	}
	for _, bad := range []string{"net/http/httptest", "os/exec", module + "/internal/h5gen", module + "/internal/netsim"} {
		if slices.Contains(deps, bad) {
			t.Errorf("cmd/lindi depends on %s", bad)
		}
	}
}
