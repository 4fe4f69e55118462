package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// savedMsg reports the outcome of `s`.
type savedMsg struct {
	path string
	err  error
}

func (m savedMsg) text() string {
	if m.err != nil {
		return "save failed: " + m.err.Error()
	}
	return "saved " + m.path
}

// copiedMsg reports the outcome of `y` through the injected writer.
type copiedMsg struct {
	uri string
	err error
}

func (m copiedMsg) text() string {
	if m.err != nil {
		return "copy failed: " + m.err.Error()
	}
	return "copied " + m.uri
}

// noticeMsg sets the status bar's notice.
type noticeMsg string

// pagerReadyMsg carries the temporary file `o` wrote, ready for the pager.
type pagerReadyMsg struct {
	path string
	err  error
}

// pagerDoneMsg is sent when the pager exits.
type pagerDoneMsg struct {
	path string
	err  error
}

// save writes the top screen's Markdown into SaveDir without overwriting an
// existing file (a numeric suffix is added instead).
func (a *App) save() tea.Cmd {
	ex, ok := a.top().(exporter)
	var name, md string
	if ok {
		name, md, ok = ex.export()
	}
	if !ok {
		a.c.notice = "nothing to save here: open a document, page or element"
		return nil
	}
	dir := a.c.saveDir()
	return func() tea.Msg {
		path, err := writeNew(dir, safeName(name), md)
		return savedMsg{path: path, err: err}
	}
}

// writeNew creates dir/stem.md, or dir/stem-2.md and so on when taken.
func writeNew(dir, stem, content string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	for i := 1; i < 1000; i++ {
		name := stem + ".md"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.md", stem, i)
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

// openPager writes the top screen's Markdown to a temporary file, then runs
// the pager on it (see runPager).
func (a *App) openPager() tea.Cmd {
	ex, ok := a.top().(exporter)
	var name, md string
	if ok {
		name, md, ok = ex.export()
	}
	if !ok {
		a.c.notice = "nothing to page here: open a document, page or element"
		return nil
	}
	return func() tea.Msg {
		f, err := os.CreateTemp("", "smcp-browse-"+safeName(name)+"-*.md")
		if err != nil {
			return pagerReadyMsg{err: fmt.Errorf("temporary file: %w", err)}
		}
		_, werr := f.WriteString(md)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			_ = os.Remove(f.Name())
			return pagerReadyMsg{err: fmt.Errorf("temporary file: %w", err)}
		}
		return pagerReadyMsg{path: f.Name()}
	}
}

func (a *App) runPager(m pagerReadyMsg) tea.Cmd {
	if m.err != nil {
		a.c.notice = m.err.Error()
		return nil
	}
	args := strings.Fields(a.c.opts.Pager)
	if len(args) == 0 {
		args = []string{"less"}
	}
	c := exec.Command(args[0], append(args[1:], m.path)...)
	path := m.path
	return tea.ExecProcess(c, func(err error) tea.Msg { return pagerDoneMsg{path: path, err: err} })
}

// cleanup removes the temporary file and reports a pager failure.
func (m pagerDoneMsg) cleanup() tea.Cmd {
	path, err := m.path, m.err
	return func() tea.Msg {
		_ = os.Remove(path)
		if err != nil {
			return noticeMsg("pager failed: " + err.Error())
		}
		return nil
	}
}
