package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// XLSX is read with excelize: one page per sheet (in workbook order); the
// used range of a sheet (leading empty rows and columns dropped) becomes a
// table whose first row is the header, chunked into elements of at most
// TableRowsPerPage rows, all on the sheet's page. Formula cells are marked
// (metadata.has_formulas on the table) and the first ones are listed as
// formula elements with their cell and value, each after the table chunk
// that holds its cell; a formula without a cached value is computed so that
// its cell does not show empty. excelize has no chart reader, so charts come from the
// package itself: sheet → drawing → chart parts.

// maxFormulaCells bounds the cells checked for formulas per sheet, and
// maxFormulaElements the formula elements listed per sheet.
const (
	maxFormulaCells    = 200_000
	maxFormulaElements = 50
)

func excelizeOptions(p *parser) excelize.Options {
	return excelize.Options{UnzipSizeLimit: p.opts.MaxUnpacked, UnzipXMLSizeLimit: min(p.opts.MaxZipEntry, smallSheetBytes)}
}

// parseXLSX reads a workbook.
func parseXLSX(p *parser, src []byte) (*Document, error) {
	pk, err := openPackage(p, bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return nil, err
	}
	if !pk.has("xl/workbook.xml") {
		return nil, errors.New("not an XLSX package: xl/workbook.xml is missing")
	}
	f, err := excelize.OpenReader(bytes.NewReader(src), excelizeOptions(p))
	if err != nil {
		return nil, fmt.Errorf("open workbook: %w", err)
	}
	defer f.Close()
	core := pk.core()
	doc := &Document{Title: core.title, Summary: core.summary(), Keywords: splitKeywords(core.keywords)}
	sheets := f.GetSheetList()
	if doc.Summary == "" {
		doc.Summary = workbookSummary(sheets)
	}
	charts := sheetCharts(pk)
	parts := sheetPartNames(pk)
	for _, name := range sheets {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		if len(doc.Pages) >= p.opts.MaxPages {
			doc.Truncated = true
			break
		}
		pg, cut, err := readSheet(p, f, pk, parts[name], name)
		if err != nil {
			pg = Page{Title: clean(name), Elements: []Element{{Category: dpe.Text, Content: map[string]any{"text": "(this sheet could not be read)"}}}}
		}
		for _, part := range charts[name] {
			if el, ok := pk.chartInfo(part); ok {
				pg.Elements = append(pg.Elements, el)
			}
		}
		doc.Truncated = doc.Truncated || cut
		doc.Pages = append(doc.Pages, pg)
	}
	return doc, nil
}

func workbookSummary(sheets []string) string {
	switch len(sheets) {
	case 0:
		return "Workbook with 0 sheets: its workbook part lists no sheet"
	case 1:
		return truncate("Workbook with 1 sheet: "+clean(sheets[0]), SummaryChars)
	}
	return truncate(fmt.Sprintf("Workbook with %d sheets: %s", len(sheets), clean(strings.Join(sheets, ", "))), SummaryChars)
}

// readSheet reads the used range of one sheet: its rows as table elements,
// each followed by the formulas of its cells.
func readSheet(p *parser, f *excelize.File, pk *pkg, part, name string) (Page, bool, error) {
	pg := Page{Title: clean(name)}
	rows, cut, err := readRows(p, f, name)
	if err != nil {
		return pg, false, err
	}
	rows, top, left := usedRange(rows)
	if len(rows) == 0 {
		return pg, cut, nil
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	formulas, hasFormulas := boundedSheetFormulas(p, pk, part, f, name, top+1, left, len(rows), cols)
	showFormulaValues(rows, formulas)
	per := p.opts.TableRowsPerPage
	chunks := tableElements(rows[0], rows[1:], per, top+1, left)
	for i, el := range chunks {
		el.Metadata["sheet"] = clean(name)
		el.Metadata["has_formulas"] = hasFormulas
		if cut && i == len(chunks)-1 {
			el.Metadata["truncated"] = true
		}
		pg.Elements = append(pg.Elements, el)
		// The formulas of this chunk's rows follow it.
		for _, fx := range formulas {
			chunk := 0
			if fx.row > 0 {
				chunk = (fx.row - 1) / per
			}
			if chunk == i || (i == len(chunks)-1 && chunk >= len(chunks)) {
				pg.Elements = append(pg.Elements, fx.el)
			}
		}
	}
	return pg, cut, nil
}

// readRows reads a sheet's rows within the bounds (rows, columns, cell
// characters, the output budget); cut reports that a bound stopped it.
func readRows(p *parser, f *excelize.File, name string) (rows [][]string, cut bool, err error) {
	it, err := f.Rows(name)
	if err != nil {
		return nil, false, err
	}
	defer it.Close()
	for it.Next() {
		if len(rows) > p.opts.MaxRows || p.overBudget {
			p.noteCut("sheet %q: kept the first %s rows", clean(name), thousands(len(rows)))
			return rows, true, nil
		}
		if len(rows)%1024 == 0 {
			if err := p.cancelled(); err != nil {
				return nil, false, err
			}
		}
		cols, err := it.Columns()
		if err != nil {
			return nil, false, err
		}
		if len(cols) > p.opts.MaxColumns {
			cols = cols[:p.opts.MaxColumns]
		}
		for i, c := range cols {
			cols[i] = truncate(clean(c), p.opts.MaxCellChars)
		}
		if cols == nil {
			cols = []string{}
		}
		if !p.charge(rowBytes(cols)) {
			return rows, true, nil
		}
		rows = append(rows, cols)
	}
	return rows, false, nil
}

// usedRange drops a sheet's leading empty rows and columns and its
// trailing empty rows; top is the number of rows dropped above and left
// of columns dropped on the left.
func usedRange(rows [][]string) (used [][]string, top, left int) {
	for top < len(rows) && allEmpty(rows[top]) {
		top++
	}
	bottom := len(rows)
	for bottom > top && allEmpty(rows[bottom-1]) {
		bottom--
	}
	rows = rows[top:bottom]
	left = -1
	for _, r := range rows {
		for i, c := range r {
			if strings.TrimSpace(c) != "" {
				if left < 0 || i < left {
					left = i
				}
				break
			}
		}
	}
	if left > 0 {
		for i, r := range rows {
			if len(r) > left {
				rows[i] = r[left:]
			} else {
				rows[i] = []string{}
			}
		}
	}
	return rows, top, max(left, 0)
}

// showFormulaValues writes a formula's value in its cell when the cell
// is empty: the cached one, or computed when the file was saved without
// calculation.
func showFormulaValues(rows [][]string, formulas []sheetFormula) {
	for _, fx := range formulas {
		v, _ := fx.el.Content["value"].(string)
		if v == "" || fx.row >= len(rows) {
			continue
		}
		for len(rows[fx.row]) <= fx.col {
			rows[fx.row] = append(rows[fx.row], "")
		}
		if rows[fx.row][fx.col] == "" {
			rows[fx.row][fx.col] = v
		}
	}
}

func allEmpty(r []string) bool {
	for _, c := range r {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// sheetFormula is a formula element and its cell's position in the used
// range (row 0 is the header row).
type sheetFormula struct {
	el       Element
	row, col int
}

// sheetFormulas checks the used range (firstRow one-based, firstCol
// zero-based) for formula cells: whether there are any, and up to
// maxFormulaElements formula elements with their cell and value (the
// cached result, or one computed by excelize when the file has none).
func sheetFormulas(f *excelize.File, sheet string, firstRow, firstCol, nrows, ncols int) ([]sheetFormula, bool) {
	var out []sheetFormula
	found := false
	checked := 0
	for r := 0; r < nrows; r++ {
		for c := 0; c < ncols; c++ {
			if checked++; checked > maxFormulaCells {
				return out, found
			}
			cell := cellName(firstCol+c, firstRow+r)
			fx, err := f.GetCellFormula(sheet, cell)
			if err != nil || fx == "" {
				continue
			}
			found = true
			if len(out) >= maxFormulaElements {
				continue
			}
			val, _ := f.GetCellValue(sheet, cell)
			computed := false
			if val == "" {
				if v, err := f.CalcCellValue(sheet, cell); err == nil && v != "" {
					val, computed = v, true
				}
			}
			if !strings.HasPrefix(fx, "=") {
				fx = "=" + fx
			}
			el := Element{Category: dpe.Formula,
				Content:  map[string]any{"expression": clean(fx), "cell": cell},
				Metadata: map[string]any{"sheet": clean(sheet)}}
			if val != "" {
				el.Content["value"] = clean(val)
			}
			if computed {
				el.Metadata["value_computed"] = true
			}
			out = append(out, sheetFormula{el: el, row: r, col: c})
		}
	}
	return out, found
}

// sheetCharts maps sheet names to their chart parts, following the
// workbook's and sheets' relationships to drawings and their charts.
func sheetCharts(pk *pkg) map[string][]string {
	out := map[string][]string{}
	wb, err := pk.tree("xl/workbook.xml")
	if err != nil {
		return out
	}
	wbRels := pk.rels("xl/workbook.xml")
	for _, s := range wb.all("sheet") {
		r, ok := wbRels[s.relID()]
		if !ok {
			continue
		}
		for _, d := range pk.rels(r.target) {
			if !strings.HasSuffix(d.typ, "/drawing") {
				continue
			}
			dt, err := pk.tree(d.target)
			if err != nil {
				continue
			}
			drels := pk.rels(d.target)
			for _, ch := range dt.all("chart") {
				if cr, ok := drels[ch.relID()]; ok && strings.HasSuffix(cr.typ, relChart) {
					out[s.attr("name")] = append(out[s.attr("name")], cr.target)
				}
			}
		}
	}
	return out
}

// peekXLSX reads the core properties and the sheet names.
func peekXLSX(p *parser, ra io.ReaderAt, size int64) (Meta, error) {
	pk, err := openPackage(p, ra, size)
	if err != nil {
		return Meta{}, err
	}
	wb, err := pk.tree("xl/workbook.xml")
	if err != nil {
		return Meta{}, fmt.Errorf("not an XLSX package: %w", err)
	}
	core := pk.core()
	m := Meta{Title: core.title, Summary: core.summary()}
	if m.Summary == "" {
		var names []string
		for _, s := range wb.all("sheet") {
			names = append(names, s.attr("name"))
		}
		m.Summary = workbookSummary(names)
	}
	return m, nil
}
