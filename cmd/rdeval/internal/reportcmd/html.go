package reportcmd

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/rdeval/rdeval/cmd/rdeval/internal/cmdutil"
	"github.com/rdeval/rdeval/ingest"
)

// page is what the report's index.html shows.
type page struct {
	source, version string
	synthetic       bool
	figs            []drawnFigure
	inputs          []ingest.InputStats
	warnings        []string // data warnings, then the statistics' (dropped tasks, small n, non-convergence)
	provenance      [][2]string
	figureRows      [][]string // per figure: id, type, seed, B, parameters (config reports)
	tables          []string
}

// writeHTML writes the report page: provenance, warnings and every figure
// inline, with no external assets. Each figure is a <figure class="rdeval-figure">
// holding its inline <svg>; the Chromium test checks each one rendered.
func writeHTML(path string, pg page) error {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rdeval report</title>\n<style>body{font-family:'Liberation Sans',Arial,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#111}figure{margin:2em 0}figcaption{font-size:0.9em;color:#444}table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;padding:0.2em 0.5em;text-align:left}.warn{color:#8a4b00}.synthetic{background:#fff3cd;padding:0.5em 1em;border-left:4px solid #e69f00}</style></head><body>\n")
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
	b.WriteString("<h2>Figures</h2>\n")
	for _, f := range pg.figs {
		svg := string(f.svg)
		if i := strings.Index(svg, "<svg"); i > 0 {
			svg = svg[i:] // drop the XML prolog inside HTML
		}
		fmt.Fprintf(&b, "<figure class=\"rdeval-figure\" id=\"%s\">%s<figcaption>%s (<a href=\"figures/%s\">%s</a>)</figcaption></figure>\n",
			html.EscapeString(f.id), svg, html.EscapeString(f.title), html.EscapeString(f.file), html.EscapeString(f.file))
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
	fmt.Fprintf(&b, "<p>Tables: %s; data/ holds the ingested tables and manifest.json.</p>\n</body></html>\n", html.EscapeString(strings.Join(pg.tables, ", ")))
	return cmdutil.WriteFileAtomic(path, b.Bytes())
}
