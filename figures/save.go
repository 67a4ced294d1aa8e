package figures

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PNGDPI is the resolution of PNG output.
const PNGDPI = 300

// pdfDate is the creation and modification date written into every PDF:
// the Unix epoch, 1970-01-01T00:00:00Z.
//
// The PDF backend of gonum/plot (vgpdf, on codeberg.org/go-pdf/fpdf) writes
// /CreationDate and /ModDate into the document information dictionary, and
// fpdf takes them from time.Now unless a date is set. vgpdf.Canvas keeps its
// fpdf document to itself, so the dates cannot be set per document; fpdf's
// package-level defaults, read when vgpdf.New creates the document, are the
// only way in. The init function of this package sets both to pdfDate (the
// Unix epoch, in UTC so that the local time zone plays no part), and sets
// fpdf's catalog sort so that its font and image catalogs are written in a
// fixed order rather than in map order. These are process-wide settings: any
// other fpdf user in a program that imports figures gets them too.
//
// fpdf writes the file identifier as "/ID [()()]" and its /Producer string
// does not change between runs, so with the dates fixed a PDF depends only
// on what was drawn.
var pdfDate = time.Unix(0, 0).UTC()

func init() {
	fpdf.SetDefaultCreationDate(pdfDate)
	fpdf.SetDefaultModificationDate(pdfDate)
	fpdf.SetDefaultCatalogSort(true)
}

// ErrUnknownFormat is the error, wrapped with the format's name, that Save
// and SaveFile return for a format they cannot write.
var ErrUnknownFormat = errors.New("figures: unknown format")

// Formats lists the output formats of Save, by the names Save takes and
// SaveFile reads from file extensions. It must not be modified.
var Formats = []string{"svg", "png", "pdf"}

// newCanvas returns a canvas of size w×h that writes format.
func newCanvas(w, h vg.Length, format string) (vg.CanvasWriterTo, error) {
	switch format {
	case "svg":
		// Fonts are referred to by name (font-family: Liberation Sans), not
		// embedded, which keeps the files small and diffable; Liberation
		// Sans is metric-compatible with Arial, so a viewer without it
		// substitutes a font of the same widths.
		return vgsvg.New(w, h), nil
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}, nil
	case "pdf":
		// vgpdf embeds the fonts it uses by default.
		return vgpdf.New(w, h), nil
	default:
		return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownFormat, format, strings.Join(Formats, ", "))
	}
}

// Save draws p with Draw on a canvas of size w×h and writes it to out in
// format: "svg", "png" (at PNGDPI) or "pdf". Case is ignored.
//
// Output is deterministic: the same plot gives the same bytes every time,
// in every format (see the package documentation). SVG, plain text with
// coordinates rounded to five significant digits, is the format to compare
// across machines; PNG pixels depend on the floating-point code the
// compiler generates (fused multiply-adds, as GOAMD64=v3 and arm64 builds
// use, change them), so PNG is byte-identical only for a given platform and
// toolchain. PDF output carries the fixed date D:19700101000000 (the Unix
// epoch) as its /CreationDate and /ModDate: fpdf would otherwise write the
// current time, and vgpdf offers no per-document setting, so importing this
// package sets fpdf's process-wide default dates (and its catalog sort, which
// orders font and image objects) for every fpdf document in the program.
//
// Save does not use p.WriterTo, which cannot set the PNG resolution and
// would draw gonum/plot's own legend instead of the house legend.
func Save(p *plot.Plot, w, h vg.Length, format string, out io.Writer) error {
	c, err := newCanvas(w, h, strings.ToLower(format))
	if err != nil {
		return err
	}
	Draw(p, draw.New(c))
	_, err = c.WriteTo(out)
	return err
}

// SaveFile saves p, drawn at size w×h, to the file at path in the format
// named by the extension of path (".svg", ".png" or ".pdf", in any case).
//
// The file is written atomically: the plot is rendered in memory, written
// to a temporary file in the same folder and renamed over path, so that a
// reader sees either the old file or the complete new one. On any error the
// temporary file is removed and path is left as it was; an unknown
// extension is reported before anything is created.
func SaveFile(p *plot.Plot, w, h vg.Length, path string) (err error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	var buf bytes.Buffer
	if err := Save(p, w, h, format, &buf); err != nil {
		return fmt.Errorf("figures: saving %s: %w", path, err)
	}

	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("figures: saving %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			// f may already be closed; the error of a second Close is
			// of no interest.
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("figures: saving %s: %w", path, err)
		}
	}()

	if _, err = f.Write(buf.Bytes()); err != nil {
		return err
	}
	// os.CreateTemp makes the file readable by its owner only; a figure is
	// an ordinary output file.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
