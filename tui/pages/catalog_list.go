package pages

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/list"
)

// catalogList is the catalog's list: the chunks of the catalog fetched so
// far (get_finder offset/limit), the cursor, and the rows drawn only for
// what is visible.
type catalogList struct {
	c         *common.Common
	total     int
	haveTotal bool
	docs      chunks[protocol.DPEDocumentSummary]
	nav       list.Nav
	fresh     map[string]bool // URIs added or changed by the last live reload

	// rowCache holds rendered rows by URI; cleared when rows, the width,
	// the theme or the minute (relative times) change.
	rowCache   map[string]string
	rowCacheAt string
	// paths are the cut paths of the rows on screen, for the window and
	// width in pathsFor; dropped with the row cache.
	paths    []string
	pathsFor [3]int
	withPath bool // some row has a path: show the Path column
	listing  bool // the computer is still listing: total is a lower bound
}

func newCatalogList(c *common.Common) catalogList {
	return catalogList{c: c, docs: newChunks[protocol.DPEDocumentSummary](catalogChunk)}
}

// selected returns the highlighted document.
func (l *catalogList) selected() (protocol.DPEDocumentSummary, bool) {
	if !l.haveTotal || l.total == 0 {
		return protocol.DPEDocumentSummary{}, false
	}
	return l.docs.at(l.nav.Cursor)
}

// clear forgets every row (a new query).
func (l *catalogList) clear() {
	l.docs.restart(false)
	l.haveTotal, l.total, l.listing = false, 0, false
	l.nav.SetLen(0)
	l.nav.Set(0)
	l.fresh = nil
	l.rowCache = nil
}

// put stores a chunk of rows and the total.
func (l *catalogList) put(chunk int, ret *protocol.GetFinderRet) {
	l.docs.put(chunk, ret.Documents)
	for _, d := range ret.Documents {
		if d.Path != "" {
			l.withPath = true
		}
	}
	l.rowCache = nil
	l.total, l.haveTotal = max(ret.TotalCount, l.docs.offset(chunk)+len(ret.Documents)), true
	l.listing = ret.Listing
	l.nav.SetLen(l.total)
}

// indexOf returns the position of uri among the loaded rows.
func (l *catalogList) indexOf(uri string) (int, bool) {
	for n, rows := range l.docs.loaded {
		for i, d := range rows {
			if d.URI == uri {
				return l.docs.offset(n) + i, true
			}
		}
	}
	return 0, false
}

// rows draws the visible rows in w cells; empty is the line shown for an
// empty catalog.
func (l *catalogList) rows(w int, empty string) []string {
	st := l.c.Styles
	if l.haveTotal && l.total == 0 {
		return []string{"", "  " + st.Muted.Render(empty)}
	}
	l.checkRowCache(w)
	from, to := l.nav.Visible()
	paths := l.shortPaths(from, to, w)
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		d, ok := l.docs.at(i)
		var line string
		if !ok {
			line = common.Cell("    loading…", w-2)
		} else {
			line = l.cachedRow(d, w, paths[i-from])
		}
		switch {
		case i == l.nav.Cursor:
			line = st.Selected.Render("▸ " + ansi.Strip(line))
		case ok && l.fresh[d.URI]:
			line = st.Fresh.Render("● ") + line
		default:
			line = "  " + line
		}
		out = append(out, line)
	}
	return out
}

// checkRowCache empties the row cache when the width, the minute or the
// theme changed since it was filled: once a frame, not once a row.
func (l *catalogList) checkRowCache(w int) {
	stamp := common.Itoa(w) + "|" + l.c.Now().Truncate(time.Minute).String() + "|" + l.c.Styles.Glamour
	if l.rowCache == nil || l.rowCacheAt != stamp {
		l.rowCache, l.rowCacheAt, l.paths = map[string]string{}, stamp, nil
	}
}

// shortPaths fits the paths of rows [from, to) into the Path column of a
// list w cells wide, keeping the folders that tell them apart (the rows
// not loaded get "").
func (l *catalogList) shortPaths(from, to, w int) []string {
	if l.paths != nil && l.pathsFor == [3]int{from, to, w} {
		return l.paths
	}
	_, pathW, _ := l.columns(w - 2)
	paths := make([]string, to-from)
	l.paths, l.pathsFor = paths, [3]int{from, to, w}
	if pathW == 0 {
		return paths
	}
	for i := from; i < to; i++ {
		if d, ok := l.docs.at(i); ok {
			paths[i-from] = common.OneLine(d.Path)
		}
	}
	l.paths = shorten.Paths(paths, pathW)
	return l.paths
}

// cachedRow is row(d, w, path, true) through the row cache (see
// checkRowCache); path is the row's cut path, which depends on the rows
// around it.
func (l *catalogList) cachedRow(d protocol.DPEDocumentSummary, w int, path string) string {
	key := d.URI + "\x00" + path
	if r, ok := l.rowCache[key]; ok {
		return r
	}
	r := l.row(d, w, path, true)
	l.rowCache[key] = r
	return r
}

// catalogHeadings are the column titles, laid out by row like a document.
func catalogHeadings() protocol.DPEDocumentSummary {
	return protocol.DPEDocumentSummary{Title: "Title", FileType: "Type", Server: "Server", LastModified: "Modified", Path: "Path"}
}

// Widths of the catalog's fixed columns.
const typeW, pagesW, timeW = 4, 6, 9

// columns returns the widths of the title, path and server columns of a
// row w cells wide (0: the column is not shown). A Path column appears
// when the Computer reports paths: identical titles can then be told
// apart.
func (l *catalogList) columns(w int) (titleW, pathW, serverW int) {
	serverW = min(18, max(0, w/5))
	if w < 60 {
		serverW = 0
	}
	if l.withPath && w >= 70 {
		pathW = min(40, max(w/3, 12))
		serverW = min(serverW, 12)
		if w < 100 {
			serverW = 0 // the preview names the server; titles need the room
		}
	}
	titleW = w - typeW - pagesW - timeW - 3
	if serverW > 0 {
		titleW -= serverW + 1
	}
	if pathW > 0 {
		titleW -= pathW + 1
	}
	return max(titleW, 8), pathW, serverW
}

// row lays out one catalog row (or the headings) in w cells, the cursor
// column excluded; path is the document's path relative to its server's
// folder, already cut to the Path column (see shortPaths).
func (l *catalogList) row(d protocol.DPEDocumentSummary, w int, path string, data bool) string {
	st := l.c.Styles
	w -= 2
	titleW, pathW, serverW := l.columns(w)
	var badge, pages, when string
	if data {
		badge = common.BadgeFor(st, d.FileType)
		pages = common.CellLeft(common.Itoa(d.PageCount)+"p", pagesW)
		switch {
		case d.Unreadable != "":
			pages = st.Error.Render(common.CellLeft("✗", pagesW))
		case d.Pending: // listed, still being read: no page count yet
			pages = st.Muted.Render(common.CellLeft("…", pagesW))
		}
		when = common.CellLeft(common.RelTime(common.ParseTime(d.LastModified), l.c.Now()), timeW)
		path = common.Cell(path, pathW)
	} else {
		badge = common.Cell(d.FileType, typeW)
		pages = common.CellLeft("Pages", pagesW)
		when = common.CellLeft(d.LastModified, timeW)
		path = common.Cell(path, pathW)
	}
	out := common.Cell(common.OneLine(d.Title), titleW)
	if pathW > 0 {
		if data {
			out += " " + st.Muted.Render(path)
		} else {
			out += " " + path
		}
	}
	out += " " + badge + " " + pages
	if !data { // the headings get one style from the caller
		if serverW > 0 {
			out += " " + common.Cell(d.Server, serverW)
		}
		return out + " " + when
	}
	if serverW > 0 {
		out += " " + st.Muted.Render(common.Cell(common.OneLine(d.Server), serverW))
	}
	return out + " " + st.Muted.Render(when)
}

// fingerprint is what makes a catalog entry "changed".
func fingerprint(d protocol.DPEDocumentSummary) string {
	return d.LastModified + "\x00" + d.Title + "\x00" + common.Itoa(d.PageCount) + "\x00" + d.Summary + "\x00" + d.Path + "\x00" + d.Unreadable + "\x00" + d.Truncated + "\x00" + pendingMark(d.Pending)
}

// typesIn returns the lower-case file types of the loaded rows.
func (l *catalogList) typesIn() map[string]bool {
	seen := map[string]bool{}
	for d := range l.docs.rows() {
		if t := strings.ToLower(common.OneLine(d.FileType)); t != "" {
			seen[t] = true
		}
	}
	return seen
}

// sortedBy reports whether rows are in the order of the extension's sort
// key (ties in any order), to tell a Computer that ignores the sort.
func sortedBy(rows []protocol.DPEDocumentSummary, key string) bool {
	desc := strings.HasPrefix(key, "-")
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		var c int
		switch strings.TrimPrefix(key, "-") {
		case protocol.SortTitle:
			c = strings.Compare(strings.ToLower(a.Title), strings.ToLower(b.Title))
		case protocol.SortType:
			c = strings.Compare(strings.ToLower(a.FileType), strings.ToLower(b.FileType))
		case protocol.SortPages:
			c = a.PageCount - b.PageCount
		case protocol.SortModified:
			ta, tb := common.ParseTime(a.LastModified), common.ParseTime(b.LastModified)
			if ta.IsZero() || tb.IsZero() {
				continue
			}
			c = ta.Compare(tb)
		default:
			return true
		}
		if desc {
			c = -c
		}
		if c > 0 {
			return false
		}
	}
	return true
}

func pendingMark(p bool) string {
	if p {
		return "pending"
	}
	return ""
}
