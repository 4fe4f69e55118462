package extract

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// SummaryChars bounds document summaries (the specification's best
// practice 4: keep summaries short).
const SummaryChars = 160

// elementSummaryChars bounds element summaries.
const elementSummaryChars = 100

// clean makes untrusted document text safe to carry: terminal escape
// sequences and control characters other than tab and newline are removed,
// line breaks are normalized and invalid UTF-8 becomes U+FFFD.
func clean(s string) string { return sanitize.Text(s) }

// collapse folds all runs of white space into single spaces.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// truncate shortens s to at most n runes, ending with an ellipsis when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	cut := string(runes[:n-1])
	// Prefer a word boundary in the last fifth.
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*4/5 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// firstSentences returns the leading sentences of text that fit in n
// runes (at least one sentence, truncated when it alone is longer).
func firstSentences(text string, n int) string {
	text = collapse(text)
	if text == "" {
		return ""
	}
	var out string
	rest := text
	for rest != "" {
		end := sentenceEnd(rest)
		s := rest[:end]
		rest = strings.TrimLeft(rest[end:], " ")
		cand := s
		if out != "" {
			sep := " "
			if last, _ := utf8.DecodeLastRuneInString(out); last == '。' || last == '！' || last == '？' {
				sep = ""
			}
			cand = out + sep + s
		}
		if utf8.RuneCountInString(cand) > n {
			if out == "" {
				return truncate(s, n)
			}
			break
		}
		out = cand
	}
	return out
}

// sentenceEnd returns the byte length of the first sentence of s: up to and
// including a terminator (. ! ? or the CJK ones) followed by a space or the
// end; the whole of s when there is none.
func sentenceEnd(s string) int {
	for i, r := range s {
		switch r {
		case '。', '！', '？':
			return i + utf8.RuneLen(r)
		case '.', '!', '?':
			j := i + 1
			if j == len(s) || s[j] == ' ' {
				return j
			}
		}
	}
	return len(s)
}

// elementSummary describes an element in a short line.
func elementSummary(e Element) string {
	c := e.Content
	str := func(k string) string { s, _ := c[k].(string); return s }
	switch e.Category {
	case dpe.Heading:
		return truncate(collapse(str("text")), elementSummaryChars)
	case dpe.Text, dpe.Header, dpe.Footer, dpe.Annotation:
		return firstSentences(str("text"), elementSummaryChars)
	case dpe.List:
		items, _ := c["items"].([]string)
		if len(items) == 0 {
			return "Empty list"
		}
		return truncate(fmt.Sprintf("List of %d items: %s", len(items), collapse(items[0])), elementSummaryChars)
	case dpe.Code:
		code := str("code")
		lines := strings.Count(strings.TrimSuffix(code, "\n"), "\n") + 1
		lang := str("language")
		if lang == "" {
			return fmt.Sprintf("Code block, %d lines", lines)
		}
		return fmt.Sprintf("%s code, %d lines", lang, lines)
	case dpe.Table, dpe.PivotTable:
		headers, _ := c["headers"].([]string)
		rows, _ := c["rows"].([][]string)
		cols := len(headers)
		for _, r := range rows {
			cols = max(cols, len(r))
		}
		s := fmt.Sprintf("Table, %d rows × %d columns", len(rows), cols)
		if len(headers) > 0 {
			s += ": " + strings.Join(headers, ", ")
		}
		return truncate(collapse(s), elementSummaryChars)
	case dpe.Image:
		if alt := str("alt"); alt != "" {
			return truncate("Image: "+collapse(alt), elementSummaryChars)
		}
		return "Image"
	case dpe.Link:
		t := str("text")
		if t == "" {
			t = str("url")
		}
		return truncate("Link: "+collapse(t), elementSummaryChars)
	case dpe.Formula:
		if cell := str("cell"); cell != "" {
			return truncate(cell+": "+str("expression"), elementSummaryChars)
		}
		return truncate(str("expression"), elementSummaryChars)
	case dpe.Chart:
		return truncate(collapse("Chart: "+str("title")), elementSummaryChars)
	case dpe.Separator:
		return "Separator"
	}
	return string(e.Category)
}

// stopwords are left out of keyword extraction.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out
	day get has him his how man new now old see two way who boy did its let put say she too use
	that with have this will your from they know want been good much some time very when come here
	just like long make many more only over such take than them well were what into also each which
	their there these those then would could should about after other where while being does done
	same both most must shall page table row rows column columns sheet none null true false nil
	text file data value values item items list note notes`) {
		m[w] = true
	}
	return m
}()

// topTerms picks up to n keywords from a document's text: the most
// frequent words of three or more letters (or two or more CJK characters)
// that are not stopwords and occur at least twice; ties break
// alphabetically, so the result is deterministic.
func topTerms(doc *Document, n int) []string {
	freq := map[string]int{}
	budget := 200000 // runes scanned, to bound the work on huge documents
	add := func(s string) {
		if budget <= 0 {
			return
		}
		budget -= len(s)
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
		}) {
			w = strings.ToLower(w)
			rc := utf8.RuneCountInString(w)
			first, _ := utf8.DecodeRuneInString(w)
			switch {
			case unicode.Is(unicode.Han, first):
				if rc < 2 || rc > 8 {
					continue
				}
			case rc < 3 || rc > 30 || unicode.IsDigit(first):
				continue
			}
			if stopwords[w] {
				continue
			}
			freq[w]++
		}
	}
	for _, p := range doc.Pages {
		for _, e := range p.Elements {
			switch e.Category {
			case dpe.Heading, dpe.Text, dpe.List:
				if s, ok := e.Content["text"].(string); ok {
					add(s)
				}
				if items, ok := e.Content["items"].([]string); ok {
					for _, it := range items {
						add(it)
					}
				}
			case dpe.Table:
				if h, ok := e.Content["headers"].([]string); ok {
					add(strings.Join(h, " "))
				}
			}
		}
	}
	type kv struct {
		w string
		n int
	}
	var all []kv
	for w, c := range freq {
		if c >= 2 {
			all = append(all, kv{w, c})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].w < all[j].w
	})
	out := make([]string, 0, n)
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, all[i].w)
	}
	return out
}

// splitKeywords splits a keyword field ("a, b; c") into clean keywords.
func splitKeywords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '，' || r == '；' }) {
		k = strings.TrimSpace(strings.Trim(strings.TrimSpace(k), `"'[]`))
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, clean(k))
		}
	}
	return out
}

// cellName returns the A1 name of a zero-based column and one-based row.
func cellName(col, row int) string {
	return columnName(col) + strconv.Itoa(row)
}

// columnName returns the spreadsheet column letters of a zero-based index.
func columnName(col int) string {
	var b []byte
	for col >= 0 {
		b = append([]byte{byte('A' + col%26)}, b...)
		col = col/26 - 1
	}
	return string(b)
}
