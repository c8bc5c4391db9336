package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryEventIsDeclared checks that the event names the packages emit
// by (exported string constants named Event...) are exactly those
// EventPayloads declares, so the generated frontend contract has them all.
func TestEveryEventIsDeclared(t *testing.T) {
	var emitted []string
	for _, dir := range []string{".", "../internal"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !strings.HasPrefix(name.Name, "Event") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							emitted = append(emitted, v)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var declared []string
	typ := reflect.TypeFor[EventPayloads]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		declared = append(declared, name)
	}
	slices.Sort(emitted)
	slices.Sort(declared)
	if !slices.Equal(emitted, declared) {
		t.Errorf("events emitted %v\nevents declared in EventPayloads %v\nevery Event constant needs a field in EventPayloads (then make generate)", emitted, declared)
	}
}
