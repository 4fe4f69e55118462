package extract

import (
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// Element builders the format readers share: text elements of a
// paragraph, text cut to the page budget, tables chunked into elements
// with their cell ranges.

// textElements makes the text elements of a paragraph: one with its
// Markdown form when that fits the page budget, else plain pieces of at
// most limit bytes. It reports whether the Markdown form was kept.
func textElements(plain, md string, limit int) ([]Element, bool) {
	if len(md) <= limit && len(plain) <= limit {
		el := Element{Category: dpe.Text, Content: map[string]any{"text": plain}}
		if md != "" {
			el.Content["markdown"] = md
		}
		return []Element{el}, true
	}
	var out []Element
	for _, part := range chunkText(plain, limit) {
		out = append(out, Element{Category: dpe.Text, Content: map[string]any{"text": part}})
	}
	return out, md == ""
}

// standalone drops "within" from elements whose container lost its
// Markdown form, so that they are shown on their own.
func standalone(refs []Element) {
	for _, r := range refs {
		delete(r.Content, "within")
	}
}

// chunkText splits s into pieces of at most limit bytes, at line breaks
// when it can and otherwise at rune boundaries.
func chunkText(s string, limit int) []string {
	if len(s) <= limit {
		return []string{s}
	}
	var out []string
	for len(s) > limit {
		cut := strings.LastIndexByte(s[:limit], '\n')
		if cut <= 0 {
			cut = limit
			for cut > 0 && !isRuneStart(s[cut]) {
				cut--
			}
			if cut == 0 {
				cut = limit
			}
		}
		out = append(out, strings.TrimRight(s[:cut], "\n"))
		s = strings.TrimLeft(s[cut:], "\n")
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tableElements chunks a table into elements of at most perPage rows.
// firstRow is the one-based sheet row of the header (0 when the table has
// no header row) and firstCol the zero-based column of its first cell; they
// give each chunk's source_range in A1 notation.
func tableElements(headers []string, rows [][]string, perPage, firstRow, firstCol int) []Element {
	cols := len(headers)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if headers == nil {
		headers = []string{}
	}
	if len(rows) == 0 {
		return []Element{tableElement(headers, [][]string{}, cols, 0, 0, firstRow, firstCol)}
	}
	var out []Element
	for start := 0; start < len(rows); start += perPage {
		end := min(start+perPage, len(rows))
		out = append(out, tableElement(headers, rows[start:end], cols, start, len(rows), firstRow, firstCol))
	}
	return out
}

func tableElement(headers []string, rows [][]string, cols, start, total, firstRow, firstCol int) Element {
	el := Element{
		Category: dpe.Table,
		Content:  map[string]any{"headers": headers, "rows": rows},
		Detail:   map[string]any{"total_rows": len(rows), "total_columns": cols},
		Metadata: map[string]any{},
	}
	if firstRow > 0 && cols > 0 {
		top := firstRow + 1 + start // first data row of the chunk
		if start == 0 {
			top = firstRow // the first chunk includes the header row
		}
		bottom := firstRow + start + len(rows)
		if len(rows) == 0 {
			bottom = firstRow
		}
		el.Metadata["source_range"] = cellName(firstCol, top) + ":" + cellName(firstCol+cols-1, bottom)
		if start > 0 {
			el.Metadata["header_range"] = cellName(firstCol, firstRow) + ":" + cellName(firstCol+cols-1, firstRow)
		}
	}
	if total > len(rows) {
		el.Metadata["table_total_rows"] = total
		el.Metadata["first_row"] = start + 1
	}
	return el
}
