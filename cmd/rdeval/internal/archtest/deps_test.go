// Package archtest checks the project's dependency direction:
//
//	cmd → everything; figures → analysis; execute → ingest;
//	analysis and ingest import no other project package; nothing imports cmd;
//	no command package (cmd/rdeval/internal/*cmd) imports another.
package archtest

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/rdeval/rdeval"

// allowed lists, per top-level package, the project packages it may import
// (directly or through its own subpackages).
var allowed = map[string][]string{
	"ingest":   {},
	"analysis": {},
	"figures":  {"analysis"},
	"execute":  {"ingest"},
}

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

// topOf returns the top-level project package of an import path ("ingest"
// for .../ingest/internal/jsonline), or "" outside the module.
func topOf(path string) string {
	if !strings.HasPrefix(path, module+"/") {
		return ""
	}
	return strings.SplitN(strings.TrimPrefix(path, module+"/"), "/", 2)[0]
}

// TestDependencyDirection walks each top-level package and its
// subpackages (tests included) and reports forbidden project imports.
// Checked to fail when analysis imports ingest.
func TestDependencyDirection(t *testing.T) {
	root := repoRoot(t)
	for top, ok := range allowed {
		okSet := map[string]bool{top: true}
		for _, o := range ok {
			okSet[o] = true
		}
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fsDirEntry, err error) error {
			if err != nil || !d.IsDir() || d.Name() == "testdata" {
				if d != nil && d.IsDir() && d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return err
			}
			pkg, err := build.ImportDir(path, 0)
			if err != nil {
				if _, noGo := err.(*build.NoGoError); noGo {
					return nil
				}
				return err
			}
			imports := append(append(append([]string{}, pkg.Imports...), pkg.TestImports...), pkg.XTestImports...)
			sort.Strings(imports)
			for _, imp := range imports {
				if dep := topOf(imp); dep != "" && !okSet[dep] {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s imports %s: %s may import only %v among project packages", filepath.ToSlash(rel), imp, top, ok)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", top, err)
		}
	}
}

// isCommand reports whether a package under cmd/rdeval/internal is a
// command (one folder per command, named <name>cmd).
func isCommand(name string) bool { return strings.HasSuffix(name, "cmd") }

// TestCommandsImportNoCommand: a command package imports no other command
// package (the glue they share is package study, and figconfig for the
// figure configs), and no other package but cli, which assembles the
// commands, imports one, tests included: checks across commands run the
// root command in cli's tests (cli/crosscheck_test.go). Only interop, a
// harness for other tools' run formats, may run a command in its tests.
// Checked to fail when reportcmd imports figurescmd.
func TestCommandsImportNoCommand(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "cmd", "rdeval", "internal")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	prefix := module + "/cmd/rdeval/internal/"
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "cli" {
			continue
		}
		pkg, err := build.ImportDir(filepath.Join(dir, e.Name()), 0)
		if err != nil {
			if _, noGo := err.(*build.NoGoError); noGo {
				continue
			}
			t.Fatal(err)
		}
		imports := pkg.Imports
		if e.Name() != "interop" {
			imports = append(append(append([]string{}, imports...), pkg.TestImports...), pkg.XTestImports...)
		}
		for _, imp := range imports {
			name, ok := strings.CutPrefix(imp, prefix)
			if !ok || strings.Contains(name, "/") || name == e.Name() {
				continue
			}
			if isCommand(name) {
				t.Errorf("%s imports command package %s: move what it needs into package study", e.Name(), name)
			}
		}
	}
}

// TestCommandsExportOnlyNewCmd: a command package exports its NewCmd and
// its Options (types named …Options, with their methods), nothing else:
// what two commands share lives in package study, cmdutil or figconfig,
// not in a command that the other would have to import. Checked to fail
// with auditcmd's Evaluate exported.
func TestCommandsExportOnlyNewCmd(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "cmd", "rdeval", "internal")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || !isCommand(e.Name()) {
			continue
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), filepath.Join(dir, e.Name()), func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			for name, f := range pkg.Files {
				for _, bad := range exportedBeyondNewCmd(f) {
					t.Errorf("%s/%s exports %s: a command package exports only NewCmd and its Options", e.Name(), filepath.Base(name), bad)
				}
			}
		}
	}
}

// exportedBeyondNewCmd lists f's exported top-level names other than
// NewCmd, types ending in Options and methods on those types.
func exportedBeyondNewCmd(f *ast.File) []string {
	allowedType := func(n string) bool { return strings.HasSuffix(n, "Options") }
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				if d.Name.Name != "NewCmd" {
					out = append(out, "func "+d.Name.Name)
				}
				continue
			}
			recv := d.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.IsExported() && !allowedType(id.Name) {
				out = append(out, "method "+id.Name+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() && !allowedType(sp.Name.Name) {
						out = append(out, "type "+sp.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							out = append(out, d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
