package extract

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Memory bounds of XLSX reading. excelize's cell getters (GetCellFormula,
// GetCellValue) load the whole worksheet into its object model: a 1M-row
// sheet (19.6 MB file) took 2.2 GB. Rows are streamed with its row
// iterator; formulas of a sheet whose XML is larger than smallSheetBytes
// are found by streaming the sheet part with encoding/xml instead.

// smallSheetBytes is the largest sheet part whose formulas are read with
// excelize's getters (its object model takes about 20 times the XML).
const smallSheetBytes = 4 << 20

// sheetPartNames maps sheet names to their worksheet parts, following the
// workbook's relationships.
func sheetPartNames(pk *pkg) map[string]string {
	out := map[string]string{}
	wb, err := pk.tree("xl/workbook.xml")
	if err != nil {
		return out
	}
	rels := pk.rels("xl/workbook.xml")
	for _, s := range wb.all("sheet") {
		if r, ok := rels[s.relID()]; ok {
			out[s.attr("name")] = r.target
		}
	}
	return out
}

// boundedSheetFormulas returns the formula elements of the used range of a
// sheet and whether it has any, reading small sheets with excelize and
// streaming large ones.
func boundedSheetFormulas(p *parser, pk *pkg, part string, f *excelize.File, sheet string, firstRow, firstCol, nrows, ncols int) ([]sheetFormula, bool) {
	zf, ok := pk.files[strings.ToLower(part)]
	if !ok || zf.UncompressedSize64 <= smallSheetBytes {
		return sheetFormulas(f, sheet, firstRow, firstCol, nrows, ncols)
	}
	return streamSheetFormulas(p, pk, part, sheet, firstRow, firstCol, nrows, ncols)
}

// streamSheetFormulas scans a worksheet part for <c r="..."><f>...</f>
// <v>...</v></c> without building it. Cells that share a formula written
// on another cell (<f t="shared" si="..."/> with no text) count toward
// has_formulas but are not listed: their expression is the other cell's,
// shifted.
func streamSheetFormulas(p *parser, pk *pkg, part, sheet string, firstRow, firstCol, nrows, ncols int) ([]sheetFormula, bool) {
	zf := pk.files[strings.ToLower(part)]
	rc, err := zf.Open()
	if err != nil {
		return nil, false
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, pk.max))
	dec.Strict = false
	var out []sheetFormula
	found := false
	cell, inF, inV := "", false, false
	var fx, val strings.Builder
	tokens := 0
	for {
		tok, err := dec.RawToken()
		if err != nil {
			break
		}
		if tokens++; tokens%4096 == 0 && p.cancelled() != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "c":
				cell = ""
				for _, a := range t.Attr {
					if a.Name.Local == "r" {
						cell = a.Value
					}
				}
				fx.Reset()
				val.Reset()
			case "f":
				inF = true
				found = found || inRange(cell, firstRow, firstCol, nrows, ncols)
			case "v":
				inV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "f":
				inF = false
			case "v":
				inV = false
			case "c":
				if fx.Len() > 0 && len(out) < maxFormulaElements && inRange(cell, firstRow, firstCol, nrows, ncols) {
					expr := fx.String()
					if !strings.HasPrefix(expr, "=") {
						expr = "=" + expr
					}
					el := Element{Category: dpe.Formula,
						Content:  map[string]any{"expression": clean(expr), "cell": cell},
						Metadata: map[string]any{"sheet": clean(sheet)}}
					if val.Len() > 0 {
						el.Content["value"] = clean(val.String())
					}
					col, row, _ := excelize.CellNameToCoordinates(cell)
					out = append(out, sheetFormula{el: el, row: row - firstRow, col: col - 1 - firstCol})
				}
				cell = ""
			}
		case xml.CharData:
			if inF && fx.Len() < p.opts.MaxCellChars {
				fx.Write(t)
			} else if inV && val.Len() < p.opts.MaxCellChars {
				val.Write(t)
			}
		}
	}
	return out, found
}

// inRange reports whether a cell reference lies in the used range
// (firstRow one-based, firstCol zero-based).
func inRange(cell string, firstRow, firstCol, nrows, ncols int) bool {
	col, row, err := excelize.CellNameToCoordinates(cell)
	if err != nil {
		return false
	}
	col--
	return row >= firstRow && row < firstRow+nrows && col >= firstCol && col < firstCol+ncols
}
