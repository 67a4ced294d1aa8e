package cmdtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// CompileLaTeX puts tex (one or more table environments, as rdeval's
// --format latex writes them) in a minimal article with booktabs and runs
// pdflatex on it, failing t with pdflatex's log when it does not compile.
// Without pdflatex on PATH it logs that only the structure was checked and
// returns false.
func CompileLaTeX(t testing.TB, tex string) bool {
	t.Helper()
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Log("pdflatex not on PATH: the LaTeX was not compiled, only its structure checked")
		return false
	}
	dir := t.TempDir()
	doc := "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n\\begin{document}\n" + tex + "\\end{document}\n"
	if err := os.WriteFile(filepath.Join(dir, "t.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "t.tex")
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.pdf")); err != nil {
		t.Fatalf("pdflatex wrote no PDF: %v\n%s", err, out)
	}
	return true
}
