package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smcp-browse/smcp-browse/docserver/internal/hostile"
)

// Fuzz targets of the OOXML and PDF readers. Parse turns a panic into an
// error, so each target fails on an error that reports one; it also fails
// on output over the bounds, and on a parse that outlives its deadline.

// fuzzOpts are small bounds, so that inputs are cheap to read.
var fuzzOpts = Options{MaxPages: 50, MaxElements: 100, MaxRows: 200, TableRowsPerPage: 50,
	MaxZipEntry: 4 << 20, MaxUnpacked: 16 << 20, MaxOutputBytes: 4 << 20}

// fuzzRead parses and peeks data as a file called name.
func fuzzRead(t *testing.T, name string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := Parse(ctx, Source{Name: name, Data: data}, fuzzOpts)
	if ctx.Err() != nil {
		t.Fatalf("%s: parse ran past its deadline", name)
	}
	if err != nil && strings.Contains(err.Error(), "panic:") {
		t.Fatalf("%s: %v", name, err)
	}
	if err == nil && len(d.Pages) > fuzzOpts.MaxPages {
		t.Fatalf("%s: %d pages", name, len(d.Pages))
	}
	if err == nil && d.EstimatedBytes() > 2*fuzzOpts.MaxOutputBytes+1<<20 {
		t.Fatalf("%s: output of %d bytes", name, d.EstimatedBytes())
	}
	_, err = Peek(ctx, name, bytes.NewReader(data), int64(len(data)), fuzzOpts)
	if err != nil && strings.Contains(err.Error(), "panic:") {
		t.Fatalf("%s peek: %v", name, err)
	}
}

// partOf returns one part of a corpus package.
func partOf(f *testing.F, rel, part string) []byte {
	data, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		f.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		f.Fatal(err)
	}
	for _, zf := range zr.File {
		if zf.Name == part {
			rc, _ := zf.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return b
		}
	}
	f.Fatalf("%s has no %s", rel, part)
	return nil
}

// withPart returns a corpus package with one part replaced.
func withPart(f *testing.F, rel, part string) func(body []byte) []byte {
	data, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		f.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		f.Fatal(err)
	}
	var parts []hostile.Part
	for _, zf := range zr.File {
		if zf.Name == part {
			continue
		}
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		parts = append(parts, hostile.Part{Name: zf.Name, Data: b})
	}
	return func(body []byte) []byte {
		return hostile.Zip(append(parts[:len(parts):len(parts)], hostile.Part{Name: part, Data: body}))
	}
}

// FuzzDOCX fuzzes the main part of a real DOCX (word/document.xml).
func FuzzDOCX(f *testing.F) {
	f.Add(partOf(f, "guides/onboarding.docx", "word/document.xml"))
	f.Add([]byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>a<!---->b</w:t><w:br w:type="page"/></w:r></w:p><w:tbl><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl></w:body></w:document>`))
	build := withPart(f, "guides/onboarding.docx", "word/document.xml")
	f.Fuzz(func(t *testing.T, body []byte) { fuzzRead(t, "f.docx", build(body)) })
}

// FuzzPPTX fuzzes the first slide of a real PPTX.
func FuzzPPTX(f *testing.F) {
	f.Add(partOf(f, "guides/roadmap.pptx", "ppt/slides/slide1.xml"))
	f.Add([]byte(`<p:sld xmlns:p="p" xmlns:a="a"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p></p:txBody></p:sp><p:grpSp><p:graphicFrame><a:tbl><a:tr><a:tc/></a:tr></a:tbl></p:graphicFrame></p:grpSp></p:spTree></p:cSld></p:sld>`))
	build := withPart(f, "guides/roadmap.pptx", "ppt/slides/slide1.xml")
	f.Fuzz(func(t *testing.T, body []byte) { fuzzRead(t, "f.pptx", build(body)) })
}

// FuzzXLSX fuzzes the first worksheet of a real XLSX.
func FuzzXLSX(f *testing.F) {
	f.Add(partOf(f, "reports/budget.xlsx", "xl/worksheets/sheet1.xml"))
	f.Add([]byte(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>99</v></c><c r="XFD1048576"><f>A1</f></c></row></sheetData></worksheet>`))
	build := withPart(f, "reports/budget.xlsx", "xl/worksheets/sheet1.xml")
	f.Fuzz(func(t *testing.T, body []byte) { fuzzRead(t, "f.xlsx", build(body)) })
}

// FuzzOOXMLPackage fuzzes whole packages (the zip layer and every part),
// read as each of the three formats.
func FuzzOOXMLPackage(f *testing.F) {
	for _, rel := range []string{"guides/onboarding.docx", "guides/roadmap.pptx", "reports/budget.xlsx"} {
		data, err := os.ReadFile(filepath.Join(corpus, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Add(hostile.CommentSplitDOCX(100, true), uint8(0))
	f.Add(hostile.ManyRowsXLSX(20), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		fuzzRead(t, "f."+[]string{"docx", "pptx", "xlsx"}[kind%3], data)
	})
}

// FuzzPDF fuzzes the PDF reader (PDFium).
func FuzzPDF(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(corpus, "reports/handbook.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(hostile.LoopTreePDF())
	f.Add(hostile.SimplePDF("Hello (world) \\\\ \\223"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, "f.pdf", data) })
}
