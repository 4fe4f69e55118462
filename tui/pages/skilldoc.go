package pages

import (
	"cmp"
	"context"
	"mime"
	"path"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/internal/sanitize"
	"github.com/smcp-browse/smcp-browse/protocol"

	"github.com/smcp-browse/smcp-browse/tui/common"
	"github.com/smcp-browse/smcp-browse/tui/components/pager"
	"github.com/smcp-browse/smcp-browse/tui/components/picker"
	"github.com/smcp-browse/smcp-browse/tui/components/render"
	"github.com/smcp-browse/smcp-browse/tui/keymap"
	"github.com/smcp-browse/smcp-browse/tui/live"
)

// skillFileMax bounds a SKILL file read by blob handle.
const skillFileMax = 16 << 20

// SkillDoc shows one file of a SKILL (client:get_skill): SKILL.md, without
// its front matter, rendered with glamour under the SKILL's description
// and metadata, or another of its files — Markdown rendered, other text
// as a code block, a binary file as its type and size (`s` saves it, `o`
// opens it with the desktop's viewer). A file that comes by blob handle
// is read with client:get_blob. `L` lists the file's links to the SKILL's
// other files and opens them. It re-reads on notify:update_skills.
type SkillDoc struct {
	c       *common.Common
	comp    string
	ref     protocol.A2CSkillRef
	rel     string // the file, relative to the SKILL's folder; "" is SKILL.md
	live    live.Tracker
	file    skillFile
	w, h    int
	req     uint64
	loading bool
	loaded  bool
	err     string
	pg      pager.Model
}

// skillFile is a SKILL file as read: its type and bytes; text is the
// sanitized text of a text file ("" for a binary one).
type skillFile struct {
	mime   string
	size   int64
	data   []byte
	text   string
	binary bool
}

type skillDocMsg struct {
	req  uint64
	file skillFile
	err  error
}

// NewSkillDoc returns the screen of the SKILL ref's SKILL.md.
func NewSkillDoc(c *common.Common, computer string, ref protocol.A2CSkillRef) *SkillDoc {
	return NewSkillFile(c, computer, ref, "")
}

// NewSkillFile returns the screen of the file rel ("" is SKILL.md) of the
// SKILL ref.
func NewSkillFile(c *common.Common, computer string, ref protocol.A2CSkillRef, rel string) *SkillDoc {
	return &SkillDoc{c: c, comp: computer, ref: ref, rel: rel, live: live.NewSkills(computer), pg: pager.New()}
}

func (s *SkillDoc) Init() tea.Cmd { return s.loadCmd() }

// fileName is the file's path in the SKILL's folder.
func (s *SkillDoc) fileName() string {
	if s.rel == "" {
		return "SKILL.md"
	}
	return s.rel
}

func (s *SkillDoc) loadCmd() tea.Cmd {
	req := s.c.Req()
	s.req, s.loading = req, true
	comp, name, rel := s.comp, s.ref.Name, s.rel
	return common.Call(s.c, func(ctx context.Context, b common.Backend) (skillFile, error) {
		return readSkillFile(ctx, b, comp, name, rel)
	}, func(f skillFile, err error) tea.Msg { return skillDocMsg{req: req, file: f, err: err} })
}

// readSkillFile reads a SKILL file whole: its body, or its blob by handle.
func readSkillFile(ctx context.Context, b common.Backend, comp, name, rel string) (skillFile, error) {
	ret, err := b.GetSkill(ctx, comp, name, rel)
	if err != nil {
		return skillFile{}, err
	}
	f := skillFile{mime: ret.MIMEType, size: ret.TotalSize}
	switch {
	case ret.Body != nil:
		f.data = []byte(*ret.Body)
	case ret.BlobHandle != "":
		data, info, err := b.GetBlob(ctx, comp, ret.BlobHandle, skillFileMax)
		if err != nil {
			return skillFile{}, err
		}
		f.data, f.mime = data, cmp.Or(info.MIMEType, f.mime)
	default:
		return skillFile{}, protocol.Errorf(protocol.CodeInternalError, "the computer sent %s with neither a body nor a blob handle", ret.RelPath)
	}
	if f.size == 0 {
		f.size = int64(len(f.data))
	}
	f.binary = !textMIME(f.mime) && !sanitize.LooksLikeText(f.data)
	if !f.binary {
		f.text = common.Sanitize(string(f.data))
	}
	return f, nil
}

// textMIME reports whether a MIME type is text to show.
func textMIME(m string) bool {
	m, _, _ = mime.ParseMediaType(m)
	return strings.HasPrefix(m, "text/") || strings.HasSuffix(m, "+json") || strings.HasSuffix(m, "+xml") ||
		m == "application/json" || m == "application/x-yaml" || m == "application/yaml" || m == "application/xml"
}

func (s *SkillDoc) SetSize(w, h int) tea.Cmd {
	s.w, s.h = w, h
	s.layout()
	return nil
}

func (s *SkillDoc) layout() {
	extra := 1
	if s.err != "" || s.live.Gone() {
		extra++
	}
	s.pg.SetSize(s.w, max(s.h-extra, 1))
	s.render()
}

// render lays the file out for the current width.
func (s *SkillDoc) render() {
	if s.w <= 0 {
		return
	}
	st := s.c.Styles
	var b strings.Builder
	if s.rel == "" {
		b.WriteString(st.Muted.Render(common.Sanitize(s.ref.Description)) + "\n")
		b.WriteString(st.Label.Render(common.OneLine(s.metaLine())) + "\n")
	}
	f := s.file
	switch {
	case !s.loaded:
	case f.binary:
		b.WriteString("\n" + st.Label.Render(common.OneLine(cmp.Or(f.mime, "binary data")+" · "+common.Bytes(f.size))) + "\n" +
			st.Muted.Render("a binary file: s saves it, o opens it with your viewer") + "\n")
	case isMarkdownFile(s.fileName(), f.mime):
		b.WriteString("\n" + render.Markdown(f.text, s.w, s.c.Styles.Glamour))
	default:
		b.WriteString("\n" + render.Markdown(codeBlock(f.text, strings.TrimPrefix(path.Ext(s.fileName()), ".")), s.w, s.c.Styles.Glamour))
	}
	y := s.pg.YOffset()
	s.pg.SetContent(b.String())
	s.pg.SetY(y)
}

func (s *SkillDoc) metaLine() string {
	meta := []string{"source " + s.ref.Source}
	if len(s.ref.Tags) > 0 {
		meta = append(meta, "tags "+strings.Join(s.ref.Tags, ", "))
	}
	if s.ref.License != "" {
		meta = append(meta, "license "+s.ref.License)
	}
	if len(s.ref.AllowedTools) > 0 {
		meta = append(meta, "allowed tools "+strings.Join(s.ref.AllowedTools, ", "))
	}
	return strings.Join(meta, " · ")
}

func isMarkdownFile(name, mimeType string) bool {
	m, _, _ := mime.ParseMediaType(mimeType)
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return m == "text/markdown"
}

// codeBlock puts text in a fenced code block of language lang.
func codeBlock(text, lang string) string {
	f := fence(text)
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

func (s *SkillDoc) relayout() tea.Cmd {
	s.layout()
	return nil
}

func (s *SkillDoc) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := s.live.Handle(msg, s.relayout, s.loadCmd); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case skillDocMsg:
		if msg.req != s.req {
			return nil
		}
		s.loading = false
		if s.live.Done() {
			return s.loadCmd()
		}
		if msg.err != nil {
			s.err = common.DescribeError(msg.err, common.OpSkills)
		} else {
			s.err, s.loaded, s.file = "", true, msg.file
			s.c.Refreshed = s.c.Now()
		}
		s.layout()
	case common.ThemeMsg:
		s.render()
	case tea.KeyPressMsg:
		k := s.c.Keys
		switch {
		case key.Matches(msg, k.Nav.Back):
			return common.PopCmd
		case key.Matches(msg, k.Global.Refresh):
			return s.live.RereadCmd(s.loadCmd)
		case key.Matches(msg, k.Page.Links):
			return s.linksCmd()
		}
		s.pg.Update(msg, k)
	case tea.MouseWheelMsg:
		s.pg.Update(msg, s.c.Keys)
	}
	return nil
}

// linksCmd opens the picker of the file's links: one to another file of
// the SKILL opens it here; a web link opens with the browser.
func (s *SkillDoc) linksCmd() tea.Cmd {
	if !s.loaded || s.file.binary {
		s.c.Notice = "no links here"
		return nil
	}
	var links []pageLink
	if isMarkdownFile(s.fileName(), s.file.mime) {
		links = markdownLinks(s.file.text)
	}
	if len(links) == 0 {
		s.c.Notice = "this file has no links"
		return nil
	}
	items := make([]picker.Item, len(links))
	for i, l := range links {
		items[i] = picker.Item{Label: l.text, Detail: l.url}
	}
	p := picker.New(s.c, "Links in "+s.fileName(), items, 0, func(sel []int) tea.Cmd {
		if len(sel) != 1 {
			return nil
		}
		return s.followCmd(links[sel[0]].url)
	})
	p.Filterable = true
	return picker.OpenCmd(p)
}

// followCmd follows a link of the file: a path inside the SKILL's folder
// (relative to this file) opens that file; an anchor or a path outside
// the folder is said to be so; anything with a scheme opens with the
// browser.
func (s *SkillDoc) followCmd(raw string) tea.Cmd {
	raw = strings.TrimSpace(raw)
	switch classifyLink(raw) {
	case linkExternal:
		return openExternalCmd(s.c, raw)
	case linkAnchor:
		s.c.Notice = "a link to a heading of this file: scroll to it"
		return nil
	case linkDPE:
		s.c.Notice = "a dpe:// link: open the documents (D) and paste it"
		return nil
	}
	rel, ok := skillLinkPath(s.fileName(), raw)
	if !ok {
		s.c.Notice = "the link " + common.OneLine(raw) + " leaves the SKILL's folder: not followed"
		return nil
	}
	if rel == "SKILL.md" {
		rel = ""
	}
	return common.PushCmd(NewSkillFile(s.c, s.comp, s.ref, rel))
}

// skillLinkPath resolves a relative link of the file from (a path in the
// SKILL's folder) to a path in that folder; false when it is not one.
func skillLinkPath(from, raw string) (string, bool) {
	if strings.HasPrefix(strings.ToLower(raw), "file:") || strings.HasPrefix(raw, "/") {
		return "", false
	}
	raw, _, _ = strings.Cut(raw, "#")
	raw, _, _ = strings.Cut(raw, "?")
	if raw == "" {
		return "", false
	}
	p := path.Clean(path.Join(path.Dir(from), raw))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

func (s *SkillDoc) View() string {
	st := s.c.Styles
	lines := computerHead(st, common.OneLine(s.ref.Name), []string{common.OneLine(s.fileName())}, s.loading, s.live.Gone(), s.err)
	lines = append(lines, s.pg.View(st))
	return strings.Join(lines, "\n")
}

// Export saves, pages or opens the file as it is: a text file under its
// own extension, a binary one too, opened with the desktop's viewer.
func (s *SkillDoc) Export() (common.ExportJob, bool) {
	if !s.loaded {
		return common.ExportJob{}, false
	}
	name := s.fileName()
	ext := path.Ext(name)
	switch {
	case ext == "" && s.file.binary:
		ext = ".bin"
	case ext == "":
		ext = ".txt"
	}
	stem := strings.TrimSuffix(s.ref.Name+"-"+strings.ReplaceAll(name, "/", "-"), ext)
	content := s.file.text
	if s.file.binary {
		content = string(s.file.data)
	}
	job := common.StaticExport(stem, s.ref.Name+" "+name, content)
	job.Ext, job.Viewer = ext, s.file.binary
	return job, true
}

func (s *SkillDoc) Crumb() string {
	if s.rel != "" {
		return common.OneLine(path.Base(s.rel))
	}
	return common.OneLine(s.ref.Name)
}

func (s *SkillDoc) Keys() help.KeyMap {
	k := s.c.Keys
	return keymap.HelpKeys{
		Short: []key.Binding{k.Nav.Up, k.Nav.Down, k.Page.Links, k.Nav.Back, k.Global.Refresh, k.Global.Help, k.Global.Quit},
		Full:  [][]key.Binding{{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom, k.Page.Links, k.Nav.Back, k.Global.Refresh}},
	}
}

func (s *SkillDoc) URI() string      { return common.OneLine(s.ref.URI) }
func (s *SkillDoc) Capturing() bool  { return false }
func (s *SkillDoc) Computer() string { return s.comp }
func (s *SkillDoc) Status() string   { return "" }
