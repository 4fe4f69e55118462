package pages

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/smcp-browse/smcp-browse/dpe"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// maxExportPages bounds the pages of a document an export reads.
const maxExportPages = 10000

// documentExport reads every page of a document and joins their Markdown.
func documentExport(comp string, d protocol.DPEDocumentSummary) common.ExportJob {
	name := d.DocRef
	if u, err := dpe.Parse(d.URI); err == nil && name == "" {
		name = u.DocRef
	}
	return common.ExportJob{
		Name: name, Title: common.OneLine(d.Title), File: localFile(d.FileURI),
		Build: func(ctx context.Context, b common.Backend) (string, error) {
			return documentMarkdown(ctx, b, comp, d)
		},
	}
}

// documentMarkdown is a whole document as Markdown: its title (unless its
// first page opens with it), then each page's Markdown (with the page title
// as a heading when the page does not start with it and it is not the
// document's). The reads are bounded by maxExportPages and ctx.
func documentMarkdown(ctx context.Context, b common.Backend, comp string, d protocol.DPEDocumentSummary) (string, error) {
	u, err := dpe.Parse(d.URI)
	if err != nil {
		return "", err
	}
	doc := u.DocumentURI()
	title := common.OneLine(d.Title)
	var sb strings.Builder
	for i := 0; i < maxExportPages; i++ {
		p, err := b.ReadPage(ctx, comp, dpe.Page(doc.Host, doc.DocRef, i))
		if protocol.CodeOf(err) == protocol.CodePageOutOfRange {
			break
		}
		if err != nil {
			return "", fmt.Errorf("page %d: %w", i+1, err)
		}
		p = common.SanitizePage(p)
		md := strings.TrimSpace(dpe.Portable(dpe.RenderPageMarkdown(*p))) // for a file, not the screen
		if i == 0 && !startsWithHeading(p, title) {
			sb.WriteString("# " + title + "\n") // unless the document opens with it
		}
		if t := common.OneLine(p.Title); t != "" && !startsWithHeading(p, t) && !strings.EqualFold(t, title) {
			sb.WriteString("\n## " + t + "\n")
		}
		if md != "" {
			if sb.Len() > 0 {
				sb.WriteString("\n")
			}
			sb.WriteString(md + "\n")
		}
	}
	if sb.Len() == 0 {
		sb.WriteString("# " + title + "\n")
	}
	return sb.String(), nil
}

// startsWithHeading reports whether the page's first element is a heading
// saying title.
func startsWithHeading(p *protocol.DPEPage, title string) bool {
	if len(p.Elements) == 0 || p.Elements[0].Category != string(dpe.Heading) {
		return false
	}
	text, _ := p.Elements[0].Content["text"].(string)
	return strings.EqualFold(strings.TrimSpace(common.OneLine(text)), title)
}

// localFile returns the path of a file:// URI when that file exists on this
// machine.
func localFile(fileURI string) string {
	u, err := url.Parse(fileURI)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
		return ""
	}
	if st, err := os.Stat(u.Path); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return u.Path
}
