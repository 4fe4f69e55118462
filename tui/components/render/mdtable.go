package render

import (
	"bytes"
	"fmt"
	"html"
	"strconv"
	"strings"

	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// glamour (v2.0.1) gives every table the whole width of its block, so a
// two-column table of short cells is stretched across the screen and its
// column alignment is lost in the padding. The browser renders Markdown
// with glamour's own terminal renderer but lifts the tables out first: each
// table becomes a one-line placeholder paragraph (so glamour lays out
// everything around it, quotes and list indentation included), and the
// placeholder line is then replaced by the table drawn with lipgloss at its
// natural width, its cells rendered by glamour, its columns aligned as the
// Markdown says. A table wider than the screen is shrunk (cells wrapped) to
// fit, as glamour would.

// glamourPriority is the priority glamour gives its renderer in goldmark.
const glamourPriority = 1000

// mdDocument renders one Markdown document with tables at natural width.
type mdDocument struct {
	cfg    ansi.StyleConfig
	opts   ansi.Options
	marker string        // the placeholder's text, absent from the source
	tables []*east.Table // lifted out of the document, in order
}

// renderGlamour renders md like glamour.TermRenderer with the given
// standard style (WordWrap width, kept line breaks, the base URL), drawing
// tables at their natural width.
func renderGlamour(md string, width int, cfg ansi.StyleConfig) (string, error) {
	d := &mdDocument{
		cfg: cfg,
		opts: ansi.Options{
			WordWrap:         width,
			PreserveNewLines: true,
			BaseURL:          unresolvedBase,
			Styles:           cfg,
		},
	}
	src := []byte(md)
	gm := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
	// As glamour does: set after the extensions, so that their HTML
	// renderers (task check boxes, strikethrough, ...) are not used.
	gm.SetRenderer(glamourRenderer(d.opts))
	doc := gm.Parser().Parse(text.NewReader(src))
	src = nameCodeBlocks(doc, src)
	src = d.liftTables(doc, src)
	var out bytes.Buffer
	if err := gm.Renderer().Render(&out, src, doc); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	if len(d.tables) == 0 {
		return out.String(), nil
	}
	return d.placeTables(out.String(), src, width)
}

// glamourRenderer is the goldmark renderer glamour.TermRenderer uses.
func glamourRenderer(opts ansi.Options) renderer.Renderer {
	return renderer.NewRenderer(
		renderer.WithNodeRenderers(util.Prioritized(ansi.NewRenderer(opts), glamourPriority)),
	)
}

// placeholderMarker returns a word that does not occur in src.
func placeholderMarker(src []byte) string {
	m := "\ue000t"
	for bytes.Contains(src, []byte(m)) {
		m += "x"
	}
	return m
}

// liftTables replaces every table of doc by a paragraph holding its
// placeholder word, whose text is appended to src; it returns the source
// to render with.
func (d *mdDocument) liftTables(doc gast.Node, src []byte) []byte {
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if t, ok := n.(*east.Table); ok && entering {
			d.tables = append(d.tables, t)
			return gast.WalkSkipChildren, nil
		}
		return gast.WalkContinue, nil
	})
	if len(d.tables) == 0 {
		return src
	}
	d.marker = placeholderMarker(src)
	for i, t := range d.tables {
		start := len(src)
		src = append(src, d.marker+strconv.Itoa(i)+"\ue001"...)
		p := gast.NewParagraph()
		p.AppendChild(p, gast.NewTextSegment(text.NewSegment(start, len(src))))
		t.Parent().ReplaceChild(t.Parent(), t, p)
	}
	return src
}

// placeTables replaces each placeholder line of out by its table, drawn
// after the same prefix (margin, quote bars, list indentation).
func (d *mdDocument) placeTables(out string, src []byte, width int) (string, error) {
	cells, err := d.cellRenderer()
	if err != nil {
		return "", err
	}
	margin := 0
	if d.cfg.Document.Margin != nil {
		margin = int(*d.cfg.Document.Margin)
	}
	lines := strings.Split(out, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		plain := xansi.Strip(line)
		at := strings.Index(plain, d.marker)
		if at < 0 {
			b.WriteString(line)
			continue
		}
		rest := plain[at+len(d.marker):]
		end := strings.IndexRune(rest, '\ue001')
		n, err := strconv.Atoi(rest[:max(end, 0)])
		if end < 0 || err != nil || n >= len(d.tables) {
			b.WriteString(line) // cannot happen: the marker is ours
			continue
		}
		// The table goes under the line's indentation (margin, quote
		// bars); text glamour put before it on the line (a list item's
		// first paragraph) keeps a line of its own.
		col := xansi.StringWidth(plain[:at])
		ind := indentWidth(plain[:at])
		if ind < col {
			b.WriteString(strings.TrimRight(xansi.Truncate(line, col, ""), " ") + "\n")
		}
		prefix := xansi.Truncate(line, ind, "")
		drawn, err := d.drawTable(d.tables[n], src, cells, max(width-ind-margin, minColumn))
		if err != nil {
			return "", err
		}
		for j, tl := range strings.Split(drawn, "\n") {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(prefix + tl)
		}
	}
	return b.String(), nil
}

// indentWidth is the width of the leading spaces and quote bars of s.
func indentWidth(s string) int {
	w := 0
	for _, r := range s {
		if !strings.ContainsRune(" \u00a0│|", r) {
			break
		}
		w++
	}
	return w
}

// cellRenderer renders a cell's inline content with the document's styles
// but no margin and no wrapping (the table wraps cells itself).
func (d *mdDocument) cellRenderer() (*cellStyle, error) {
	cfg := d.cfg
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.Indent = nil
	cfg.Document.BlockPrefix, cfg.Document.BlockSuffix = "", ""
	cfg.Paragraph.Margin, cfg.Paragraph.Indent = nil, nil
	cfg.Paragraph.BlockPrefix, cfg.Paragraph.BlockSuffix = "", ""
	opts := d.opts
	opts.WordWrap = 0
	opts.Styles = cfg
	return newCellStyle(glamourRenderer(opts))
}

// drawTable draws t with lipgloss: natural column widths, the Markdown's
// alignment, glamour's borders; shrunk to avail cells when wider.
func (d *mdDocument) drawTable(t *east.Table, src []byte, cells *cellStyle, avail int) (string, error) {
	var header []string
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var row []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			s, err := renderCell(c, src, cells)
			if err != nil {
				return "", err
			}
			row = append(row, s)
		}
		if _, ok := r.(*east.TableHeader); ok {
			header = row
		} else {
			rows = append(rows, row)
		}
	}
	rules := d.cfg.Table
	border := lipgloss.NormalBorder()
	if rules.RowSeparator != nil && rules.ColumnSeparator != nil && rules.CenterSeparator != nil {
		border = lipgloss.Border{
			Top: *rules.RowSeparator, Bottom: *rules.RowSeparator,
			Left: *rules.ColumnSeparator, Right: *rules.ColumnSeparator,
			Middle: *rules.CenterSeparator,
		}
	}
	widths := columnWidths(header, rows, avail)
	align := t.Alignments
	tb := table.New().
		Border(border).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		Headers(header...).
		Rows(rows...).
		Wrap(true).
		StyleFunc(func(_, col int) lipgloss.Style {
			st := lipgloss.NewStyle().Padding(0, cellPadding)
			if col < len(widths) {
				st = st.Width(widths[col])
			}
			if col < len(align) {
				switch align[col] {
				case east.AlignCenter:
					st = st.Align(lipgloss.Center)
				case east.AlignRight:
					st = st.Align(lipgloss.Right)
				}
			}
			return st
		})
	return strings.TrimRight(tb.String(), "\n"), nil
}

// cellPadding is the space on each side of a cell's text.
const cellPadding = 1

// minColumn is the narrowest a column's text is squeezed to (shorter text
// keeps its width) before a table is left wider than the screen.
const minColumn = 6

// columnWidths returns each column's width (text and padding): the widest
// cell's, or, when the table with its separators would be wider than avail,
// narrower — the widest column loses a cell at a time, none below
// minColumn. A table that still does not fit is clipped by the view.
func columnWidths(header []string, rows [][]string, avail int) []int {
	var widths []int
	measure := func(row []string) {
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], lipgloss.Width(c))
		}
	}
	measure(header)
	for _, r := range rows {
		measure(r)
	}
	floor := make([]int, len(widths))
	total := max(len(widths)-1, 0) // separators
	for j, w := range widths {
		floor[j] = min(w, minColumn) + 2*cellPadding
		widths[j] = w + 2*cellPadding
		total += widths[j]
	}
	for total > avail {
		widest := -1
		for j, w := range widths {
			if w > floor[j] && (widest < 0 || w > widths[widest]) {
				widest = j
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	return widths
}

// cellStyle renders table cells' inline Markdown. Cells of plain text
// (most of them) are wrapped in the escape sequences glamour gives plain
// text, measured once, instead of a glamour render each.
type cellStyle struct {
	r         renderer.Renderer
	open, end string
}

func newCellStyle(r renderer.Renderer) (*cellStyle, error) {
	const probe = "\ue000"
	src := []byte(probe)
	doc := gast.NewDocument()
	p := gast.NewParagraph()
	doc.AppendChild(doc, p)
	p.AppendChild(p, gast.NewTextSegment(text.NewSegment(0, len(src))))
	var buf bytes.Buffer
	if err := r.Render(&buf, src, doc); err != nil {
		return nil, fmt.Errorf("render table cell: %w", err)
	}
	open, end, ok := strings.Cut(strings.Trim(buf.String(), "\n"), probe)
	if !ok {
		return &cellStyle{r: r}, nil // plain cells take the slow path too
	}
	return &cellStyle{r: r, open: open, end: strings.TrimRight(end, " ")}, nil
}

// plain returns the text of a cell made only of text (no markup, no
// breaks), and whether it is one.
func (cs *cellStyle) plain(cell gast.Node, src []byte) (string, bool) {
	if cs.open == "" && cs.end == "" {
		return "", false
	}
	var b strings.Builder
	for c := cell.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*gast.Text)
		if !ok || t.SoftLineBreak() || t.HardLineBreak() {
			return "", false
		}
		b.Write(t.Segment.Value(src))
	}
	return cs.open + html.UnescapeString(b.String()) + cs.end, true
}

// renderCell renders a table cell's inline Markdown; an HTML line break
// (<br>, which dpe writes for a line break inside a cell) breaks the line.
func renderCell(cell gast.Node, src []byte, cs *cellStyle) (string, error) {
	if cell.ChildCount() == 0 {
		return "", nil
	}
	if s, ok := cs.plain(cell, src); ok {
		return s, nil
	}
	doc := gast.NewDocument()
	p := gast.NewParagraph()
	doc.AppendChild(doc, p)
	for c := cell.FirstChild(); c != nil; {
		next := c.NextSibling()
		if isLineBreakTag(c, src) {
			br := gast.NewTextSegment(text.NewSegment(0, 0))
			br.SetHardLineBreak(true)
			p.AppendChild(p, br)
		} else {
			p.AppendChild(p, c)
		}
		c = next
	}
	unwrapLinks(p)
	var buf bytes.Buffer
	if err := cs.r.Render(&buf, src, doc); err != nil {
		return "", fmt.Errorf("render table cell: %w", err)
	}
	s := strings.Trim(buf.String(), "\n")
	// Trailing cells of glamour's styled padding are not content.
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n"), nil
}

// unwrapLinks replaces the links and images under n by their text (an
// image's alt text): a cell shows what a link says, and the links picker
// (L) has where it goes, rather than a URL that would widen the column.
func unwrapLinks(n gast.Node) {
	var links []gast.Node
	_ = gast.Walk(n, func(c gast.Node, entering bool) (gast.WalkStatus, error) {
		switch c.(type) {
		case *gast.Link, *gast.Image:
			if !entering { // inner ones first: an image inside a link
				links = append(links, c)
			}
		}
		return gast.WalkContinue, nil
	})
	for _, l := range links {
		parent := l.Parent()
		for c := l.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, l, c)
			c = next
		}
		parent.RemoveChild(parent, l)
	}
}

// isLineBreakTag reports whether n is inline HTML <br>, <br/> or <br />.
func isLineBreakTag(n gast.Node, src []byte) bool {
	raw, ok := n.(*gast.RawHTML)
	if !ok {
		return false
	}
	var b []byte
	for i := 0; i < raw.Segments.Len(); i++ {
		seg := raw.Segments.At(i)
		b = append(b, seg.Value(src)...)
	}
	switch strings.ToLower(strings.ReplaceAll(string(b), " ", "")) {
	case "<br>", "<br/>":
		return true
	}
	return false
}
