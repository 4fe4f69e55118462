package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/richardlehane/mscfb"

	"github.com/smcp-browse/smcp-browse/dpe"
)

// OOXML (DOCX, PPTX, XLSX) packages are zip files of XML parts. This file
// holds what the three readers share: bounded part reads (a zip bomb
// cannot make them allocate more than MaxZipEntry per part), a small
// generic XML tree, relationships and the core properties.

// Bounds of the trees built from hostile parts: depth, elements, tokens
// (elements, character data, comments, processing instructions: a
// reader that ignores comments still has to step over them) and the
// estimated bytes a tree holds.
const (
	maxXMLDepth  = 256
	maxXMLNodes  = 2_000_000
	maxXMLTokens = 6_000_000
	maxXMLBytes  = 256 << 20
)

// pkg is an opened OOXML package.
type pkg struct {
	ctx   context.Context
	zr    *zip.Reader
	files map[string]*zip.File // by lower-case name
	max   int64                // decompressed bytes of one part
	left  int64                // decompressed bytes the rest of the package may use
	total int64                // the package's budget, for messages
	spent bool                 // a part was refused for the budget
}

// openPackage opens the zip package of a parse; its parts draw on the
// parse's decompression budget (Options.MaxUnpacked), so a package of many
// parts, each under the per-part bound, cannot inflate without limit.
func openPackage(p *parser, r io.ReaderAt, size int64) (*pkg, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		if oerr := oleContainer(r, size); oerr != nil {
			return nil, oerr
		}
		return nil, fmt.Errorf("open package: %w", err)
	}
	pk := &pkg{ctx: p.ctx, zr: zr, files: make(map[string]*zip.File, len(zr.File)), max: p.opts.MaxZipEntry, left: p.opts.MaxUnpacked, total: p.opts.MaxUnpacked}
	for _, f := range zr.File {
		pk.files[strings.ToLower(strings.TrimPrefix(f.Name, "/"))] = f
	}
	return pk, nil
}

// oleMagic starts an OLE compound file: what Office writes for an
// encrypted OOXML document (the package, encrypted, is its
// EncryptedPackage stream) and for the binary formats before 2007.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// ErrEncrypted is the reason of an Office document that is encrypted with
// a password.
var ErrEncrypted = errors.New("the document is encrypted: a password is needed to open it")

// oleContainer explains a file that is not a zip package but an OLE
// compound file: ErrEncrypted when it holds an EncryptedPackage stream,
// else an older binary Office file. It returns nil for anything else.
func oleContainer(r io.ReaderAt, size int64) error {
	head := make([]byte, len(oleMagic))
	if _, err := r.ReadAt(head, 0); err != nil || !bytes.Equal(head, oleMagic) {
		return nil
	}
	cfb, err := mscfb.New(io.NewSectionReader(r, 0, size))
	if err != nil {
		return fmt.Errorf("an OLE compound file that cannot be read (%w), not an Office Open XML package", err)
	}
	for f, err := cfb.Next(); err == nil; f, err = cfb.Next() {
		if f.Name == "EncryptedPackage" {
			return ErrEncrypted
		}
	}
	return errors.New("an older binary Office file (an OLE compound file, as .doc, .xls and .ppt are), not an Office Open XML package")
}

// errPartTooLarge reports a part over the decompressed size bound, and
// errUnpackBudget a package whose parts together pass the budget.
var (
	errPartTooLarge = errors.New("package part exceeds the size bound")
	errUnpackBudget = errors.New("package decompresses to more than the budget of one document")
)

// has reports whether the package holds a part.
func (p *pkg) has(name string) bool {
	_, ok := p.files[strings.ToLower(strings.TrimPrefix(name, "/"))]
	return ok
}

// read returns a part's bytes, refusing parts whose declared or actual
// size passes the part bound or what is left of the package's budget.
func (p *pkg) read(name string) ([]byte, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, err
	}
	f, ok := p.files[strings.ToLower(strings.TrimPrefix(name, "/"))]
	if !ok {
		return nil, fmt.Errorf("part %s: %w", name, errPartMissing)
	}
	if f.UncompressedSize64 > uint64(p.max) {
		return nil, fmt.Errorf("part %s (%d bytes): %w", name, f.UncompressedSize64, errPartTooLarge)
	}
	if f.UncompressedSize64 > uint64(max(p.left, 0)) {
		p.spent = true
		return nil, fmt.Errorf("part %s (%d bytes): %w (%d MiB)", name, f.UncompressedSize64, errUnpackBudget, p.budgetMiB())
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	defer rc.Close()
	limit := min(p.max, p.left)
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	if int64(len(data)) > p.max {
		return nil, fmt.Errorf("part %s: %w", name, errPartTooLarge)
	}
	if int64(len(data)) > p.left {
		p.left, p.spent = -1, true
		return nil, fmt.Errorf("part %s: %w (%d MiB)", name, errUnpackBudget, p.budgetMiB())
	}
	p.left -= int64(len(data))
	return data, nil
}

func (p *pkg) budgetMiB() int64 { return p.total >> 20 }

// errPartMissing is the error of a missing part.
var errPartMissing = errors.New("part not found")

// tree reads a part as an XML tree.
func (p *pkg) tree(name string) (*xnode, error) {
	data, err := p.read(name)
	if err != nil {
		return nil, err
	}
	n, err := parseXML(p.ctx, data)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", name, err)
	}
	return n, nil
}

// rels returns a part's relationships: id → {type, target resolved to a
// package path}. A missing rels part is no relationships.
func (p *pkg) rels(part string) map[string]rel {
	dir, base := path.Split(part)
	t, err := p.tree(dir + "_rels/" + base + ".rels")
	out := map[string]rel{}
	if err != nil {
		return out
	}
	for _, r := range t.all("Relationship") {
		target := r.attr("Target")
		if r.attr("TargetMode") == "External" {
			out[r.attr("Id")] = rel{typ: r.attr("Type"), target: target, external: true}
			continue
		}
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Clean(path.Join(dir, target))
		}
		out[r.attr("Id")] = rel{typ: r.attr("Type"), target: target}
	}
	return out
}

type rel struct {
	typ, target string
	external    bool
}

// coreProps are the Dublin Core properties of docProps/core.xml.
type coreProps struct {
	title, subject, description, keywords string
}

func (p *pkg) core() coreProps {
	t, err := p.tree("docProps/core.xml")
	if err != nil {
		return coreProps{}
	}
	get := func(name string) string {
		if n := t.first(name); n != nil {
			return clean(collapse(n.text()))
		}
		return ""
	}
	return coreProps{title: get("title"), subject: get("subject"), description: get("description"), keywords: get("keywords")}
}

// summaryOf is the description or subject of the core properties.
func (c coreProps) summary() string {
	if c.description != "" {
		return firstSentences(c.description, SummaryChars)
	}
	return firstSentences(c.subject, SummaryChars)
}

// xnode is an element of a small XML tree: its local name, attributes (by
// local name), children, and its character data and children in document
// order (for text extraction that must keep their order).
type xnode struct {
	name     string
	attrs    []xml.Attr
	children []*xnode
	order    []any // string (character data) or *xnode
}

// parseXML builds a tree, refusing documents deeper than maxXMLDepth,
// with more than maxXMLNodes elements or maxXMLTokens tokens, or whose
// tree would hold more than maxXMLBytes. Adjacent pieces of character data
// (split by comments or processing instructions) are joined once, in a
// buffer: appending each piece to a string copies the text for every
// piece, which is quadratic. The context is checked as tokens are read.
func parseXML(ctx context.Context, data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	root := &xnode{name: "#root"}
	stack := []*xnode{root}
	var text []byte // character data of the top element not yet in its order
	flush := func() {
		if len(text) > 0 {
			top := stack[len(stack)-1]
			top.order = append(top.order, string(text))
			text = text[:0]
		}
	}
	nodes, tokens := 0, 0
	size := int64(0) // estimated bytes held by the tree
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("xml: %w", err)
		}
		if tokens++; tokens > maxXMLTokens {
			return nil, fmt.Errorf("xml: more than %d tokens", maxXMLTokens)
		}
		if tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			flush()
			nodes++
			if nodes > maxXMLNodes || len(stack) > maxXMLDepth {
				return nil, errors.New("xml: document too large or too deep")
			}
			n := &xnode{name: t.Name.Local, attrs: t.Attr}
			size += 320 + int64(len(t.Name.Local))
			for _, a := range t.Attr {
				size += 80 + int64(len(a.Name.Local)+len(a.Name.Space)+len(a.Value))
			}
			parent := stack[len(stack)-1]
			parent.children = append(parent.children, n)
			parent.order = append(parent.order, n)
			stack = append(stack, n)
		case xml.EndElement:
			flush()
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			text = append(text, t...)
			size += int64(len(t))
		}
		if size > maxXMLBytes {
			return nil, fmt.Errorf("xml: the tree would hold more than %d MiB", maxXMLBytes>>20)
		}
	}
	flush()
	return root, nil
}

// attr returns an attribute by local name.
func (n *xnode) attr(local string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// relID returns the r:id attribute (the "id" attribute in the
// relationships namespace), which elements such as p:sldId carry beside a
// plain "id".
func (n *xnode) relID() string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == "id" && strings.HasSuffix(a.Name.Space, "/relationships") {
			return a.Value
		}
	}
	return ""
}

// child returns the first direct child with a local name.
func (n *xnode) child(name string) *xnode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// kids returns the direct children with a local name.
func (n *xnode) kids(name string) []*xnode {
	if n == nil {
		return nil
	}
	var out []*xnode
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

// first returns the first descendant with a local name (depth first).
func (n *xnode) first(name string) *xnode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name {
			return c
		}
		if f := c.first(name); f != nil {
			return f
		}
	}
	return nil
}

// all returns every descendant with a local name, in document order.
func (n *xnode) all(name string) []*xnode {
	var out []*xnode
	var walk func(*xnode)
	walk = func(x *xnode) {
		for _, c := range x.children {
			if c.name == name {
				out = append(out, c)
			}
			walk(c)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

// text concatenates the character data of n and its descendants.
func (n *xnode) text() string {
	var b strings.Builder
	var walk func(*xnode)
	walk = func(x *xnode) {
		for _, o := range x.order {
			switch o := o.(type) {
			case string:
				b.WriteString(o)
			case *xnode:
				walk(o)
			}
		}
	}
	if n != nil {
		walk(n)
	}
	return b.String()
}

// drawingML text: a:p paragraphs of a:r runs (a:t), a:br breaks and a:fld
// fields, as used by PPTX shapes, tables and chart titles.
func dmlParagraphs(body *xnode) []string {
	var out []string
	for _, p := range body.kids("p") {
		var b strings.Builder
		for _, c := range p.children {
			switch c.name {
			case "r", "fld":
				if t := c.child("t"); t != nil {
					b.WriteString(t.text())
				}
			case "br":
				b.WriteByte('\n')
			}
		}
		out = append(out, clean(b.String()))
	}
	return out
}

// chartInfo reads a DrawingML chart part: its type (from the first
// *Chart element of the plot area), title, and a one-line data summary.
func (p *pkg) chartInfo(part string) (Element, bool) {
	t, err := p.tree(part)
	if err != nil {
		return Element{}, false
	}
	chart := t.first("chart")
	if chart == nil {
		return Element{}, false
	}
	title := ""
	if tt := chart.child("title"); tt != nil {
		var parts []string
		for _, tx := range tt.all("t") {
			parts = append(parts, tx.text())
		}
		title = clean(collapse(strings.Join(parts, "")))
	}
	kind := "chart"
	var series []string
	points := 0
	if pa := chart.child("plotArea"); pa != nil {
		for _, c := range pa.children {
			if strings.HasSuffix(c.name, "Chart") {
				kind = strings.TrimSuffix(c.name, "Chart")
				if bd := c.child("barDir"); bd != nil && bd.attr("val") == "col" {
					kind = "column"
				}
				for _, s := range c.kids("ser") {
					name := ""
					if tx := s.child("tx"); tx != nil {
						if v := tx.first("v"); v != nil {
							name = v.text()
						} else if f := tx.first("f"); f != nil {
							name = f.text() // a reference without a cached value
						}
					}
					series = append(series, clean(collapse(name)))
					if val := s.child("val"); val != nil {
						if pc := val.first("ptCount"); pc != nil {
							var n int
							fmt.Sscan(pc.attr("val"), &n)
							points = max(points, n)
						}
					}
				}
				break
			}
		}
	}
	summary := fmt.Sprintf("%s chart", kind)
	if len(series) > 0 {
		summary = fmt.Sprintf("%s chart with %d series (%s)", kind, len(series), strings.Join(series, ", "))
		if points > 0 {
			summary += fmt.Sprintf(", %d points", points)
		}
	}
	if title == "" {
		title = kind + " chart"
	}
	return Element{Category: dpe.Chart, Content: map[string]any{
		"chart_type": kind, "title": title, "data_summary": truncate(summary, SummaryChars),
	}, Metadata: map[string]any{"part": part}}, true
}
