package extract

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// The PDFs the engine's text is checked on against pdftotext (poppler, the
// reference), from several producers:
//
//   - testdata/pdf: committed (their licences allow it; see its README):
//     libtasn1.pdf (pdfTeX), bzip2-manual.pdf (PassiveTeX) and the
//     valgrind manual (Apache FOP, 397 pages, gzipped);
//   - Debian manuals under /usr/share/doc, read where they are installed
//     (make test-deps installs their packages as root): nettle
//     (texinfo, pdfTeX), crc-doc (MiKTeX pdfTeX), fontconfig and
//     shared-mime-info (LaTeX, pdfTeX);
//   - the Go module cache: fpdf's reference PDFs (fpdf, MIT) and PDFium's
//     test PDFs shipped with go-pdfium (BSD), both modules of go.mod.
//
// A missing source fails the tests in CI ($CI set) and is skipped with a
// message elsewhere.

// refPDF is one reference PDF.
type refPDF struct {
	name string // file name, unique in the set
	from string // where it comes from, for messages
	data []byte
}

// debianManuals are the Debian manuals of the set, by path.
var debianManuals = []string{
	"/usr/share/doc/nettle-dev/nettle.pdf.gz",
	"/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",
	"/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",
	"/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
}

// moduleSets are the module-cache folders of the set: module path and the
// folder of PDFs in it.
var moduleSets = [][2]string{
	{"github.com/go-pdf/fpdf", "pdf/reference"},
	{"github.com/klippa-app/go-pdfium", "shared_tests/testdata"},
}

var refSet struct {
	once    sync.Once
	pdfs    []refPDF
	missing []string
}

// referencePDFs returns the reference set, loaded once per test binary.
func referencePDFs(t *testing.T) []refPDF {
	t.Helper()
	refSet.once.Do(loadReferencePDFs)
	for _, m := range refSet.missing {
		missingSource(t, m)
	}
	return refSet.pdfs
}

// missingSource fails where the test's requirements must be met (CI, make
// test) and logs elsewhere.
func missingSource(t *testing.T, what string) {
	t.Helper()
	if testutil.Required() {
		t.Errorf("%s (make test-deps installs it as root)", what)
		return
	}
	t.Logf("skipped: %s", what)
}

func loadReferencePDFs() {
	add := func(name, from string, data []byte) {
		refSet.pdfs = append(refSet.pdfs, refPDF{name: name, from: from, data: data})
	}
	local, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "pdf", "*.pdf*"))
	for _, p := range local {
		if data, err := readMaybeGzipped(p); err == nil {
			add(strings.TrimSuffix(filepath.Base(p), ".gz"), "testdata/pdf", data)
		}
	}
	if len(local) == 0 {
		refSet.missing = append(refSet.missing, "no PDFs in testdata/pdf")
	}
	for _, p := range debianManuals {
		data, err := readMaybeGzipped(p)
		if err != nil {
			refSet.missing = append(refSet.missing, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		add(strings.TrimSuffix(filepath.Base(p), ".gz"), filepath.Dir(p), data)
	}
	for _, m := range moduleSets {
		dir, err := moduleDir(m[0])
		if err != nil {
			refSet.missing = append(refSet.missing, fmt.Sprintf("module %s: %v", m[0], err))
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, m[1], "*.pdf"))
		if len(files) == 0 {
			refSet.missing = append(refSet.missing, fmt.Sprintf("no PDFs in %s", filepath.Join(dir, m[1])))
		}
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				add(filepath.Base(p), m[0], data)
			}
		}
	}
	sort.Slice(refSet.pdfs, func(i, j int) bool { return refSet.pdfs[i].name < refSet.pdfs[j].name })
}

// readMaybeGzipped reads a file, gunzipping a .gz.
func readMaybeGzipped(p string) ([]byte, error) {
	data, err := os.ReadFile(p)
	if err != nil || !strings.HasSuffix(p, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(zr, 64<<20))
}

// moduleDir is the folder of a module of go.mod in the module cache.
func moduleDir(path string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", path, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("module %s is not in the module cache (go mod download)", path)
	}
	return dir, nil
}

// refPDFNamed returns the reference PDF of that name, or nil (after
// failing in CI).
func refPDFNamed(t *testing.T, name string) *refPDF {
	t.Helper()
	for _, r := range referencePDFs(t) {
		if r.name == name {
			return &r
		}
	}
	missingSource(t, name+" is not in the reference set")
	return nil
}

// parsed caches the parses of the test binary, by name: the reference
// tests share them instead of each reading every PDF again.
var parsed sync.Map // name → parseResult

type parseResult struct {
	once sync.Once
	doc  *Document
	err  error
}

// parseOnce parses a PDF once per test binary.
func parseOnce(name string, data []byte) (*Document, error) {
	v, _ := parsed.LoadOrStore(name, &parseResult{})
	r := v.(*parseResult)
	r.once.Do(func() {
		r.doc, r.err = Parse(context.Background(), Source{Name: name, Data: data}, Options{})
	})
	return r.doc, r.err
}

// pdftotextRun is one pdftotext run: its output, what it said on stderr
// and how it ended.
type pdftotextRun struct {
	once        sync.Once
	out, stderr []byte
	err         error
}

var pdftotextRuns sync.Map // name + args → *pdftotextRun

// runPdftotext runs pdftotext with args on a PDF (once per binary), or
// fails the test (CI) / skips it when pdftotext is not installed.
func runPdftotext(t *testing.T, name string, data []byte, args ...string) (out, stderr []byte, err error) {
	t.Helper()
	bin := testutil.Need(t, "pdftotext")
	v, _ := pdftotextRuns.LoadOrStore(name+"\x00"+strings.Join(args, "\x00"), &pdftotextRun{})
	r := v.(*pdftotextRun)
	r.once.Do(func() {
		cmd := exec.Command(bin, append(append([]string{}, args...), "-", "-")...)
		cmd.Stdin = bytes.NewReader(data)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		r.err = cmd.Run()
		r.out, r.stderr = o.Bytes(), e.Bytes()
	})
	return r.out, r.stderr, r.err
}
