// Package hostile generates crafted files that have hurt the document
// server: files whose readers loop, inflate, or do quadratic work. Tests
// and fuzz seeds use them; nothing here is served.
package hostile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"time"
)

// PDF assembles a PDF file from object bodies (object i+1 is objs[i]) with
// a correct cross-reference table.
func PDF(objs []string) []byte {
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj %s endobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer << /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}

// PDFStream is the body of a stream object holding data.
func PDFStream(data string) string {
	return fmt.Sprintf("<< /Length %d >> stream\n%s\nendstream", len(data), data)
}

// SimplePDF is a valid one-page PDF showing text in Helvetica.
func SimplePDF(text string) []byte {
	return PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		PDFStream("BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// LoopTreePDF is a small PDF (under 600 bytes) whose page tree loops: the
// root Pages node lists itself among its /Kids. A reader that follows
// /Kids without remembering where it has been never comes back.
func LoopTreePDF() []byte {
	return PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		PDFStream("BT /F1 24 Tf 72 720 Td (Loop) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// BusyPagePDF is a PDF of a few kilobytes whose one page keeps a reader
// busy for minutes: its content draws a form n times, and the form is a
// thousand save/restore pairs that PDFium parses at every draw (n =
// 100,000 kept PDFium busy for 12 s). Nothing loops for ever:
// only a reader that can be stopped in the middle of a page stops early.
func BusyPagePDF(n int) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z) // FlateDecode
	zw.Write(bytes.Repeat([]byte("/X Do\n"), n))
	zw.Close()
	form := strings.Repeat("q Q\n", 1000)
	return PDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /X 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >> stream\n%s\nendstream", z.Len(), z.Bytes()),
		fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /Length %d >> stream\n%s\nendstream", len(form), form),
	})
}

// Part is one part of a zip package: its name and either its bytes, or a
// body repeated (Repeat times) to make a large part cheaply.
type Part struct {
	Name   string
	Data   []byte
	Repeat int
}

// Zip writes a zip package of parts (deflated). A part with Repeat > 1 is
// compressed once and its compressed stream reused for every part with
// the same name prefix and body, so packages that inflate to gigabytes
// are built in a fraction of a second.
func Zip(parts []Part) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	raw := map[string]rawPart{} // compressed streams by body
	for _, p := range parts {
		body := p.Data
		if p.Repeat > 1 {
			key := fmt.Sprintf("%d:%x", p.Repeat, crc32.ChecksumIEEE(p.Data))
			rp, ok := raw[key]
			if !ok {
				rp = compressRepeated(p.Data, p.Repeat)
				raw[key] = rp
			}
			w, err := zw.CreateRaw(&zip.FileHeader{Name: p.Name, Method: zip.Deflate,
				CRC32: rp.crc, CompressedSize64: uint64(len(rp.data)), UncompressedSize64: rp.size})
			if err != nil {
				panic(err)
			}
			w.Write(rp.data)
			continue
		}
		w, err := zw.Create(p.Name)
		if err != nil {
			panic(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

type rawPart struct {
	data []byte
	crc  uint32
	size uint64
}

func compressRepeated(body []byte, n int) rawPart {
	var out bytes.Buffer
	fw, _ := flate.NewWriter(&out, flate.BestCompression)
	h := crc32.NewIEEE()
	for range n {
		fw.Write(body)
		h.Write(body)
	}
	fw.Close()
	return rawPart{data: out.Bytes(), crc: h.Sum32(), size: uint64(len(body)) * uint64(n)}
}

const (
	nsW   = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	nsCP  = `xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"`
	nsRel = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
)

// DOCX is a minimal DOCX package around a body (the inside of w:body)
// and, when core is not empty, a docProps/core.xml holding it.
func DOCX(body, core string) []byte {
	parts := []Part{{Name: "word/document.xml", Data: []byte(`<?xml version="1.0"?><w:document ` + nsW + `><w:body>` + body + `</w:body></w:document>`)}}
	if core != "" {
		parts = append(parts, Part{Name: "docProps/core.xml", Data: []byte(`<?xml version="1.0"?><cp:coreProperties ` + nsCP + `>` + core + `</cp:coreProperties>`)})
	}
	return Zip(parts)
}

// CommentSplitDOCX is a DOCX whose one run of text is n characters each
// followed by an empty XML comment: n separate pieces of character data
// in one element, which a reader that appends each piece to a string
// copies n²/2 bytes for. inCore puts the trick in docProps/core.xml (the
// title) instead, which listing reads.
func CommentSplitDOCX(n int, inCore bool) []byte {
	split := strings.Repeat("a<!---->", n)
	if inCore {
		return DOCX(`<w:p><w:r><w:t>Body</w:t></w:r></w:p>`, `<dc:title>`+split+`</dc:title>`)
	}
	return DOCX(`<w:p><w:r><w:t>`+split+`</w:t></w:r></w:p>`, "")
}

// ParagraphBombDOCX is a DOCX of n one-word paragraphs with a page break
// every perPage of them: small compressed, millions of elements when read.
func ParagraphBombDOCX(n, perPage int) []byte {
	para := `<w:p><w:r><w:t>word</w:t></w:r></w:p>`
	brk := `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`
	page := strings.Repeat(para, perPage) + brk
	doc := []byte(`<?xml version="1.0"?><w:document ` + nsW + `><w:body>` + strings.Repeat(page, n/perPage) + `</w:body></w:document>`)
	return Zip([]Part{{Name: "word/document.xml", Data: doc}})
}

// InflatingPPTX is a PPTX of slides slides, each a part that inflates to
// about partBytes of shapes (under any per-part bound above partBytes),
// built from one compressed stream.
func InflatingPPTX(slides, partBytes int) []byte {
	const nsP = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	var pres, rels strings.Builder
	pres.WriteString(`<?xml version="1.0"?><p:presentation ` + nsP + `><p:sldIdLst>`)
	rels.WriteString(`<?xml version="1.0"?><Relationships ` + nsRel + `>`)
	for i := 1; i <= slides; i++ {
		fmt.Fprintf(&pres, `<p:sldId id="%d" r:id="rId%d"/>`, 255+i, i)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, i, i)
	}
	pres.WriteString(`</p:sldIdLst></p:presentation>`)
	rels.WriteString(`</Relationships>`)
	shape := `<p:sp><p:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p></p:txBody></p:sp>`
	// The slide is one long spTree: an opening, shapes, and a closing that
	// the repeated body never reaches (the reader must give up first, or
	// read a tree missing its end, which encoding/xml tolerates when not
	// strict).
	open := `<?xml version="1.0"?><p:sld ` + nsP + `><p:cSld><p:spTree>`
	parts := []Part{
		{Name: "ppt/presentation.xml", Data: []byte(pres.String())},
		{Name: "ppt/_rels/presentation.xml.rels", Data: []byte(rels.String())},
	}
	body := []byte(open + strings.Repeat(shape, 1024))
	for i := 1; i <= slides; i++ {
		parts = append(parts, Part{Name: fmt.Sprintf("ppt/slides/slide%d.xml", i), Data: body, Repeat: max(1, partBytes/len(body))})
	}
	return Zip(parts)
}

// ManyRowsXLSX is a workbook with one sheet of rows rows of three cells
// (a number, a shared string, a formula), written as raw parts.
func ManyRowsXLSX(rows int) []byte {
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	var sheet bytes.Buffer
	sheet.WriteString(`<?xml version="1.0"?><worksheet ` + ns + `><sheetData>`)
	for r := 1; r <= rows; r++ {
		fmt.Fprintf(&sheet, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d" t="s"><v>0</v></c><c r="C%d"><f>A%d*2</f><v>%d</v></c></row>`, r, r, r, r, r, r, 2*r)
	}
	sheet.WriteString(`</sheetData></worksheet>`)
	return Zip([]Part{
		{Name: "[Content_Types].xml", Data: []byte(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
			`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
			`<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`)},
		{Name: "_rels/.rels", Data: []byte(`<?xml version="1.0"?><Relationships ` + nsRel + `><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)},
		{Name: "xl/workbook.xml", Data: []byte(`<?xml version="1.0"?><workbook ` + ns + `><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`)},
		{Name: "xl/_rels/workbook.xml.rels", Data: []byte(`<?xml version="1.0"?><Relationships ` + nsRel + `><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`)},
		{Name: "xl/sharedStrings.xml", Data: []byte(`<?xml version="1.0"?><sst ` + ns + ` count="1" uniqueCount="1"><si><t>label</t></si></sst>`)},
		{Name: "xl/worksheets/sheet1.xml", Data: sheet.Bytes()},
	})
}

// NestedListMarkdown is Markdown of levels list items, each indented two
// spaces more than the one before: levels nested lists (25 MB at 5,000).
func NestedListMarkdown(levels int) []byte {
	var b bytes.Buffer
	for i := range levels {
		b.WriteString(strings.Repeat("  ", i))
		b.WriteString("- item\n")
	}
	return b.Bytes()
}

// ListMarkerMarkdown is one line of n "- " list markers and a word: n
// lists nested in one another.
func ListMarkerMarkdown(n int) []byte {
	return []byte(strings.Repeat("- ", n) + "x\n")
}

// PeakHeap runs f while sampling the heap every few milliseconds and
// returns the largest heap seen above the heap before f (a lower bound of
// the true peak).
func PeakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var top uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				peak <- top
				return
			case <-tick.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapAlloc)
			}
		}
	}()
	f()
	close(stop)
	return max(<-peak, base) - base
}
