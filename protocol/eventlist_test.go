package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// constants returns the string and integer constants of this package
// (its non-test files) whose names start with one of prefixes.
func constants(t *testing.T, prefixes ...string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				lit, ok := valueAt(vs, i).(*ast.BasicLit)
				if !ok || !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(name.Name, p) }) {
					continue
				}
				v := lit.Value
				if lit.Kind == token.STRING {
					v, _ = strconv.Unquote(v)
				}
				out[name.Name] = v
			}
			return true
		})
	}
	return out
}

func valueAt(vs *ast.ValueSpec, i int) ast.Expr {
	if i < len(vs.Values) {
		return vs.Values[i]
	}
	return nil
}

// Events lists every event constant of the package, once: the wire
// parser's table of known names is made from it.
func TestEventsListEveryEventConstant(t *testing.T) {
	consts := constants(t, "Event", "Notify")
	if len(consts) < 20 {
		t.Fatalf("found only %d event constants: %v", len(consts), consts)
	}
	listed := map[string]int{}
	for _, e := range Events() {
		listed[e]++
	}
	for name, v := range consts {
		if listed[v] != 1 {
			t.Errorf("%s (%q) is listed %d times by Events", name, v, listed[v])
		}
	}
	if len(Events()) != len(consts) {
		t.Errorf("Events has %d names, the package %d event constants", len(Events()), len(consts))
	}
	for _, e := range ClientEvents() {
		if !IsClientEvent(e) {
			t.Errorf("ClientEvents lists %q", e)
		}
	}
}
