package extract

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// joinCodePages is what a reader gets by reading every page of a source
// file as text (format=text) and putting them one after another: a page
// that continues a line cut for the page budget (its title says "part")
// continues that line.
func joinCodePages(doc *Document) string {
	var b strings.Builder
	for i, p := range doc.Pages {
		text := dpe.RenderPageText(pageDetail(p))
		if i+1 < len(doc.Pages) && strings.Contains(doc.Pages[i+1].Title, "(part ") && !strings.Contains(doc.Pages[i+1].Title, "(part 1 ") {
			text = strings.TrimSuffix(text, "\n")
		}
		b.WriteString(text)
	}
	return b.String()
}

// TestCodePagesConcatenateToTheFile reads real source files (Go's own
// net/http and runtime, a few of whose files end in blank lines, and a
// table whose lines pass the page budget) and checks that the pages of
// each put together are the file: their code byte for byte, and their
// text (format=text) line for line. No blank line is lost at a page
// boundary or at the end, nothing is added.
func TestCodePagesConcatenateToTheFile(t *testing.T) {
	src := filepath.Join(testutil.GOROOT(t), "src")
	var files []string
	for _, dir := range []string{"net/http", "runtime"} {
		root := filepath.Join(src, filepath.FromSlash(dir))
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return fs.SkipDir
			}
			if k, _ := KindOf(p); k == KindCode && d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Lines longer than a page (a compressed time-zone table on one line).
	files = append(files, filepath.Join(src, "time", "tzdata", "zzipdata.go"))
	ps := NewParser(Options{})
	var paged, endBlank, longLines int
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want := string(data)
		if strings.ContainsFunc(want, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' }) || strings.Contains(want, "\uFFFD") {
			continue // control characters are removed on purpose (sanitize)
		}
		doc, err := ps.Parse(context.Background(), Source{Name: p, Data: data})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// The code of the pages (format=json) is the file, byte for byte.
		var code strings.Builder
		for _, pg := range doc.Pages {
			code.WriteString(pg.Elements[0].Content["code"].(string))
		}
		if code.String() != want {
			t.Errorf("%s: the pages' code put together is not the file", p)
		}
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n" // the last line ends like every other
		}
		if len(doc.Pages) > 1 {
			paged++
		}
		if strings.HasSuffix(want, "\n\n") {
			endBlank++
		}
		for _, pg := range doc.Pages {
			if strings.Contains(pg.Title, "(part ") {
				longLines++
				break
			}
		}
		if got := joinCodePages(doc); got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			i := 0
			for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
				i++
			}
			t.Errorf("%s: pages joined differ from the file at line %d (%d lines, file has %d)", p, i+1, len(gl)-1, len(wl)-1)
		}
	}
	if paged < 50 || endBlank == 0 || longLines == 0 {
		t.Fatalf("the files do not test what they should: %d of %d span pages, %d end in a blank line, %d have lines cut", paged, len(files), endBlank, longLines)
	}
	t.Logf("%d files, %d of several pages, %d ending in blank lines, %d with lines longer than a page", len(files), paged, endBlank, longLines)
}
