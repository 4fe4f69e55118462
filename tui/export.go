package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/smcp-browse/smcp-browse/tui/common"
)

// exportTimeout bounds the reads of one export (a whole document).
const exportTimeout = 5 * time.Minute

// exportedMsg carries a built export to what asked for it.
type exportedMsg struct {
	job  common.ExportJob
	how  exportUse
	md   string
	err  error
	path string // where it was written (save)
}

// exportUse says what an export is for.
type exportUse int

const (
	useSave exportUse = iota
	usePager
	useEditor
)

// execDoneMsg is sent when the pager or the editor exits.
type execDoneMsg struct {
	what string
	temp string // a temporary file to remove, "" when none
	err  error
}

// exportCmd starts an export of the top screen for how.
func (a *App) exportCmd(how exportUse) tea.Cmd {
	ex, ok := a.top().(common.Exporter)
	var job common.ExportJob
	if ok {
		job, ok = ex.Export()
	}
	if !ok {
		a.c.Notice = "nothing to " + [...]string{"save", "page", "edit"}[how] + " here: choose a document, page or element"
		return nil
	}
	if how == useEditor && job.File != "" {
		return a.execCmd("editor", a.c.Opts.Editor, job.File, "")
	}
	a.c.Notice = "reading " + job.Title + "…"
	dir, backend := a.c.SaveDir(), a.c.Backend
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = exportedMsg{job: job, how: how, err: fmt.Errorf("backend panic: %v", r)}
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), exportTimeout)
		defer cancel()
		md, err := job.Build(ctx, backend)
		out := exportedMsg{job: job, how: how, md: md, err: err}
		if err == nil && how == useSave {
			out.path, out.err = writeNew(dir, safeName(job.Name), extOf(job), md)
		}
		return out
	}
}

// exported finishes an export: a notice for a save, the pager or the editor
// on a temporary file otherwise.
func (a *App) exported(m exportedMsg) tea.Cmd {
	verb := [...]string{"save", "page", "edit"}[m.how]
	if m.err != nil {
		a.c.Notice = verb + " failed: " + m.err.Error()
		return nil
	}
	if m.how == useSave {
		a.c.Notice = "saved " + m.path
		return nil
	}
	temp, err := writeTemp(m.job.Name, extOf(m.job), m.md)
	if err != nil {
		a.c.Notice = err.Error()
		return nil
	}
	if m.job.Viewer && m.how == usePager {
		// Left for the viewer, which may outlive the browser.
		return openViewerCmd(a.c.Sys, temp)
	}
	if m.how == useEditor {
		a.c.Notice = "editing a copy (the document is not a file on this machine)"
		return a.execCmd("editor", a.c.Opts.Editor, temp, temp)
	}
	a.c.Notice = "" // read: the pager has it
	return a.execCmd("pager", a.c.Opts.Pager, temp, temp)
}

// extOf is the extension a job's file is saved under.
func extOf(job common.ExportJob) string {
	if job.Ext == "" || job.Ext == "." {
		return ".md"
	}
	return "." + safeName(strings.TrimPrefix(job.Ext, "."))
}

// openViewerCmd opens path with the desktop's opener (xdg-open, open).
func openViewerCmd(sys common.System, path string) tea.Cmd {
	return func() tea.Msg {
		for _, name := range []string{"xdg-open", "open"} {
			p, err := sys.LookPath(name)
			if err != nil {
				continue
			}
			if err := sys.Start(p, []string{path}); err != nil {
				return common.NoticeMsg("open " + path + " with " + name + ": " + err.Error())
			}
			return common.NoticeMsg("opened " + path + " with " + name)
		}
		return common.NoticeMsg("no viewer found (xdg-open, open): the file is " + path)
	}
}

// writeTemp writes content to a new temporary file with extension ext.
func writeTemp(name, ext, md string) (string, error) {
	f, err := os.CreateTemp("", "smcp-browse-"+safeName(name)+"-*"+ext)
	if err != nil {
		return "", fmt.Errorf("temporary file: %w", err)
	}
	_, werr := f.WriteString(md)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return "", fmt.Errorf("temporary file: %w", err)
	}
	return f.Name(), nil
}

// execCmd runs command (split on spaces, as $PAGER and $EDITOR are) on path
// with the terminal handed over; temp is removed afterwards.
func (a *App) execCmd(what, command, path, temp string) tea.Cmd {
	args := strings.Fields(command)
	if len(args) == 0 {
		a.c.Notice = "no " + what + " configured"
		return nil
	}
	c := exec.Command(args[0], append(args[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return execDoneMsg{what: what, temp: temp, err: err} })
}

// cleanup removes the temporary file and reports a failure.
func (m execDoneMsg) cleanup() tea.Cmd {
	return func() tea.Msg {
		if m.temp != "" {
			_ = os.Remove(m.temp)
		}
		if m.err != nil {
			return common.NoticeMsg(m.what + " failed: " + m.err.Error())
		}
		return nil
	}
}

// writeNew creates dir/stem+ext (stem.md), or dir/stem-2+ext and so on when
// taken, and returns its absolute path.
func writeNew(dir, stem, ext, content string) (string, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	for i := 1; i < 1000; i++ {
		name := stem + ext
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create %s: %w", path, err)
		}
		if _, err := f.WriteString(content); err != nil {
			_ = f.Close()
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return "", fmt.Errorf("close %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("no free file name for %s in %s", stem, dir)
}

// safeName turns a doc-ref or element ID into a file name stem: letters,
// digits, '-', '_' and '.' survive, anything else (path separators included)
// becomes '_'.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 96 {
			break
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if out == "" {
		out = "export"
	}
	return out
}
