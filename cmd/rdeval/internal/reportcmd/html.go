package reportcmd

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// drawnFigure is one figure written to the report: file is its path
// under figures/, svg its SVG for the page.
type drawnFigure struct {
	id, file, title string
	caption         string // what the figure shows (its kind's description)
	svg             []byte
	wide            bool     // two columns wide
	warnings        []string // the figure's own warnings, shown under it
}

// page is what the report's index.html shows.
type page struct {
	source, version string
	synthetic       bool
	figs            []drawnFigure
	inputs          []ingest.InputStats
	warnings        []string // data warnings, then the statistics' (dropped tasks, small n, non-convergence)
	provenance      [][2]string
	figureRows      [][]string // per figure: id, type, seed, B, parameters (config reports)
	tables          []string   // the CSV files, linked from the page
	headlines       []headline // the headline tables, shown in the page
	leftOut         []string   // figures and tables the data cannot support, with the reason
}

// css of the page. Figures are shown at the width they have in print
// relative to the text: a two-column figure spans the text column (at most
// 60em), a one-column figure a bit under half of it, scaled from their
// viewBox; tables wrap their cells so that nothing is wider than the page.
const css = `body{font-family:'Liberation Sans',Arial,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#111}` +
	`figure{margin:2em 0}figure svg{display:block;height:auto;max-width:100%}figure[data-width=one] svg{width:30em}figure[data-width=two] svg{width:60em}` +
	`figcaption{font-size:0.9em;color:#333;max-width:60em}figcaption ul{margin:0.3em 0;padding-left:1.2em}` +
	`table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0}td,th{border:1px solid #ccc;padding:0.2em 0.5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}` +
	`td.n{text-align:right}.note{font-size:0.9em;color:#333}.warn{color:#8a4b00}` +
	`.synthetic{background:#fff3cd;padding:0.5em 1em;border-left:4px solid #e69f00}code{overflow-wrap:anywhere}` +
	`@media print{body{max-width:none;margin:0}figure,table{break-inside:avoid}}`

// writeHTML writes the report page: provenance, warnings and every figure
// inline, with no external assets. Each figure is a <figure class="rdeval-figure">
// holding its inline <svg>; the Chromium test checks each one rendered.
func writeHTML(path string, pg page) error {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>rdeval report</title>\n<style>" + css + "</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>rdeval report</h1>\n<p>Source: %s. rdeval version %s, schema version %s.</p>\n", html.EscapeString(pg.source), html.EscapeString(pg.version), ingest.SchemaVersion)
	if pg.synthetic {
		b.WriteString("<p class=\"synthetic\"><strong>The demo data are synthetic</strong>: drawn from a documented toy model, not real benchmark results.</p>\n")
	}
	if len(pg.warnings) > 0 {
		noun := "warnings"
		if len(pg.warnings) == 1 {
			noun = "warning"
		}
		fmt.Fprintf(&b, "<p class=\"warn\">%d %s: see <a href=\"#warnings\">Warnings</a>.</p>\n", len(pg.warnings), noun)
	}
	if len(pg.headlines) > 0 {
		b.WriteString("<h2>Tables</h2>\n")
		for _, h := range pg.headlines {
			writeHeadline(&b, h)
		}
	}
	b.WriteString("<h2>Figures</h2>\n")
	for _, f := range pg.figs {
		svg := string(f.svg)
		if i := strings.Index(svg, "<svg"); i > 0 {
			svg = svg[i:] // drop the XML prolog inside HTML
		}
		width := "one"
		if f.wide {
			width = "two"
		}
		fmt.Fprintf(&b, "<figure class=\"rdeval-figure\" data-width=\"%s\" id=\"%s\">%s<figcaption><strong>%s.</strong> ", width, html.EscapeString(f.id), svg, html.EscapeString(f.title))
		if f.caption != "" {
			fmt.Fprintf(&b, "%s. ", html.EscapeString(f.caption))
		}
		fmt.Fprintf(&b, "(<a href=\"figures/%s\">%s</a>)", html.EscapeString(f.file), html.EscapeString(f.file))
		writeWarnings(&b, f.warnings)
		b.WriteString("</figcaption></figure>\n")
	}
	if len(pg.leftOut) > 0 {
		b.WriteString("<h2 id=\"left-out\">Left out</h2>\n<p>Figures and tables these runs cannot support:</p>\n<ul>\n")
		for _, l := range pg.leftOut {
			fmt.Fprintf(&b, "<li class=\"left-out\">%s</li>\n", html.EscapeString(l))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<h2 id=\"warnings\">Warnings</h2>\n")
	if len(pg.warnings) == 0 {
		b.WriteString("<p>None.</p>\n")
	} else {
		b.WriteString("<ul>\n")
		for _, w := range pg.warnings {
			fmt.Fprintf(&b, "<li class=\"warn\">%s</li>\n", html.EscapeString(w))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<h2>Provenance</h2>\n<table>\n")
	for _, kv := range pg.provenance {
		fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(kv[0]), html.EscapeString(kv[1]))
	}
	b.WriteString("</table>\n<h3>Inputs</h3>\n<table><tr><th>path</th><th>reader</th><th>rows kept</th><th>sha256</th></tr>\n")
	for _, in := range pg.inputs {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%d</td><td><code>%s</code></td></tr>\n", html.EscapeString(in.Path), html.EscapeString(in.Reader), in.RowsKept, in.SHA256)
	}
	b.WriteString("</table>\n")
	if len(pg.figureRows) > 0 {
		b.WriteString("<h3>Figures</h3>\n<table><tr><th>id</th><th>type</th><th>seed</th><th>B</th><th>parameters</th></tr>\n")
		for _, r := range pg.figureRows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("<p>Tables (CSV): ")
	for i, t := range pg.tables {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>", html.EscapeString(t), html.EscapeString(t))
	}
	b.WriteString("; data/ holds the ingested tables and manifest.json.</p>\n</body></html>\n")
	return cmdutil.WriteFileAtomic(path, b.Bytes())
}

// writeHeadline writes one headline table: its title, the table (numbers
// right-aligned), its note, its warnings and a link to its CSV.
func writeHeadline(b *bytes.Buffer, h headline) {
	fmt.Fprintf(b, "<section class=\"rdeval-table\" id=\"%s\"><h3>%s</h3>\n", html.EscapeString(h.id), html.EscapeString(h.title))
	if len(h.rows) > 0 {
		b.WriteString("<table><tr>")
		for _, c := range h.header {
			fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
		for _, r := range h.rows {
			b.WriteString("<tr>")
			for _, c := range r {
				class := ""
				if c != "" && (c[0] >= '0' && c[0] <= '9' || c[0] == '-' || c == "–") {
					class = " class=\"n\""
				}
				fmt.Fprintf(b, "<td%s>%s</td>", class, html.EscapeString(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	fmt.Fprintf(b, "<p class=\"note\">%s", html.EscapeString(h.note))
	if h.csv != nil {
		fmt.Fprintf(b, " CSV: <a href=\"%s\">%s</a>.", html.EscapeString(h.file), html.EscapeString(h.file))
	}
	b.WriteString("</p>\n")
	writeWarnings(b, h.warnings)
	b.WriteString("</section>\n")
}

// maxWarningsShown is how many of a figure's or table's warnings are
// listed under it; the rest are counted there and all are in Warnings.
const maxWarningsShown = 5

// writeWarnings lists a figure's or table's warnings under it.
func writeWarnings(b *bytes.Buffer, ws []string) {
	if len(ws) == 0 {
		return
	}
	b.WriteString("<ul>")
	for i, w := range ws {
		if i == maxWarningsShown && len(ws) > maxWarningsShown+1 {
			fmt.Fprintf(b, "<li class=\"warn\">and %d more (see <a href=\"#warnings\">Warnings</a>)</li>", len(ws)-maxWarningsShown)
			break
		}
		fmt.Fprintf(b, "<li class=\"warn\">%s</li>", html.EscapeString(w))
	}
	b.WriteString("</ul>")
}
