package pages

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/components/render"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// toolBlobMax bounds a result item read by blob handle (the Computer
// keeps items of at most 100 MiB by handle).
const toolBlobMax = 128 << 20

// resultItem is one content item of a tool result as the result screen
// shows it. Text is sanitized; an inline blob is decoded; an item sent by
// handle keeps only its handle until the user saves or opens it.
type resultItem struct {
	kind   string // the item's type; "structured" for structuredContent
	mime   string
	uri    string // a resource's or a link's URI, as sent
	name   string // a link's name
	text   string // a text item's (or text resource's) sanitized text
	data   []byte // an inline blob's bytes
	handle string // a2c_blob_handle: the bytes are on the computer
	size   int64  // a blob's size: decoded, or a2c_total_size
	bad    string // why an inline blob cannot be read
}

// binary reports whether the item is bytes to save rather than text.
func (it resultItem) binary() bool { return it.handle != "" || it.data != nil }

// resultItems reads a result's content items, then its structured
// content as one more item.
func resultItems(res *protocol.CallToolResult) []resultItem {
	items := make([]resultItem, 0, len(res.Content)+1)
	for _, c := range res.Content {
		items = append(items, contentItem(c))
	}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		var b bytes.Buffer
		if json.Indent(&b, res.StructuredContent, "", "  ") != nil {
			b.Reset()
			b.Write(res.StructuredContent)
		}
		items = append(items, resultItem{kind: "structured", mime: "application/json", text: common.Sanitize(b.String())})
	}
	return items
}

// contentItem reads one content item.
func contentItem(c protocol.ToolContent) resultItem {
	it := resultItem{kind: c.Type, mime: c.MIMEType, uri: c.URI, name: c.Name}
	handle, _ := c.Meta[protocol.MetaBlobHandle].(string)
	switch c.Type {
	case "text":
		it.text = common.Sanitize(c.Text)
	case "image", "audio":
		it.blob(c.Data, handle, c.Meta)
	case "resource":
		var r struct {
			URI      string  `json:"uri"`
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     string  `json:"blob"`
		}
		if err := json.Unmarshal(c.Resource, &r); err != nil {
			it.bad = "the resource is not an object"
			return it
		}
		it.uri, it.mime = r.URI, r.MIMEType
		if r.Text != nil && handle == "" {
			it.text = common.Sanitize(*r.Text)
			return it
		}
		it.blob(r.Blob, handle, c.Meta)
	}
	return it
}

// blob records an item's bytes: by handle (its size from a2c_total_size),
// else the inline base64 data decoded.
func (it *resultItem) blob(data, handle string, meta map[string]any) {
	if handle != "" {
		it.handle = handle
		if n, ok := meta[protocol.MetaTotalSize].(float64); ok && n >= 0 {
			it.size = int64(n)
		}
		return
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
	if err != nil {
		it.bad = "its data is not base64"
		return
	}
	it.data, it.size = b, int64(len(b))
}

// describe is the item's one-line description: type, URI, MIME type,
// size and where its bytes are.
func (it resultItem) describe() string {
	parts := []string{it.kind}
	if it.kind == "structured" {
		parts[0] = "structured content"
	}
	if it.name != "" {
		parts = append(parts, it.name)
	}
	if it.uri != "" {
		parts = append(parts, it.uri)
	}
	if it.mime != "" && it.kind != "text" && it.kind != "structured" {
		parts = append(parts, it.mime)
	}
	if it.binary() {
		parts = append(parts, common.Bytes(it.size))
	}
	if it.handle != "" {
		parts = append(parts, "by blob handle")
	}
	return common.OneLine(strings.Join(parts, " · "))
}

// ext is the extension the item is saved under: the resource's own, else
// its MIME type's, else .bin (.txt for text).
func (it resultItem) ext() string {
	if u, err := url.Parse(it.uri); err == nil && it.uri != "" {
		if e := path.Ext(u.Path); len(e) > 1 && len(e) <= 8 {
			return e
		}
	}
	m, _, _ := mime.ParseMediaType(it.mime)
	if e, ok := mimeExts[m]; ok {
		return e
	}
	if exts, _ := mime.ExtensionsByType(m); len(exts) > 0 {
		return exts[0]
	}
	if it.binary() || it.bad != "" {
		return ".bin"
	}
	return ".txt"
}

// mimeExts are the extensions of the common types, where the system's
// table lists several (image/jpeg: .jfif first).
var mimeExts = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp",
	"image/svg+xml": ".svg", "image/bmp": ".bmp", "image/tiff": ".tiff",
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/wave": ".wav", "audio/mpeg": ".mp3",
	"audio/ogg": ".ogg", "audio/flac": ".flac", "application/pdf": ".pdf",
	"application/json": ".json", "text/plain": ".txt", "text/markdown": ".md",
	"text/html": ".html", "text/csv": ".csv", "application/zip": ".zip",
}

// ToolResult shows what a tool call answered: each content item under a
// bar that says its type, MIME type and size — text (sanitized) below
// it; an image, audio or blob as that line alone, its bytes fetched by
// blob handle only when `s` saves it or `o` opens it with the desktop's
// viewer. ]/[ select an item. A failed call (isError) says so, with its
// error code and the authorization hint of a 4006/4007.
type ToolResult struct {
	c     *common.Common
	comp  string
	tool  string
	res   *protocol.CallToolResult
	items []resultItem
	live  live.Tracker
	// sections holds the items; the selected one is what s and o act on.
	sections
	w, h int
}

// NewToolResult returns the screen of a tool's answer.
func NewToolResult(c *common.Common, computer, tool string, a toolAnswer) *ToolResult {
	return &ToolResult{c: c, comp: computer, tool: tool, res: a.res, items: a.items, live: live.NewTools(computer), sections: sections{pg: pager.New()}}
}

func (s *ToolResult) Init() tea.Cmd { return nil }

// head is the lines above the items: what was called, and how it failed.
func (s *ToolResult) head() []string {
	st := s.c.Styles
	lines := computerHead(st, "Result of "+common.OneLine(s.tool), []string{"on " + common.OneLine(s.comp), common.Count(len(s.items), "item")},
		false, s.live.Gone(), "")
	if !s.res.IsError {
		return lines
	}
	what := "✗ the tool reported an error"
	switch {
	case s.res.TimedOut():
		what = "✗ the call timed out"
	case s.res.Cancelled():
		what = "✗ the call was cancelled"
	}
	if code := s.res.ErrorCode(); code != 0 {
		what += fmt.Sprintf(" (%d · %s)", code, cmp.Or(protocol.CodeName(code), "error"))
	}
	lines = append(lines, st.Error.Render(what))
	if hint := s.res.AuthHint(); hint != "" {
		lines = append(lines, common.WrapStyledLines(st.Warning, "→ "+common.OneLine(hint), s.w, 2)...)
	}
	return lines
}

func (s *ToolResult) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

func (s *ToolResult) layout() {
	s.pg.SetSize(s.w, max(s.h-len(s.head()), 1))
	s.render()
}

// render lays the items out for the current width.
func (s *ToolResult) render() {
	if s.w <= 0 {
		return
	}
	st := s.c.Styles
	secs := make([]section, len(s.items))
	for i, it := range s.items {
		secs[i].title = common.Itoa(i+1) + " " + it.describe()
		switch {
		case it.bad != "":
			secs[i].body = []string{st.Error.Render("✗ " + it.bad)}
		case it.binary():
			hint := "s saves it, o opens it with your viewer"
			if it.handle != "" {
				hint += " (its bytes stay on the computer until then)"
			}
			secs[i].body = []string{st.Muted.Render(common.Fit(hint, s.w))}
		case strings.TrimSpace(it.text) != "":
			secs[i].body = strings.Split(render.Wrap(it.text, s.w), "\n")
		}
	}
	s.show(st, s.w, secs)
}

func (s *ToolResult) Update(msg tea.Msg) tea.Cmd {
	if ev := s.live.Observe(msg); ev == live.Left || ev == live.Entered {
		s.layout()
		return nil
	}
	switch msg := msg.(type) {
	case common.ThemeMsg:
		s.render()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Tools.NextItem):
			s.jump(1, s.render)
			return nil
		case key.Matches(msg, k.Tools.PrevItem):
			s.jump(-1, s.render)
			return nil
		}
		s.pg.Update(msg, k)
	case tea.MouseWheelMsg:
		s.pg.Update(msg, s.c.Keys)
	}
	return nil
}

func (s *ToolResult) View() string {
	lines := s.head()
	if len(s.items) == 0 {
		return strings.Join(append(lines, s.c.Styles.Muted.Render("The tool answered with no content.")), "\n")
	}
	return strings.Join(append(lines, s.pg.View(s.c.Styles)), "\n")
}

// Export saves or opens the selected item: text as it is shown, a blob
// under its type's extension (read by handle only now), opened with the
// desktop's viewer.
func (s *ToolResult) Export() (common.ExportJob, bool) {
	if s.sel >= len(s.items) {
		return common.ExportJob{}, false
	}
	it := s.items[s.sel]
	stem := s.tool + "-" + common.Itoa(s.sel+1)
	title := "item " + common.Itoa(s.sel+1) + " of " + common.OneLine(s.tool) + "'s result"
	var job common.ExportJob
	switch {
	case it.bad != "" || it.kind == "resource_link":
		return common.ExportJob{}, false
	case it.handle != "":
		comp, handle := s.comp, it.handle
		job = common.ExportJob{Name: stem, Title: title, Build: func(ctx context.Context, b common.Backend) (string, error) {
			data, _, err := b.GetBlob(ctx, comp, handle, toolBlobMax)
			if err != nil {
				return "", fmt.Errorf("read the item by its blob handle: %w", err)
			}
			return string(data), nil
		}}
	case it.data != nil:
		job = common.StaticExport(stem, title, string(it.data))
	default:
		job = common.StaticExport(stem, title, it.text)
	}
	job.Ext, job.Viewer = it.ext(), it.binary()
	return job, true
}

func (s *ToolResult) Crumb() string { return "result" }

func (s *ToolResult) Keys() help.KeyMap {
	k := s.c.Keys
	next := k.Tools.NextItem
	save, open := k.Global.Save, k.Global.Pager
	save.SetHelp(save.Help().Key, "save item")
	open.SetHelp(open.Help().Key, "open item")
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, next, save, open, k.Nav.Back, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, next, save, open, k.Nav.Back}},
	}
}

// URI is the selected item's URI (a resource's or a link's).
func (s *ToolResult) URI() string {
	if s.sel >= len(s.items) {
		return ""
	}
	return common.OneLine(s.items[s.sel].uri)
}

func (s *ToolResult) Capturing() bool  { return false }
func (s *ToolResult) Computer() string { return s.comp }

func (s *ToolResult) Status() string {
	if len(s.items) == 0 {
		return ""
	}
	return "item " + common.Itoa(s.sel+1) + "/" + common.Itoa(len(s.items))
}
