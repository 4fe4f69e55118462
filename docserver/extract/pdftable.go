package extract

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Tables of a PDF page. A PDF has no tables, only text placed in columns:
// a run of at least three consecutive lines, each cut into at least two
// cells by gaps wider than 1.5 ems, whose cells fall into the same
// columns (the x ranges their cells cover, together, leave the same
// gutters free) is a table. Its first row is its header. Monospaced lines
// are left to code blocks, which keep their columns as they are.

// minTableRows is the fewest lines a table has.
const minTableRows = 3

// pdfCell is a cell of a line: runs close together.
type pdfCell struct {
	left, right float64
	runs        []pdfRun
}

// cellsOf cuts a line into cells at gaps wider than 1.5 ems.
func cellsOf(l pdfLine) []pdfCell {
	var out []pdfCell
	em := l.em()
	for _, r := range l.runs {
		if n := len(out); n > 0 && r.left-out[n-1].right <= 1.5*em {
			c := &out[n-1]
			c.runs = append(c.runs, r)
			c.right = math.Max(c.right, r.right)
			continue
		}
		out = append(out, pdfCell{left: r.left, right: r.right, runs: []pdfRun{r}})
	}
	return out
}

// text is a cell's text, its runs joined as a line's are.
func (c pdfCell) text() string {
	var b strings.Builder
	for i, r := range c.runs {
		if i > 0 && spaceBetween(c.runs[i-1], r, r.left-c.runs[i-1].right) {
			b.WriteByte(' ')
		}
		b.WriteString(r.text)
	}
	return cleanPDFText(strings.TrimSpace(b.String()))
}

// tableRow reports whether a line can be a row of a table, with its cells.
func (lay *pdfLayout) tableRow(l pdfLine) ([]pdfCell, bool) {
	if l.mono || l.marker != "" || lay.heading(l) || leaderDots.MatchString(l.text) || len(l.runs) < 2 {
		return nil, false
	}
	cells := cellsOf(l)
	return cells, len(cells) >= 2
}

// tableAt returns the table that starts at line i, and the line after it;
// ok is false when none does.
func (lay *pdfLayout) tableAt(i int) (Element, int, bool) {
	var rows [][]pdfCell
	j := i
	for ; j < len(lay.lines); j++ {
		cells, ok := lay.tableRow(lay.lines[j])
		if !ok {
			break
		}
		if j > i {
			p, l := lay.lines[j-1], lay.lines[j]
			if gap := p.y - l.y; gap <= 0 || gap > 2.5*math.Max(p.em(), l.em()) || !sameSize(p, l) {
				break
			}
		}
		rows = append(rows, cells)
	}
	if len(rows) < minTableRows {
		return Element{}, i, false
	}
	cols := tableColumns(rows, lay.lines[i].em())
	if len(cols) < 2 {
		return Element{}, i, false
	}
	grid := make([][]string, len(rows))
	wide := 0
	for r, cells := range rows {
		grid[r] = make([]string, len(cols))
		for _, c := range cells {
			for _, part := range cutAtColumns(c, cols) {
				k := columnOf(cols, part.left)
				grid[r][k] = strings.TrimSpace(grid[r][k] + " " + part.text())
			}
		}
		filled := 0
		for _, s := range grid[r] {
			if s != "" {
				filled++
			}
		}
		if filled >= 2 {
			wide++
		}
	}
	if wide*4 < len(rows)*3 {
		return Element{}, i, false
	}
	grid = mergeDisjointColumns(grid)
	if len(grid[0]) < 2 {
		return Element{}, i, false
	}
	return tableElement(grid[0], grid[1:], len(grid[0]), 0, len(grid)-1, 0, 0), j, true
}

// mergeDisjointColumns joins two neighbouring columns that no row fills
// both of: one column whose cells start at different places (a centred
// header over right-aligned numbers).
func mergeDisjointColumns(grid [][]string) [][]string {
	for k := len(grid[0]) - 1; k > 0; k-- {
		both := false
		for _, row := range grid {
			both = both || row[k-1] != "" && row[k] != ""
		}
		if both {
			continue
		}
		for r, row := range grid {
			row[k-1] = strings.TrimSpace(row[k-1] + " " + row[k])
			grid[r] = slices.Delete(row, k, k+1)
		}
	}
	return grid
}

// tableColumns are the columns of some rows, as x ranges: a column
// starts at the left edge of a cell that no other row's cell runs across
// (one row in ten may: a long name spilling into the gutter), and left
// edges within an em of each other start the same column.
func tableColumns(rows [][]pdfCell, em float64) [][2]float64 {
	var starts []float64
	for _, cells := range rows {
		for _, c := range cells[1:] {
			starts = append(starts, c.left)
		}
	}
	sort.Float64s(starts)
	var cuts []float64
	for _, x := range starts {
		if n := len(cuts); n > 0 && x-cuts[n-1] <= em {
			continue
		}
		across := 0
		for _, cells := range rows {
			for _, c := range cells {
				if c.left < x-em/3 && c.right > x+em/3 {
					across++
				}
			}
		}
		if across*10 <= len(rows) {
			cuts = append(cuts, x)
		}
	}
	cols := make([][2]float64, 0, len(cuts)+1)
	from := math.Inf(-1)
	for _, x := range cuts {
		cols = append(cols, [2]float64{from, x - em/3})
		from = x - em/3
	}
	return append(cols, [2]float64{from, math.Inf(1)})
}

// cutAtColumns cuts a cell where one of its words starts a column of the
// table ("United Kingdom London" runs into the next column's gutter and
// reads as one cell on its line).
func cutAtColumns(c pdfCell, cols [][2]float64) []pdfCell {
	var out []pdfCell
	for _, r := range c.runs {
		words := strings.Split(r.text, " ")
		if len(words) != len(r.starts) {
			words, r.starts = []string{r.text}, []float64{r.left}
		}
		for k, w := range words {
			col := columnOf(cols, r.starts[k])
			wr := r
			wr.text, wr.left = w, r.starts[k]
			// One space apart in the text, as they were in the run.
			wr.from, wr.to = r.from+2*k, r.from+2*k
			if k+1 < len(words) {
				wr.right, wr.space = r.starts[k+1], true
			} else {
				wr.to = r.to
			}
			if n := len(out); n > 0 && columnOf(cols, out[n-1].left) == col {
				out[n-1].runs = append(out[n-1].runs, wr)
				continue
			}
			out = append(out, pdfCell{left: wr.left, right: wr.right, runs: []pdfRun{wr}})
		}
	}
	return out
}

// columnOf is the column an x position falls in (the nearest one).
func columnOf(cols [][2]float64, x float64) int {
	return slices.IndexFunc(cols, func(c [2]float64) bool { return x <= c[1] || c == cols[len(cols)-1] })
}
