package figures

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestSaveDeterministic(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			// Two independently built plots, and the first one drawn a
			// second time, must all give the same bytes. Map iteration
			// order changes from one range loop to the next within a
			// process, so this also catches output that depends on it.
			p1, p2 := samplePlot(t), samplePlot(t)
			var outs [3]bytes.Buffer
			for i, p := range []*plot.Plot{p1, p2, p1} {
				if err := Save(p, OneColumn, Height(OneColumn), format, &outs[i]); err != nil {
					t.Fatalf("unexpected error saving %s: %v", format, err)
				}
			}
			for i := 1; i < len(outs); i++ {
				if !bytes.Equal(outs[0].Bytes(), outs[i].Bytes()) {
					t.Errorf("%s output %d differs from output 0", format, i)
				}
			}
		})
	}
}

func TestSaveFormats(t *testing.T) {
	p := samplePlot(t)
	for _, test := range []struct {
		format string
		magic  string
	}{
		// Signatures from the format specifications: the XML
		// declaration that vgsvg writes, the PNG file signature and
		// the PDF header.
		{format: "svg", magic: "<?xml"},
		{format: "SVG", magic: "<?xml"},
		{format: "png", magic: "\x89PNG\r\n\x1a\n"},
		{format: "pdf", magic: "%PDF-"},
	} {
		var buf bytes.Buffer
		if err := Save(p, OneColumn, Height(OneColumn), test.format, &buf); err != nil {
			t.Errorf("unexpected error saving %s: %v", test.format, err)
			continue
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte(test.magic)) {
			t.Errorf("%s output does not start with %q: %q", test.format, test.magic, buf.Bytes()[:min(buf.Len(), 16)])
		}
	}
}

func TestSavePNGResolution(t *testing.T) {
	var buf bytes.Buffer
	if err := Save(samplePlot(t), OneColumn, Height(OneColumn), "png", &buf); err != nil {
		t.Fatalf("unexpected error saving: %v", err)
	}
	cfg, err := png.DecodeConfig(&buf)
	if err != nil {
		t.Fatalf("unexpected error decoding PNG: %v", err)
	}
	// 300 dpi: 3.3 in × 300 = 990 px wide, and 3.3 × 0.62 in × 300 =
	// 613.8 px high, which vgimg rounds up to whole pixels.
	if cfg.Width != 990 || cfg.Height != 614 {
		t.Errorf("unexpected PNG size: got %d×%d want 990×614", cfg.Width, cfg.Height)
	}
}

func TestSavePDFDates(t *testing.T) {
	var buf bytes.Buffer
	if err := Save(samplePlot(t), OneColumn, Height(OneColumn), "pdf", &buf); err != nil {
		t.Fatalf("unexpected error saving: %v", err)
	}
	// fpdf writes dates as D:YYYYMMDDHHmmSS; pdfDate is the Unix epoch.
	for _, want := range []string{
		"/CreationDate (D:19700101000000)",
		"/ModDate (D:19700101000000)",
	} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("PDF does not contain %q", want)
		}
	}
}

func TestSaveUnknownFormat(t *testing.T) {
	for _, format := range []string{"", "gif", "eps", "jpg", ".svg"} {
		var buf bytes.Buffer
		err := Save(samplePlot(t), OneColumn, Height(OneColumn), format, &buf)
		if !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("unexpected error for format %q: got %v want %v", format, err, ErrUnknownFormat)
		}
		if buf.Len() != 0 {
			t.Errorf("format %q: %d bytes written despite the error", format, buf.Len())
		}
	}
}

// dirNames returns the sorted names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("unexpected error reading %s: %v", dir, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSaveFile(t *testing.T) {
	dir := t.TempDir()
	p := samplePlot(t)
	w, h := OneColumn, Height(OneColumn)

	for _, name := range []string{"a.svg", "b.PNG", "c.pdf"} {
		path := filepath.Join(dir, name)
		if err := SaveFile(p, w, h, path); err != nil {
			t.Fatalf("unexpected error saving %s: %v", name, err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("unexpected error reading %s: %v", name, err)
		}
		// The file holds exactly what Save writes for its extension.
		var want bytes.Buffer
		if err := Save(p, w, h, strings.TrimPrefix(filepath.Ext(name), "."), &want); err != nil {
			t.Fatalf("unexpected error saving: %v", err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s does not hold the output of Save", name)
		}
		if runtime.GOOS != "windows" {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if fi.Mode().Perm() != 0o644 {
				t.Errorf("unexpected mode of %s: got %v want %v", name, fi.Mode().Perm(), os.FileMode(0o644))
			}
		}
	}

	// Overwriting replaces the file and leaves nothing else behind.
	LegendOutside(p)
	if err := SaveFile(p, w, h, filepath.Join(dir, "a.svg")); err != nil {
		t.Fatalf("unexpected error overwriting a.svg: %v", err)
	}
	want := []string{"a.svg", "b.PNG", "c.pdf"}
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("unexpected files after saving: got %q want %q", got, want)
	}
}

func TestSaveFileErrors(t *testing.T) {
	dir := t.TempDir()
	p := samplePlot(t)
	w, h := OneColumn, Height(OneColumn)

	// An unknown or missing extension fails before any file is made.
	for _, name := range []string{"fig.gif", "fig", "fig.svg.bak"} {
		err := SaveFile(p, w, h, filepath.Join(dir, name))
		if !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("unexpected error for %s: got %v want %v", name, err, ErrUnknownFormat)
		}
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("files left after unknown formats: %q", got)
	}

	// A missing folder is an error.
	if err := SaveFile(p, w, h, filepath.Join(dir, "missing", "fig.svg")); err == nil {
		t.Error("expected error saving into a missing folder")
	}

	// A failed rename, here onto a non-empty folder, removes the
	// temporary file and leaves the target as it was.
	target := filepath.Join(dir, "fig.svg")
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if err := SaveFile(p, w, h, target); err == nil {
		t.Error("expected error saving over a non-empty folder")
	}
	if got, want := dirNames(t, dir), []string{"fig.svg"}; !slices.Equal(got, want) {
		t.Errorf("unexpected files after failed save: got %q want %q", got, want)
	}
	if got, want := dirNames(t, target), []string{"keep"}; !slices.Equal(got, want) {
		t.Errorf("target folder changed: got %q want %q", got, want)
	}
}
