package extract

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// decodeText turns file bytes into clean text: a UTF-8 BOM is dropped, CRLF
// becomes LF, invalid UTF-8 becomes U+FFFD and control characters go.
func decodeText(src []byte) string {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	return clean(strings.ReplaceAll(string(src), "\r\n", "\n"))
}

// paragraph is a run of non-blank lines, the one-based line it starts on,
// and the blank (or white-space-only) lines between it and the previous
// paragraph beyond the first, which a page keeps so that its text is the
// file's lines.
type paragraph struct {
	text  string
	line  int
	extra []string
}

// paragraphs splits text at blank lines.
func paragraphs(s string) []paragraph {
	var out []paragraph
	var cur, blanks []string
	start := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		p := paragraph{text: strings.Join(cur, "\n"), line: start}
		if len(out) > 0 && len(blanks) > 1 {
			p.extra = blanks[:len(blanks)-1]
		}
		out = append(out, p)
		cur, blanks = nil, nil
	}
	for i, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				flush()
			}
			blanks = append(blanks, l)
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

// TitleLike reports whether a plain text's first line reads as a title
// ("GNU GENERAL PUBLIC LICENSE", "Weekly sync, 12 January") rather than a
// sentence or a comment ("Copyright 2009 The Go Authors.", "# Check that
// goroutine scheduling does not affect compiler output."): at most 12
// words, not ending as a sentence does, not starting with a comment or
// list marker.
func TitleLike(line string) bool {
	line = strings.TrimSpace(line)
	if line == "" || len(strings.Fields(line)) > 12 {
		return false
	}
	if strings.ContainsRune("#/;%*>$-=!+", rune(line[0])) {
		return false
	}
	return !strings.ContainsRune(".!?:;,", rune(line[len(line)-1]))
}

// parseText makes pages of whole paragraphs within the page budget. The
// first line is the title when it is short (at most 80 characters).
func parseText(p *parser, src []byte) (*Document, error) {
	s := decodeText(src)
	doc := &Document{}
	paras := paragraphs(s)
	if len(paras) > 0 {
		first, _, _ := strings.Cut(paras[0].text, "\n")
		if first = strings.TrimSpace(first); utf8.RuneCountInString(first) <= 80 {
			doc.Title, doc.TitleIsText = first, !TitleLike(first)
		}
		for i, para := range paras {
			body := para.text
			if i == 0 && doc.Title != "" {
				_, body, _ = strings.Cut(body, "\n")
			}
			if strings.TrimSpace(body) != "" {
				doc.Summary = firstSentences(body, SummaryChars)
				break
			}
		}
	}
	var cur *Page
	used, pageStart, lastLine := 0, 1, 1
	for _, para := range paras {
		line := para.line
		for i, part := range chunkText(para.text, p.opts.PageChars) {
			n := strings.Count(part, "\n") + 1
			if cur == nil || (len(cur.Elements) > 0 && (used+len(part) > p.opts.PageChars || len(cur.Elements) >= p.opts.MaxElements)) {
				if cur != nil {
					cur.Title = linesTitle(pageStart, lastLine)
				}
				if len(doc.Pages) >= p.opts.MaxPages {
					doc.Truncated = true
					return doc, nil
				}
				doc.Pages = append(doc.Pages, Page{})
				cur = &doc.Pages[len(doc.Pages)-1]
				used, pageStart = 0, line
			}
			text := part
			if i == 0 && len(para.extra) > 0 && len(cur.Elements) > 0 {
				// Blank lines beyond the one that separates elements.
				text = strings.Join(para.extra, "\n") + "\n" + part
			}
			cur.Elements = append(cur.Elements, Element{Category: dpe.Text, Content: map[string]any{"text": text}})
			used += len(part)
			lastLine = line + n - 1
			line += n
		}
	}
	if cur != nil {
		cur.Title = linesTitle(pageStart, lastLine)
	}
	return doc, nil
}

func linesTitle(from, to int) string {
	if to <= from {
		return "Line " + strconv.Itoa(from)
	}
	return "Lines " + strconv.Itoa(from) + "–" + strconv.Itoa(to)
}

func peekText(p *parser, prefix []byte) Meta {
	doc, err := parseText(p, prefix)
	if err != nil {
		return Meta{}
	}
	return Meta{Title: doc.Title, Summary: doc.Summary}
}

// parseCode makes pages of at most CodeLines lines (and the page budget of
// bytes), each one code element in the file's language. The title is the
// file name; the summary is the file's leading comment when it has one.
func parseCode(p *parser, src []byte, lang string) (*Document, error) {
	s := decodeText(src)
	doc := &Document{Title: baseName(p.name), Summary: codeSummary(s, lang)}
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for start := 0; start < len(lines); {
		if err := p.cancelled(); err != nil {
			return nil, err
		}
		if len(doc.Pages) >= p.opts.MaxPages {
			doc.Truncated = true
			break
		}
		end, size := start, 0
		for end < len(lines) && end-start < p.opts.CodeLines && (end == start || size+len(lines[end]) <= 2*p.opts.PageChars) {
			size += len(lines[end])
			end++
		}
		// The page's code is its lines as they are, line breaks and
		// blank lines included, so that the pages put together are the
		// file. Only a single line longer than a page is cut, into parts.
		code := strings.Join(lines[start:end], "")
		parts := []string{code}
		if len(code) > 2*p.opts.PageChars {
			line, nl := strings.CutSuffix(code, "\n")
			parts = chunkText(line, 2*p.opts.PageChars)
			if nl {
				parts[len(parts)-1] += "\n"
			}
		}
		for i, part := range parts {
			title := linesTitle(start+1, end)
			if len(parts) > 1 {
				title += fmt.Sprintf(" (part %d of %d)", i+1, len(parts))
			}
			doc.Pages = append(doc.Pages, Page{
				Title:    title,
				Elements: []Element{{Category: dpe.Code, Content: map[string]any{"language": lang, "code": part}}},
			})
		}
		start = end
	}
	return doc, nil
}

func peekCode(p *parser, prefix []byte, lang string) Meta {
	return Meta{Title: baseName(p.name), Summary: codeSummary(decodeText(prefix), lang)}
}

func baseName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// codeSummary returns the first sentences of a file's leading comment
// (after a shebang and blank lines), or "<language> source file".
func codeSummary(s, lang string) string {
	var parts []string
	inBlock := false
	for i, line := range strings.Split(s, "\n") {
		if i > 60 {
			break
		}
		t := strings.TrimSpace(line)
		if i == 0 && strings.HasPrefix(t, "#!") {
			continue
		}
		switch {
		case inBlock:
			if j := strings.Index(t, "*/"); j >= 0 {
				t, inBlock = t[:j], false
			}
			if j := strings.Index(t, `"""`); j >= 0 {
				t, inBlock = t[:j], false
			}
			parts = append(parts, strings.TrimSpace(strings.TrimPrefix(t, "*")))
			if !inBlock {
				goto done
			}
		case t == "" && len(parts) == 0:
			continue
		case strings.HasPrefix(t, "//"):
			parts = append(parts, strings.TrimSpace(strings.TrimLeft(t, "/!")))
		case strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#include") && !strings.HasPrefix(t, "#define") && !strings.HasPrefix(t, "#["):
			parts = append(parts, strings.TrimSpace(strings.TrimLeft(t, "#")))
		case strings.HasPrefix(t, "--") && (lang == "sql" || lang == "lua" || lang == "haskell"):
			parts = append(parts, strings.TrimSpace(strings.TrimLeft(t, "-")))
		case strings.HasPrefix(t, "/*"):
			t = strings.TrimLeft(strings.TrimPrefix(t, "/*"), "*!")
			if j := strings.Index(t, "*/"); j >= 0 {
				parts = append(parts, strings.TrimSpace(t[:j]))
				goto done
			}
			parts = append(parts, strings.TrimSpace(t))
			inBlock = true
		case strings.HasPrefix(t, `"""`) && len(parts) == 0:
			t = strings.TrimPrefix(t, `"""`)
			if j := strings.Index(t, `"""`); j >= 0 {
				parts = append(parts, t[:j])
				goto done
			}
			parts = append(parts, t)
			inBlock = true
		default:
			goto done
		}
	}
done:
	if sum := firstSentences(strings.Join(parts, " "), SummaryChars); sum != "" {
		return sum
	}
	if lang == "" {
		return "Source file"
	}
	return lang + " source file"
}

// readRecords reads delimited records with the bounds of p: at most
// MaxRows+1 records, MaxColumns columns and MaxCellChars per cell. It
// reports whether the row bound cut the table.
func readRecords(p *parser, src []byte, comma rune, tolerateTail bool) ([][]string, bool, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	var out [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, false, nil
		}
		if err != nil {
			if tolerateTail && len(out) > 0 {
				return out, false, nil
			}
			var pe *csv.ParseError
			if errors.As(err, &pe) && len(out) > 0 {
				// A broken record: keep what came before it.
				return out, true, nil
			}
			return nil, false, fmt.Errorf("read records: %w", err)
		}
		if len(out) > p.opts.MaxRows {
			if !tolerateTail {
				p.noteCut("kept the first %s of %s rows", thousands(len(out)-1), thousands(len(out)+countRecords(r)))
			}
			return out, true, nil
		}
		if len(out)%1024 == 0 {
			if err := p.cancelled(); err != nil {
				return nil, false, err
			}
		}
		if len(rec) > p.opts.MaxColumns {
			rec = rec[:p.opts.MaxColumns]
		}
		for i, c := range rec {
			rec[i] = truncate(clean(strings.ReplaceAll(c, "\r\n", "\n")), p.opts.MaxCellChars)
		}
		out = append(out, rec)
	}
}

// parseDelimited reads a CSV or TSV file: the first record is the header;
// the rows are chunked into pages of at most TableRowsPerPage rows, one
// table element per page.
func parseDelimited(p *parser, src []byte, comma rune) (*Document, error) {
	recs, cut, err := readRecords(p, src, comma, false)
	if err != nil {
		return nil, err
	}
	doc := &Document{Truncated: cut}
	if len(recs) == 0 {
		return doc, nil
	}
	headers, rows := recs[0], recs[1:]
	doc.Summary = tableSummary(comma, headers)
	doc.Keywords = splitKeywords(strings.Join(headers, ","))
	if len(doc.Keywords) > 8 {
		doc.Keywords = doc.Keywords[:8]
	}
	for _, el := range tableElements(headers, rows, p.opts.TableRowsPerPage, 1, 0) {
		if len(doc.Pages) >= p.opts.MaxPages {
			doc.Truncated = true
			break
		}
		first, _ := el.Metadata["first_row"].(int)
		if first == 0 {
			first = 1
		}
		n := len(el.Content["rows"].([][]string))
		title := "Rows " + strconv.Itoa(first) + "–" + strconv.Itoa(first+n-1)
		if n == 0 {
			title = "Header"
		}
		doc.Pages = append(doc.Pages, Page{Title: title, Elements: []Element{el}})
	}
	if cut {
		last := &doc.Pages[len(doc.Pages)-1].Elements[0]
		last.Metadata["truncated"] = true
	}
	return doc, nil
}

func tableSummary(comma rune, headers []string) string {
	kind := "CSV"
	if comma == '\t' {
		kind = "TSV"
	}
	return truncate(fmt.Sprintf("%s table with %d columns: %s", kind, len(headers), collapse(strings.Join(headers, ", "))), SummaryChars)
}

func peekDelimited(p *parser, prefix []byte, comma rune) Meta {
	recs, _, err := readRecords(p, prefix, comma, true)
	if err != nil || len(recs) == 0 {
		return Meta{}
	}
	return Meta{Summary: tableSummary(comma, recs[0])}
}

// countRecords counts the records r has left (the current one read
// already); a broken record ends the count.
func countRecords(r *csv.Reader) int {
	n := 0
	for {
		if _, err := r.Read(); err != nil {
			return n
		}
		n++
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
