// Package extract turns real files (Markdown, HTML, plain text, source code,
// CSV/TSV, XLSX, PDF, DOCX, PPTX) into the Document-Page-Element model the
// document server serves. Each format has a full parser (Parse) and a cheap,
// bounded peek (Peek) that finds the title and summary without parsing the
// whole file, so that listing a large folder stays fast.
//
// Element IDs are assigned here: {prefix}-{page}-{ordinal}, where prefix
// names the category (h, txt, lst, code, tbl, chart, img, lnk, fx, sep, ...),
// page is the page index and ordinal counts elements of that category on the
// page from 1. They depend only on the file's content, so they are stable
// across restarts for an unchanged file and unique in a document.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime/debug"
	"strconv"
	"strings"

	gmparser "github.com/yuin/goldmark/parser"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/opt"
)

// Kind is a supported file format.
type Kind int

// The supported formats. KindUnknown files are not served.
const (
	KindUnknown Kind = iota
	KindMarkdown
	KindText
	KindCode
	KindCSV
	KindTSV
	KindXLSX
	KindPDF
	KindDOCX
	KindPPTX
	KindHTML
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case KindMarkdown:
		return "markdown"
	case KindText:
		return "text"
	case KindCode:
		return "code"
	case KindCSV:
		return "csv"
	case KindTSV:
		return "tsv"
	case KindXLSX:
		return "xlsx"
	case KindPDF:
		return "pdf"
	case KindDOCX:
		return "docx"
	case KindPPTX:
		return "pptx"
	case KindHTML:
		return "html"
	}
	return "unknown"
}

// codeLanguages maps source-file extensions to the language name written in
// code elements.
var codeLanguages = map[string]string{
	"go": "go", "py": "python", "js": "javascript", "mjs": "javascript", "cjs": "javascript",
	"ts": "typescript", "tsx": "tsx", "jsx": "jsx", "java": "java", "kt": "kotlin",
	"c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cs": "csharp",
	"rs": "rust", "rb": "ruby", "php": "php", "swift": "swift", "scala": "scala",
	"sh": "bash", "bash": "bash", "zsh": "zsh", "ps1": "powershell", "lua": "lua",
	"sql": "sql", "r": "r", "pl": "perl", "dart": "dart", "ex": "elixir", "exs": "elixir",
	"hs": "haskell", "ml": "ocaml", "clj": "clojure", "vue": "vue", "svelte": "svelte",
	"html": "html", "htm": "html", "css": "css", "scss": "scss", "xml": "xml",
	"json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "ini": "ini",
	"proto": "protobuf", "graphql": "graphql", "tf": "hcl", "mk": "makefile",
}

// KindOf returns the kind of a file from its name, and for source code the
// language of its code elements.
func KindOf(name string) (Kind, string) {
	base := strings.ToLower(path.Base(name))
	switch base {
	case "makefile", "gnumakefile":
		return KindCode, "makefile"
	case "dockerfile":
		return KindCode, "dockerfile"
	case "readme", "notice", "authors", "contributors", "changelog", "changes", "news",
		"install", "todo", "patents", "thanks", "hacking", "bugs", "copyright":
		return KindText, "" // the plain-text files every project ships without an extension
	}
	if licenseName(base) && !strings.Contains(base, ".") {
		return KindText, "" // LICENSE, COPYING, LICENSE-MIT, COPYING3
	}
	ext := strings.TrimPrefix(path.Ext(base), ".")
	switch ext {
	case "md", "markdown", "mdown", "mkd":
		return KindMarkdown, ""
	case "txt", "text", "log", "rst", "adoc":
		return KindText, ""
	case "csv":
		return KindCSV, ""
	case "tsv", "tab":
		return KindTSV, ""
	case "xlsx", "xlsm":
		return KindXLSX, ""
	case "pdf":
		return KindPDF, ""
	case "docx":
		return KindDOCX, ""
	case "pptx":
		return KindPPTX, ""
	case "html", "htm", "xhtml":
		return KindHTML, ""
	}
	if lang, ok := codeLanguages[ext]; ok {
		return KindCode, lang
	}
	return KindUnknown, ""
}

// FileType is the file_type of a document: its extension in lower case
// without the dot ("md", "xlsx"). A served file without one (or with only
// a version for one, Apache-2.0) is plain text or a known build file:
// "makefile" and "dockerfile" for those, "license" for LICENSE, LICENCE
// and COPYING files, and "text" for every other (README, AUTHORS, a
// fuzz-corpus entry named by its hash), so that a folder's extension-less
// files make one type, not one per name.
func FileType(name string) string {
	base := strings.ToLower(path.Base(name))
	if ext := strings.TrimPrefix(path.Ext(base), "."); ext != "" && "."+ext != base && strings.Trim(ext, "0123456789") != "" {
		return ext
	}
	if k, lang := KindOf(base); k == KindCode && lang != "" {
		return lang
	}
	if licenseName(base) {
		return "license"
	}
	return "text"
}

// licenseName reports whether a lower-case base name starts like a
// licence file's (license, licence, copying).
func licenseName(base string) bool {
	for _, prefix := range []string{"license", "licence", "copying"} {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	return false
}

// Options bounds what a parser produces. The zero value of a field means
// its default.
type Options struct {
	TableRowsPerPage int   // rows of one table element (CSV/TSV page, XLSX chunk); default 200
	MaxRows          int   // rows read from one table or sheet; default 100000
	MaxColumns       int   // columns kept per row; default 256
	MaxCellChars     int   // characters kept per table cell; default 2000
	PageChars        int   // text budget of a text/Markdown page before it is split; default 8000
	CodeLines        int   // lines of one code page; default 200
	MaxPages         int   // pages of one document; default 5000
	MaxElements      int   // elements of one page; default 2000
	MaxZipEntry      int64 // decompressed bytes read from one entry of an OOXML package; default 64 MiB
	MaxUnpacked      int64 // decompressed bytes read from all entries of one OOXML package; default 256 MiB
	MaxOutputBytes   int64 // estimated bytes of the elements of one document (text plus a per-element cost); default 64 MiB
	PeekBytes        int   // bytes a text peek reads; default 16 KiB
}

func (o Options) withDefaults() Options {
	opt.Default(&o.TableRowsPerPage, 200)
	opt.Default(&o.MaxRows, 100000)
	opt.Default(&o.MaxColumns, 256)
	opt.Default(&o.MaxCellChars, 2000)
	opt.Default(&o.PageChars, 8000)
	opt.Default(&o.CodeLines, 200)
	opt.Default(&o.MaxPages, 5000)
	opt.Default(&o.MaxElements, 2000)
	opt.Default(&o.PeekBytes, 16<<10)
	opt.Default(&o.MaxZipEntry, 64<<20)
	opt.Default(&o.MaxUnpacked, 256<<20)
	opt.Default(&o.MaxOutputBytes, 64<<20)
	return o
}

// Element is one content unit of a page.
type Element struct {
	ID       string
	Category dpe.Category
	Summary  string
	// Content is the element's content at Level 2, with the keys documented
	// in dpe/category.go.
	Content map[string]any
	// Detail holds extra content keys added at Level 3 (total_rows and
	// total_columns of a table).
	Detail map[string]any
	// Metadata is returned at Level 3 (source_range, has_formulas, ...).
	Metadata map[string]any
}

// Page is one logical page of a document.
type Page struct {
	Title    string
	Elements []Element
}

// Document is a parsed file.
type Document struct {
	Title string
	// TitleIsText says the title is the text's first line and reads as
	// text, not as a title (see TitleLike): a search weighs it as text.
	TitleIsText bool
	Summary     string
	Keywords    []string
	Pages       []Page
	// Truncated reports that a bound (rows, pages, elements) cut the
	// document short; Cut says so in words, with how much was kept
	// ("kept the first 100,000 of 200,000 rows").
	Truncated bool
	Cut       string
}

// Meta is what a peek finds: enough to list a document.
type Meta struct {
	Title   string
	Summary string
}

// Source is a file to parse: its name (for the kind, language and fallback
// title; the folder in it titles a README without a heading) and its bytes.
type Source struct {
	Name string
	Data []byte
}

// ErrUnsupported is returned for a file whose kind has no parser.
var ErrUnsupported = errors.New("unsupported file type")

// Parser parses files with one set of options. It is safe for concurrent
// use; keeping one avoids rebuilding the Markdown parser for every file.
type Parser struct {
	opts Options
	md   gmparser.Parser
}

// NewParser returns a Parser with opts (zero fields take their defaults).
func NewParser(opts Options) *Parser {
	return &Parser{opts: opts.withDefaults(), md: newMarkdownParser()}
}

// Parse parses src with a one-off Parser; see Parser.Parse.
func Parse(ctx context.Context, src Source, opts Options) (*Document, error) {
	return NewParser(opts).Parse(ctx, src)
}

// Peek peeks with a one-off Parser; see Parser.Peek.
func Peek(ctx context.Context, name string, r io.ReaderAt, size int64, opts Options) (Meta, error) {
	return NewParser(opts).Peek(ctx, name, r, size)
}

// Parse parses src fully. A parser that panics on hostile input is turned
// into an error; the caller never sees the panic.
func (ps *Parser) Parse(ctx context.Context, src Source) (doc *Document, err error) {
	opts := ps.opts
	kind, lang := KindOfContent(src.Name, src.Data)
	if err := CheckText(kind, src.Data); err != nil {
		return nil, err // says what it is, in words, for the reader
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("parse %s: panic: %v\n%s", kind, r, debug.Stack())
		}
	}()
	p := &parser{ctx: ctx, opts: opts, name: src.Name, md: ps.md, out: opts.MaxOutputBytes}
	switch kind {
	case KindMarkdown:
		doc, err = parseMarkdown(p, src.Data)
	case KindText:
		doc, err = parseText(p, src.Data)
	case KindCode:
		doc, err = parseCode(p, src.Data, lang)
	case KindCSV:
		doc, err = parseDelimited(p, src.Data, ',')
	case KindTSV:
		doc, err = parseDelimited(p, src.Data, '\t')
	case KindXLSX:
		doc, err = parseXLSX(p, src.Data)
	case KindPDF:
		doc, err = parsePDF(p, src.Data)
	case KindDOCX:
		doc, err = parseDOCX(p, src.Data)
	case KindPPTX:
		doc, err = parsePPTX(p, src.Data)
	case KindHTML:
		doc, err = parseHTML(p, src.Data)
	default:
		return nil, fmt.Errorf("%s: %w", src.Name, ErrUnsupported)
	}
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", kind, err)
	}
	doc.Truncated = doc.Truncated || p.overBudget
	doc.Cut = cutNote(doc, p)
	finish(doc, src.Name)
	return doc, nil
}

// cutNote says what cut doc short, in words, with how much was kept;
// empty for a whole document. A parser's own note (p.noteCut) is the
// most precise; otherwise the bound is named from what was reached.
func cutNote(doc *Document, p *parser) string {
	switch {
	case !doc.Truncated:
		return ""
	case doc.Cut != "":
		return doc.Cut
	case p.note != "":
		return p.note
	case p.overBudget:
		return fmt.Sprintf("cut short at the output bound (%d MiB of content): kept %s", p.opts.MaxOutputBytes>>20, pagesKept(len(doc.Pages)))
	case len(doc.Pages) >= p.opts.MaxPages:
		return fmt.Sprintf("cut short at the bound of %d pages: kept the first %d", p.opts.MaxPages, len(doc.Pages))
	}
	return fmt.Sprintf("cut short by a bound (rows, elements or size): kept %s", pagesKept(len(doc.Pages)))
}

// pagesKept is "1 page" or "N pages".
func pagesKept(n int) string {
	if n == 1 {
		return "1 page"
	}
	return strconv.Itoa(n) + " pages"
}

// noteCut records what a bound cut, in words; the first note stays.
func (p *parser) noteCut(format string, args ...any) {
	if p.note == "" {
		p.note = fmt.Sprintf(format, args...)
	}
}

// Peek reads just enough of a file to list it: the title and summary. r
// reads the file, size is its length. Peek reads a bounded prefix of text
// files and only the small metadata parts of OOXML packages and PDFs.
func (ps *Parser) Peek(ctx context.Context, name string, r io.ReaderAt, size int64) (m Meta, err error) {
	opts := ps.opts
	kind, lang := KindOf(name)
	if kind == KindUnknown && Sniffable(name) {
		head := make([]byte, min(size, SniffBytes))
		k, err := r.ReadAt(head, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return Meta{}, fmt.Errorf("peek: %w", err)
		}
		kind, lang = KindOfContent(name, head[:k])
	}
	defer func() {
		if rec := recover(); rec != nil {
			m, err = Meta{}, fmt.Errorf("peek %s: panic: %v", kind, rec)
		}
	}()
	p := &parser{ctx: ctx, opts: opts, name: name, md: ps.md, out: opts.MaxOutputBytes}
	prefix := func() ([]byte, error) {
		n := min(size, int64(opts.PeekBytes))
		buf := make([]byte, n)
		k, err := r.ReadAt(buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return buf[:k], nil
	}
	switch kind {
	case KindMarkdown, KindText, KindCode, KindCSV, KindTSV, KindHTML:
		buf, err := prefix()
		if err != nil {
			return Meta{}, fmt.Errorf("peek %s: %w", kind, err)
		}
		if err := CheckText(kind, buf); err != nil {
			return Meta{}, err
		}
		switch kind {
		case KindMarkdown:
			m = peekMarkdown(p, buf)
		case KindHTML:
			m = peekHTML(p, buf)
		case KindText:
			m = peekText(p, buf)
		case KindCode:
			m = peekCode(p, buf, lang)
		case KindCSV:
			m = peekDelimited(p, buf, ',')
		case KindTSV:
			m = peekDelimited(p, buf, '\t')
		}
	case KindXLSX:
		m, err = peekXLSX(p, r, size)
	case KindPDF:
		m, err = peekPDF(p, r, size)
	case KindDOCX:
		m, err = peekDOCX(p, r, size)
	case KindPPTX:
		m, err = peekPPTX(p, r, size)
	default:
		return Meta{}, fmt.Errorf("%s: %w", name, ErrUnsupported)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("peek %s: %w", kind, err)
	}
	if m.Title == "" {
		m.Title = fallbackTitle(name)
	}
	m.Title = truncate(m.Title, MaxTitleChars)
	m.Summary = SearchForm(m.Summary)
	return m, nil
}

// parser carries what every format parser needs.
type parser struct {
	ctx  context.Context
	opts Options
	name string
	md   gmparser.Parser
	// out is what is left of the output budget (Options.MaxOutputBytes);
	// overBudget tells that an element was refused for it.
	out        int64
	overBudget bool
	// note says what cut the document short (noteCut).
	note string
}

// elementCost is the estimated memory of an element beside its text: the
// struct, its content map and ID.
const elementCost = 512

// spend charges an element of textBytes to the output budget and reports
// whether it may be added. Memory is bounded by bytes, not by counts of
// pages and elements: 5,000 pages of 2,000 one-word paragraphs (an 83 KB
// docx) would otherwise take gigabytes.
func (p *parser) spend(textBytes int) bool {
	return p.charge(int64(textBytes) + elementCost)
}

// charge takes n bytes from the output budget and reports whether they
// were there.
func (p *parser) charge(n int64) bool {
	if p.overBudget {
		return false
	}
	if p.out -= n; p.out < 0 {
		p.overBudget = true
		return false
	}
	return true
}

// rowBytes estimates the memory of a table row.
func rowBytes(cells []string) int64 {
	n := int64(24)
	for _, c := range cells {
		n += int64(len(c)) + 16
	}
	return n
}

// cancelled reports the context's error, checked between pages.
func (p *parser) cancelled() error { return p.ctx.Err() }

// stem is a file's base name without its extension.
func stem(name string) string {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// fallbackTitle titles a file whose content gives no title: by its name
// without the extension, except a README, which a reader names after the
// folder it describes (node_modules/iconv-lite/README.md is
// "iconv-lite"); a README with no folder in name keeps its name.
func fallbackTitle(name string) string {
	s := stem(name)
	if !strings.EqualFold(s, "readme") {
		return s
	}
	dir := path.Dir(strings.ReplaceAll(name, "\\", "/"))
	if dir = path.Base(dir); dir == "." || dir == "/" || dir == ".." {
		return s
	}
	return dir
}

// idPrefix is the element-ID prefix of each category.
func idPrefix(c dpe.Category) string {
	switch c {
	case dpe.Heading:
		return "h"
	case dpe.Text:
		return "txt"
	case dpe.List:
		return "lst"
	case dpe.Code:
		return "code"
	case dpe.Table:
		return "tbl"
	case dpe.PivotTable:
		return "pvt"
	case dpe.Chart:
		return "chart"
	case dpe.Diagram:
		return "dgm"
	case dpe.Image:
		return "img"
	case dpe.Formula:
		return "fx"
	case dpe.Link:
		return "lnk"
	case dpe.Annotation:
		return "note"
	case dpe.Header:
		return "hdr"
	case dpe.Footer:
		return "ftr"
	case dpe.Separator:
		return "sep"
	case dpe.Audio:
		return "audio"
	case dpe.Video:
		return "video"
	case dpe.Form:
		return "form"
	case dpe.Widget:
		return "wgt"
	}
	return "el"
}

// finish assigns element IDs and fills in the document's title, summary
// and keywords where the parser left them empty.
func finish(doc *Document, name string) {
	for pi := range doc.Pages {
		finishPage(&doc.Pages[pi], pi)
	}
	if doc.Title == "" {
		doc.Title = fallbackTitle(name)
	}
	if len(doc.Keywords) == 0 {
		doc.Keywords = topTerms(doc, 5)
	}
	doc.Title = truncate(doc.Title, MaxTitleChars)
	doc.Summary = SearchForm(doc.Summary)
	doc.Keywords = searchForms(doc.Keywords)
}

// finishPage assigns the element IDs of page pi and fills in its title
// and element summaries where the parser left them empty. It may run
// again on a finished page: the result is the same.
func finishPage(pg *Page, pi int) {
	counts := map[dpe.Category]int{}
	container := "" // the last element not shown within another
	for ei := range pg.Elements {
		e := &pg.Elements[ei]
		counts[e.Category]++
		e.ID = idPrefix(e.Category) + "-" + strconv.Itoa(pi) + "-" + strconv.Itoa(counts[e.Category])
		if e.Content == nil {
			e.Content = map[string]any{}
		}
		if w, ok := e.Content["within"]; ok {
			if w == withinPrevious && container != "" {
				e.Content["within"] = container
			} else if w == withinPrevious {
				delete(e.Content, "within")
			}
		} else {
			container = e.ID
		}
		if e.Summary == "" {
			e.Summary = elementSummary(*e)
		}
	}
	if pg.Title == "" {
		pg.Title = "Page " + strconv.Itoa(pi+1)
	}
}

// MaxTitleChars bounds a document's title: a title property of 400,000
// characters is a hostile file's, and every catalog would carry it.
const MaxTitleChars = 300

// ElementPage is the index of the page an element ID names (IDs carry
// it: "tbl-2-1" is on page 2).
func ElementPage(id string) (int, bool) { return pageOfID(id) }

// FindElement returns the element with id and the index of its page.
func (d *Document) FindElement(id string) (Element, int, bool) {
	// IDs carry their page index: look there first.
	if pi, ok := pageOfID(id); ok && pi < len(d.Pages) {
		for _, e := range d.Pages[pi].Elements {
			if e.ID == id {
				return e, pi, true
			}
		}
		return Element{}, 0, false
	}
	return Element{}, 0, false
}

// pageOfID reads the page index out of an element ID.
func pageOfID(id string) (int, bool) {
	i := strings.IndexByte(id, '-')
	j := strings.LastIndexByte(id, '-')
	if i < 0 || j <= i {
		return 0, false
	}
	n, err := strconv.Atoi(id[i+1 : j])
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// contentBytes estimates the text bytes of an element's content: its
// strings, string lists and table rows.
func contentBytes(c map[string]any) int {
	n := 0
	for _, v := range c {
		switch v := v.(type) {
		case string:
			n += len(v)
		case []string:
			for _, s := range v {
				n += len(s) + 16
			}
		case [][]string:
			for _, r := range v {
				for _, s := range r {
					n += len(s) + 16
				}
			}
		}
	}
	return n
}

// EstimatedBytes estimates the memory a parsed document holds, for
// caches bounded by bytes.
func (d *Document) EstimatedBytes() int64 {
	n := int64(256 + len(d.Title) + len(d.Summary))
	for _, p := range d.Pages {
		n += 64 + int64(len(p.Title))
		for _, e := range p.Elements {
			n += elementCost + int64(contentBytes(e.Content)+contentBytes(e.Detail)+contentBytes(e.Metadata))
		}
	}
	return n
}
