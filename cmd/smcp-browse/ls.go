package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/smcp-browse/smcp-browse/agent"
	"github.com/smcp-browse/smcp-browse/agent/finderclient"
	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/internal/shorten"
	"github.com/smcp-browse/smcp-browse/protocol"
)

// newLsCmd lists a Computer's Finder catalog (client:get_finder).
func newLsCmd() *cobra.Command {
	var (
		cf       connFlags
		keywords []string
		fileType string
		offset   int
		limit    int
		jsonOut  bool
	)
	cmd := &cobra.Command{
		Use:   "ls (--demo [--docs DIR] | --server URL --office ID --computer NAME) [flags]",
		Short: "List a computer's documents (its Finder catalog)",
		Long: `ls asks a computer for its Finder catalog (client:get_finder) and prints one
row per document: title, path (relative to the document server's folder, so
that files of the same name can be told apart), file type, pages, the MCP
server that has it, when it was modified, and its dpe:// URI. --keywords and
--type filter, --offset and --limit page (the computer's default page size is
20, at most 100).

ls prints a settled catalog: while the computer is still listing or reading
documents (the answer's "pending" and "listing"), ls asks again whenever the
computer sends notify:update_finder, and prints once nothing is pending. If
the catalog is not settled within --timeout, ls prints what it has, says so
on stderr ("error 408: ...") and exits with status 1.

A document cut short by a bound (rows, pages, size) has ✂ after its page
count and a note saying how much is served. Under the table, on stderr, each
document server says what files it left out of its catalog and why
("dpe://HOST: 756 files not served: 713 binary, ...").

--json prints the GetFinderRet as received instead, with "skipped" added
(what each document server left out, by host) when there is any. On an error the
code and message go to stderr ("error 4201: ..."), with --json the error
payload also goes to stdout, and the exit status is 1; a usage mistake exits
with status 2.`,
		Example: `  smcp-browse ls --demo
  smcp-browse ls --demo --keywords report,budget --type md --json
  smcp-browse ls --server http://127.0.0.1:9000 --office team --computer laptop --limit 50`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cf.check(true); err != nil {
				return report(cmd, err, false)
			}
			if offset < 0 || limit < 0 {
				return report(cmd, usageErrorf("--offset and --limit must not be negative"), false)
			}
			q := agent.FinderQuery{Keywords: cleanList(keywords), FileType: fileType, Offset: offset, Limit: limit}
			if jsonOut {
				raw, unsettled, err := runLsJSON(cmd.Context(), &cf, q)
				if err != nil {
					return report(cmd, err, true)
				}
				if err := writeRawJSON(cmd.OutOrStdout(), raw); err != nil {
					return err
				}
				return reportUnsettled(cmd, unsettled)
			}
			ans, unsettled, err := runLs(cmd.Context(), &cf, q)
			if err != nil {
				return report(cmd, err, false)
			}
			printCatalog(cmd.OutOrStdout(), cmd.ErrOrStderr(), ans, offset, time.Local, isTerminal(cmd.OutOrStdout()))
			return reportUnsettled(cmd, unsettled)
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cf.register(cmd.Flags())
	f := cmd.Flags()
	f.StringSliceVar(&keywords, "keywords", nil, "only documents matching these keywords (comma-separated)")
	f.StringVar(&fileType, "type", "", "only documents of this file type (md, pdf, xlsx, ...)")
	f.IntVar(&offset, "offset", 0, "skip this many documents")
	f.IntVar(&limit, "limit", 0, "at most this many documents (0: the computer's default)")
	f.BoolVar(&jsonOut, "json", false, "print the GetFinderRet JSON as received")
	return cmd
}

// lsAnswer is what ls prints: the catalog page and what the document
// servers of its documents left out of their catalogs, by host.
type lsAnswer struct {
	ret     *protocol.GetFinderRet
	skipped map[string]*protocol.SkippedFiles
}

// runLs opens a session and asks for one page of the catalog until it is
// settled (see finderclient.Settle); unsettled says why the last answer
// is not. It then asks each document server of the page what it skipped.
func runLs(ctx context.Context, cf *connFlags, q agent.FinderQuery) (ans lsAnswer, unsettled error, err error) {
	err = cf.withFinderUpdates(ctx, func(s *session, o finderclient.SettleOptions) error {
		var askErr error
		ans.ret, unsettled, askErr = finderclient.Catalog(ctx, s.Agent, s.Computer, q, o)
		if askErr == nil {
			ans.skipped = skippedOf(ctx, s, cf.timeout, ans.ret.Documents)
		}
		return askErr
	})
	return ans, unsettled, err
}

// skippedOf asks the document server of each host of docs what files it
// left out of its catalog (the "skipped" of its Level 0 read, one entry
// read). A server that does not say, or does not answer within timeout
// (at most skippedBound for all of them: the catalog is printed
// whatever they say), is left out of the answer.
func skippedOf(ctx context.Context, s *session, timeout time.Duration, docs []protocol.DPEDocumentSummary) map[string]*protocol.SkippedFiles {
	ctx, cancel := context.WithTimeout(ctx, min(timeout, skippedBound))
	defer cancel()
	out := map[string]*protocol.SkippedFiles{}
	seen := map[string]bool{}
	for _, d := range docs {
		u, err := dpe.Parse(d.URI)
		if err != nil || seen[u.Host] {
			continue
		}
		seen[u.Host] = true
		one := 1
		ret, err := s.Agent.ReadResource(ctx, s.Computer, dpe.Catalog(u.Host).WithQuery(dpe.Query{Limit: &one}).String())
		if err != nil || len(ret.Contents) != 1 {
			s.log.Debug("no skipped-files answer", "host", u.Host, "err", err)
			continue
		}
		var cat protocol.DPECatalog
		if json.Unmarshal([]byte(ret.Contents[0].Text), &cat) == nil && cat.Skipped != nil {
			out[u.Host] = cat.Skipped
		}
	}
	return out
}

// runLsJSON is runLs returning the GetFinderRet as the Computer sent it.
func runLsJSON(ctx context.Context, cf *connFlags, q agent.FinderQuery) (raw json.RawMessage, unsettled error, err error) {
	err = cf.withFinderUpdates(ctx, func(s *session, o finderclient.SettleOptions) error {
		var askErr error
		raw, unsettled, askErr = finderclient.CatalogJSON(ctx, s.Agent, s.Computer, q, o)
		if askErr == nil {
			raw = withSkipped(raw, func(docs []protocol.DPEDocumentSummary) map[string]*protocol.SkippedFiles {
				return skippedOf(ctx, s, cf.timeout, docs)
			})
		}
		return askErr
	})
	return raw, unsettled, err
}

// skippedBound bounds the reads of skippedOf.
const skippedBound = 5 * time.Second

// withSkipped adds to a GetFinderRet as received the "skipped" key: what
// the document servers of its documents left out of their catalogs, by
// host (see skippedOf). An answer that is not a JSON object, or with
// nothing skipped, is returned as it came.
func withSkipped(raw json.RawMessage, ask func([]protocol.DPEDocumentSummary) map[string]*protocol.SkippedFiles) json.RawMessage {
	var obj map[string]json.RawMessage
	var ret protocol.GetFinderRet
	if json.Unmarshal(raw, &obj) != nil || json.Unmarshal(raw, &ret) != nil {
		return raw
	}
	skipped := ask(ret.Documents)
	if len(skipped) == 0 {
		return raw
	}
	b, err := json.Marshal(skipped)
	if err != nil {
		return raw
	}
	obj["skipped"] = b
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

// withFinderUpdates is cf.with with the options of a settled catalog:
// --timeout, and a wake-up on each notify:update_finder.
func (cf *connFlags) withFinderUpdates(ctx context.Context, fn func(*session, finderclient.SettleOptions) error) error {
	updates := finderclient.NewUpdates()
	s, err := cf.open(ctx, agent.Handlers{UpdateFinder: updates.Notify})
	if err != nil {
		return err
	}
	defer s.close()
	return fn(s, finderclient.SettleOptions{Timeout: cf.timeout, Updates: updates.C(), Advice: "raise --timeout to wait longer"})
}

// reportUnsettled reports an answer printed before it settled: on stderr,
// exit status 1.
func reportUnsettled(cmd *cobra.Command, unsettled error) error {
	if unsettled == nil {
		return nil
	}
	pe, _ := asProtocolError(unsettled)
	fmt.Fprintf(cmd.ErrOrStderr(), "error %d: %s\n", pe.Code, pe.Message)
	return exitError{exitFailure}
}

// cleanList drops empty and duplicate entries and surrounding spaces.
func cleanList(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// printCatalog writes the documents as an aligned table on out, a note
// per unreadable document under it ("✗ PATH: why"; its PAGES cell is
// "✗"), and the "N–M of TOTAL" line on errOut. Document text is
// untrusted: it is stripped of control sequences and kept on one line.
// On a terminal (fit) long titles and paths are cut to keep the table
// readable; into a pipe or a file they are written whole.
func printCatalog(out, errOut io.Writer, ans lsAnswer, offset int, loc *time.Location, fit bool) {
	ret := ans.ret
	defer printSkipped(errOut, ans.skipped)
	if len(ret.Documents) == 0 {
		if ret.TotalCount > 0 {
			fmt.Fprintf(errOut, "no documents at offset %d (%d in all)\n", offset, ret.TotalCount)
		} else {
			fmt.Fprintln(errOut, "no documents")
		}
		return
	}
	rows := [][]string{{"TITLE", "PATH", "TYPE", "PAGES", "SERVER", "MODIFIED", "URI"}}
	var notes []string
	paths := make([]string, len(ret.Documents))
	for i, d := range ret.Documents {
		paths[i] = clean(d.Path)
	}
	// Cut in the middle: the top folder and the file name stay, and the
	// folders that tell same-named files apart.
	title := func(t string) string { return clean(t) }
	if fit {
		paths = shorten.Paths(paths, 48)
		title = func(t string) string { return ansi.Truncate(clean(t), 48, "…") }
	}
	for i, d := range ret.Documents {
		path := paths[i]
		pages := strconv.Itoa(d.PageCount)
		switch {
		case d.Unreadable != "":
			pages = "✗"
			name := path
			if d.Path == "" {
				name = clean(d.Title)
			}
			notes = append(notes, "✗ "+name+": "+clean(d.Unreadable))
		case d.Pending:
			pages = "…" // listed, still being read
		case d.Truncated != "":
			pages += "✂" // cut short: the note says how much is served
			name := path
			if d.Path == "" {
				name = clean(d.Title)
			}
			notes = append(notes, "✂ "+name+": cut short, "+clean(d.Truncated))
		}
		rows = append(rows, []string{
			title(d.Title),
			path,
			clean(d.FileType),
			pages,
			clean(d.Server),
			modified(d.LastModified, loc),
			clean(d.URI),
		})
	}
	writeTable(out, rows)
	if len(notes) > 0 {
		fmt.Fprintf(out, "\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintf(errOut, "%d–%d of %d\n", offset+1, offset+len(ret.Documents), ret.TotalCount)
}

// printSkipped writes, one line per document server, what it left out
// of its catalog ("dpe://host: 756 files not served: 713 binary, ...").
func printSkipped(errOut io.Writer, skipped map[string]*protocol.SkippedFiles) {
	for _, host := range slices.Sorted(maps.Keys(skipped)) {
		fmt.Fprintf(errOut, "dpe://%s: %s\n", clean(host), clean(dpe.SkippedNote(*skipped[host])))
	}
}

// clean makes untrusted text safe and single-line for a table cell, with
// invisible characters (bidi controls, zero-width) shown.
func clean(s string) string {
	s = dpe.OneLine(sanitize.Title(s))
	if s == "" {
		return "-"
	}
	return s
}

// modified shows an RFC 3339 time as local "2006-01-02 15:04"; anything
// else is shown as it came.
func modified(s string, loc *time.Location) string {
	if s == "" {
		return "-"
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return clean(s)
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// writeTable aligns rows in columns two spaces apart. Widths are terminal
// cells (CJK titles take two per character), which text/tabwriter, counting
// runes, gets wrong; the last column is not padded.
func writeTable(w io.Writer, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}
