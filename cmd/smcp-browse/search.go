package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/internal/opt"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// Bounds of the search command.
const (
	searchDefaultLimit = 20
	// searchLineCells is the width of the LINE column around the match.
	searchLineCells = 100
)

// searchLong is the search command's help.
const searchLong = `search asks a computer to search the text of its documents
(client:search_finder) and prints the best --limit matches, one row per page:
score, title, path (relative to the document server's folder), page (from 1)
and the page's best matching line.

QUERY is words that must all be on a page, whole and in any case; "a phrase"
in quotes finds words in that order; pre* finds words that start with pre.
Matches are ranked by the document servers' full-text indexes (BM25; a word
of a document's title or headings weighs more). --literal finds QUERY as a
literal string instead, in every line that holds it, unranked, in path
order (--case-sensitive implies it).

By default search prints a settled answer: while a document server is still
building its index, the answer is partly scanned (those pages score 0 and
come last), so search waits until the indexes are built, at most --timeout,
saying how far they are on stderr ("indexing 3,214/9,580 documents, about
12 s left"); then it prints what it has, says so on stderr ("error 408: ...")
and exits with status 1. --wait=false answers at once: every document is
searched all the same (the pages not indexed yet by scanning), and stderr
says the ranking is partial. A document's rows are together, under its
best match, at most --per-doc of them (stderr says how many more it has);
the rows its other pages would have taken are filled from the search's
next steps, so --limit rows are shown while more match. When there are
more matches, stderr says about how many the indexes hold ("10 of about
1,234 matches") and how to continue (--cursor).

--json prints the SearchFinderRet as received (the matches of every answer it
took, the other fields of the last). Errors and exit statuses are those of ls.`

// newSearchCmd searches a Computer's documents' text (client:search_finder).
func newSearchCmd() *cobra.Command {
	var (
		cf            connFlags
		fileType      string
		limit         int
		jsonOut       bool
		literal       bool
		caseSensitive bool
		cursor        string
		wait          bool
		perDoc        int
	)
	cmd := &cobra.Command{
		Use:   "search QUERY (--demo [--docs DIR] | --server URL --office ID --computer NAME) [flags]",
		Short: "Search the text of a computer's documents, best matches first",
		Long:  searchLong,
		Example: `  smcp-browse search --demo budget
  smcp-browse search --demo '"written approval"' --json
  smcp-browse search --demo --docs ~/notes 'kube*' --type md --limit 50
  smcp-browse search --server http://127.0.0.1:9000 --office team --computer laptop --literal 'TODO('`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(true); err != nil {
				return report(cmd, err, false)
			}
			query := strings.TrimSpace(args[0])
			switch {
			case query == "":
				return report(cmd, usageErrorf("QUERY must not be empty"), false)
			case len(query) > protocol.SearchMaxQuery:
				return report(cmd, usageErrorf("QUERY is longer than %d bytes", protocol.SearchMaxQuery), false)
			case limit < 0 || limit > protocol.SearchMaxMatches:
				return report(cmd, usageErrorf("--limit must be between 0 and %d", protocol.SearchMaxMatches), false)
			case perDoc < 0:
				return report(cmd, usageErrorf("--per-doc must be 0 (all) or more"), false)
			}
			q := protocol.SearchQuery{Query: query, Literal: literal || caseSensitive, CaseSensitive: caseSensitive,
				FileType: fileType, Cursor: cursor, MaxMatches: limit}
			opt.Default(&q.MaxMatches, searchDefaultLimit)
			if q.Literal {
				perDoc = 0 // every line, in path order, as grep
			}
			var rows func([]protocol.SearchMatch) int // the rows the matches fill, when pages are folded
			if perDoc > 0 && !jsonOut {
				rows = func(ms []protocol.SearchMatch) int { shown, _ := groupByDocument(ms, perDoc); return len(shown) }
			}
			raw, ret, unsettled, err := runSearch(cmd.Context(), &cf, q, wait, rows, cmd.ErrOrStderr())
			if err != nil {
				return report(cmd, err, jsonOut)
			}
			if jsonOut {
				if err := writeRawJSON(cmd.OutOrStdout(), raw); err != nil {
					return err
				}
			} else {
				out := cmd.OutOrStdout()
				printMatches(out, cmd.ErrOrStderr(), ret, perDoc, isTerminal(out))
			}
			return reportUnsettled(cmd, unsettled)
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&fileType, "type", "", "only documents of this file type (md, pdf, xlsx, ...)")
	f.IntVar(&limit, "limit", 0, fmt.Sprintf("at most this many matches (default %d, at most %d)", searchDefaultLimit, protocol.SearchMaxMatches))
	f.BoolVar(&jsonOut, "json", false, "print the SearchFinderRet JSON as received")
	f.BoolVar(&literal, "literal", false, "find QUERY as a literal string in every line, unranked")
	f.BoolVar(&caseSensitive, "case-sensitive", false, "a literal search that matches case")
	f.StringVar(&cursor, "cursor", "", "continue a search where a previous one stopped (its next_cursor)")
	f.IntVar(&perDoc, "per-doc", 3, "show at most this many pages of one document, its best (0: all); a ranked search only")
	f.BoolVar(&wait, "wait", true, "wait (at most --timeout) for the search indexes to be built, for a ranked answer; false: answer at once")
	return cmd
}

// runSearch runs q (finderclient.Search) and, when wait is set, asks
// again until no document server is still building its index (at most
// cf.timeout), writing how far the indexes are on progress; unsettled is
// the 408 of an answer that is still partly scanned when waiting ends.
// Without wait it answers at once: unsettled is nil, and progress gets a
// note when the ranking is partial.
func runSearch(ctx context.Context, cf *connFlags, q protocol.SearchQuery, wait bool, rows func([]protocol.SearchMatch) int, progress io.Writer) (raw json.RawMessage, ret *protocol.SearchFinderRet, unsettled error, err error) {
	err = cf.with(ctx, func(s *session) error {
		opts := finderclient.SearchOptions{
			Timeout: cf.timeout, Wait: wait,
			Progress: func(ix protocol.SearchIndexing) {
				fmt.Fprintf(progress, "waiting for the search index: %s\n", indexProgress(&ix))
			},
			Advice: "raise --timeout to wait longer, or --wait=false to answer at once",
		}
		raw, ret, unsettled, err = finderclient.Search(ctx, s.Agent, s.Computer, q, opts)
		// Fill the rows: folded pages leave room for the next steps'.
		for step := 0; err == nil && unsettled == nil && rows != nil && ret.NextCursor != "" && step < maxFillSteps; step++ {
			room := q.MaxMatches - rows(ret.Matches)
			if room <= 0 {
				break
			}
			next := q
			next.Cursor, next.MaxMatches = ret.NextCursor, room
			var more *protocol.SearchFinderRet
			if _, more, unsettled, err = finderclient.Search(ctx, s.Agent, s.Computer, next, opts); err != nil {
				break
			}
			more.Matches = append(ret.Matches, more.Matches...) // the counts are the whole search's
			ret = more
		}
		return err
	})
	if err == nil && !wait && ret.Indexing != nil {
		fmt.Fprintf(progress, "%s: the pages not indexed yet were searched by scanning and come last, unranked\n", indexProgress(ret.Indexing))
	}
	return raw, ret, unsettled, err
}

// maxFillSteps bounds the further steps a search takes to fill the rows
// that its folded pages left empty.
const maxFillSteps = 8

// indexProgress says how far the indexes are: "indexing 3,214/9,580
// documents, about 12 s left".
func indexProgress(ix *protocol.SearchIndexing) string {
	if ix.Total == 0 {
		return "opening the index" // nothing counted yet
	}
	out := "indexing " + humanize.Comma(int64(ix.Indexed)) + "/" + humanize.Comma(int64(ix.Total)) + " documents"
	if ix.RemainingMs > 0 {
		out += ", about " + shorten.Duration(time.Duration(ix.RemainingMs)*time.Millisecond) + " left"
	}
	return out
}

// folded is how many matches of one document groupByDocument left out.
type folded struct {
	path string
	n    int
}

// groupByDocument keeps at most perDoc matches of each document (its
// best; 0 keeps all) and sets each document's rows together, documents in
// the order of their best match, so that one long document does not fill
// the table; it says what it left out, per document.
func groupByDocument(matches []protocol.SearchMatch, perDoc int) ([]protocol.SearchMatch, []folded) {
	type doc struct{ server, ref string }
	var order []doc
	byDoc := map[doc][]protocol.SearchMatch{}
	for _, m := range matches {
		d := doc{m.Server, m.DocRef}
		if _, ok := byDoc[d]; !ok {
			order = append(order, d)
		}
		byDoc[d] = append(byDoc[d], m)
	}
	shown := make([]protocol.SearchMatch, 0, len(matches))
	var left []folded
	for _, d := range order {
		ms := byDoc[d]
		if perDoc > 0 && len(ms) > perDoc {
			left = append(left, folded{path: ms[0].Path, n: len(ms) - perDoc})
			ms = ms[:perDoc]
		}
		shown = append(shown, ms...)
	}
	return shown, left
}

// printMatches writes the matches as an aligned table on out and a summary
// on errOut. Document text is untrusted: it is stripped of control
// sequences and kept on one line; on a terminal the matches are shown in
// reverse video.
func printMatches(out, errOut io.Writer, ret *protocol.SearchFinderRet, perDoc int, terminal bool) {
	shown, left := groupByDocument(ret.Matches, perDoc)
	if len(ret.Matches) == 0 {
		fmt.Fprintf(errOut, "no matches in %d documents\n", ret.TotalDocuments)
	} else {
		rows := [][]string{{"SCORE", "TITLE", "PATH", "PAGE", "LINE"}}
		paths := make([]string, len(shown))
		for i, m := range shown {
			paths[i] = clean(m.Path)
		}
		// On a terminal, cut in the middle, keeping what tells same-named
		// files apart (two example_test.go); into a pipe, whole.
		title := func(t string) string { return clean(t) }
		if terminal {
			paths = shorten.Paths(paths, 48)
			title = func(t string) string { return ansi.Truncate(clean(t), 40, "…") }
		}
		for i, m := range shown {
			score := "-" // found by scanning: unranked
			if m.Score > 0 {
				score = strconv.FormatFloat(m.Score, 'f', 3, 64)
			}
			rows = append(rows, []string{
				score,
				title(m.Title),
				paths[i],
				strconv.Itoa(m.PageIndex + 1),
				matchLine(m, terminal),
			})
		}
		writeTable(out, rows)
		fmt.Fprintf(errOut, "%s in %d documents", matchCount(ret), ret.TotalDocuments)
	}
	if ret.Unreadable > 0 {
		fmt.Fprintf(errOut, " (%d could not be read)", ret.Unreadable)
	}
	if len(ret.Matches) > 0 {
		fmt.Fprintln(errOut)
	}
	for _, f := range left {
		fmt.Fprintf(errOut, "%s: %s not shown (--per-doc 0 shows all)\n", clean(f.path), count(f.n, "more page", "more pages"))
	}
	if ret.Indexing != nil {
		fmt.Fprintf(errOut, "partly from the index: %d of %d documents indexed, the rest scanned\n", ret.Indexing.Indexed, ret.Indexing.Total)
	}
	if ret.IndexNote != "" {
		fmt.Fprintf(errOut, "no index: %s\n", clean(ret.IndexNote))
	}
	if ret.NextCursor != "" {
		fmt.Fprintf(errOut, "more: --cursor %s\n", ret.NextCursor)
	}
}

// matchCount says how many matches there are: all of them when the
// search is complete; otherwise the ones shown, of about how many the
// indexes hold ("10 of about 1,234 matches"), or that more follow.
func matchCount(ret *protocol.SearchFinderRet) string {
	n := len(ret.Matches)
	switch {
	case ret.NextCursor == "":
		return count(n, "match", "matches")
	case ret.IndexHits > n:
		return strconv.Itoa(n) + " of about " + humanize.Comma(int64(ret.IndexHits)) + " matches"
	default:
		return count(n, "match", "matches") + " so far"
	}
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// matchLine is a match's line for the LINE column: one line, cleaned, cut
// to searchLineCells around its first match, every match in reverse video
// on a terminal.
func matchLine(m protocol.SearchMatch, terminal bool) string {
	line := m.Line
	hl := m.Highlights
	if len(hl) == 0 && m.Start < m.End {
		hl = [][2]int{{m.Start, m.End}}
	}
	var b strings.Builder
	at := 0
	from := 0 // cells before the first match
	for i, h := range hl {
		if h[0] < at || h[1] > len(line) || h[0] >= h[1] {
			continue
		}
		b.WriteString(oneCell(line[at:h[0]]))
		if i == 0 {
			from = ansi.StringWidth(b.String())
		}
		match := oneCell(line[h[0]:h[1]])
		if terminal {
			match = "\x1b[7m" + match + "\x1b[27m"
		}
		b.WriteString(match)
		at = h[1]
	}
	b.WriteString(oneCell(line[at:]))
	s := strings.TrimRight(b.String(), " ")
	trimmed := strings.TrimLeft(s, " ")
	from -= len(s) - len(trimmed)
	s = trimmed
	if cut := from - searchLineCells/4; cut > 0 && ansi.StringWidth(s) > searchLineCells {
		s = "…" + ansi.TruncateLeft(s, cut+1, "")
	}
	return ansi.Truncate(s, searchLineCells, "…")
}

// oneCell makes a piece of untrusted text safe for one table cell: no
// control sequences, invisible characters shown, line breaks and tabs as
// spaces (not trimmed: pieces are joined).
func oneCell(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, sanitize.Title(s))
}
