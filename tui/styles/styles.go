// Package styles holds every lipgloss style the browser draws with, built
// from one palette for a dark or light background (or none, for NO_COLOR).
package styles

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Styles holds every lipgloss style the browser draws with, so that a theme
// is one value. Build it with NewStyles.
type Styles struct {
	Dark    bool // the palette is for a dark background
	NoColor bool // NO_COLOR: attributes only, no colours

	Header      lipgloss.Style // the breadcrumb bar
	Crumb       lipgloss.Style
	CrumbLast   lipgloss.Style
	CrumbSep    lipgloss.Style
	Body        lipgloss.Style
	Status      lipgloss.Style // the status bar
	Connected   lipgloss.Style
	Reconnect   lipgloss.Style
	Closed      lipgloss.Style
	StatusInfo  lipgloss.Style // filters, refresh time
	StatusNote  lipgloss.Style // transient notices (copied, saved, what changed)
	StatusError lipgloss.Style
	Help        help.Styles

	Title       lipgloss.Style
	Muted       lipgloss.Style
	Label       lipgloss.Style
	Keyword     lipgloss.Style
	Error       lipgloss.Style // an error shown where it happened
	Warning     lipgloss.Style
	Selected    lipgloss.Style // the highlighted row
	Fresh       lipgloss.Style // the marker of rows that just changed
	ColumnHead  lipgloss.Style
	Pane        lipgloss.Style // the preview and element side panes
	PaneFocused lipgloss.Style
	Match       lipgloss.Style // search matches
	MatchActive lipgloss.Style
	Prompt      lipgloss.Style
	Window      lipgloss.Style // a Desktop window's title bar
	Badge       lipgloss.Style
	Badges      map[string]color.Color

	// Glamour is the glamour standard style for rendered Markdown.
	Glamour string
	// Chroma is the chroma style that colours JSON.
	Chroma string
}

// New returns the theme for a dark or light background; noColor keeps
// only attributes (bold, reverse, underline), as NO_COLOR asks.
func New(dark, noColor bool) Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkHex string) color.Color {
		if noColor {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(darkHex))
	}
	var (
		fg      = c("#1F2328", "#E6EDF3")
		muted   = c("#6E7781", "#8B949E")
		accent  = c("#8250DF", "#BC8CFF")
		accent2 = c("#0969DA", "#58A6FF")
		green   = c("#1A7F37", "#3FB950")
		yellow  = c("#9A6700", "#D29922")
		red     = c("#CF222E", "#F85149")
		barBg   = c("#EAEEF2", "#21262D")
		selBg   = c("#DDF4FF", "#1F3A5F")
	)
	s := Styles{Dark: dark, NoColor: noColor}
	s.Header = lipgloss.NewStyle().Background(barBg).Foreground(fg)
	s.Crumb = lipgloss.NewStyle().Background(barBg).Foreground(muted)
	s.CrumbLast = lipgloss.NewStyle().Background(barBg).Foreground(accent).Bold(true)
	s.CrumbSep = lipgloss.NewStyle().Background(barBg).Foreground(muted)
	s.Body = lipgloss.NewStyle()
	s.Status = lipgloss.NewStyle().Background(barBg).Foreground(fg)
	s.Connected = lipgloss.NewStyle().Background(barBg).Foreground(green)
	s.Reconnect = lipgloss.NewStyle().Background(barBg).Foreground(yellow).Bold(true)
	s.Closed = lipgloss.NewStyle().Background(barBg).Foreground(red).Bold(true)
	s.StatusInfo = lipgloss.NewStyle().Background(barBg).Foreground(muted)
	s.StatusNote = lipgloss.NewStyle().Background(barBg).Foreground(accent2)
	s.StatusError = lipgloss.NewStyle().Background(barBg).Foreground(red).Bold(true)
	s.Help = help.DefaultStyles(dark)
	if noColor {
		s.Help = help.Styles{
			ShortKey: lipgloss.NewStyle().Bold(true), ShortDesc: lipgloss.NewStyle(),
			ShortSeparator: lipgloss.NewStyle(), Ellipsis: lipgloss.NewStyle(),
			FullKey: lipgloss.NewStyle().Bold(true), FullDesc: lipgloss.NewStyle(),
			FullSeparator: lipgloss.NewStyle(),
		}
	}

	s.Title = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Muted = lipgloss.NewStyle().Foreground(muted)
	s.Label = lipgloss.NewStyle().Foreground(muted)
	s.Keyword = lipgloss.NewStyle().Foreground(accent2)
	s.Error = lipgloss.NewStyle().Foreground(red).Bold(true)
	s.Warning = lipgloss.NewStyle().Foreground(yellow)
	s.Selected = lipgloss.NewStyle().Background(selBg).Foreground(fg).Bold(true)
	if noColor {
		s.Selected = lipgloss.NewStyle().Reverse(true)
	}
	s.Fresh = lipgloss.NewStyle().Foreground(green).Bold(true)
	s.ColumnHead = lipgloss.NewStyle().Foreground(muted).Underline(true)
	s.Pane = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(muted).Padding(0, 1)
	s.PaneFocused = s.Pane.BorderForeground(accent)
	s.Match = lipgloss.NewStyle().Background(c("#FFF8C5", "#5A4A00")).Foreground(fg)
	s.MatchActive = lipgloss.NewStyle().Background(c("#D4A72C", "#D29922")).Foreground(c("#000000", "#000000")).Bold(true)
	if noColor {
		s.Match = lipgloss.NewStyle().Underline(true)
		s.MatchActive = lipgloss.NewStyle().Reverse(true)
	}
	s.Prompt = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Window = lipgloss.NewStyle().Background(barBg).Foreground(accent2).Bold(true)
	s.Badge = lipgloss.NewStyle().Bold(true)
	s.Badges = map[string]color.Color{
		"pdf": red, "docx": accent2, "doc": accent2, "xlsx": green, "xls": green,
		"csv": green, "pptx": yellow, "ppt": yellow, "md": accent, "txt": muted,
	}
	s.Glamour, s.Chroma = "dark", "monokai"
	if !dark {
		s.Glamour, s.Chroma = "light", "github"
	}
	if noColor {
		s.Glamour, s.Chroma = "notty", ""
	}
	return s
}

// StyleInput gives a text field the theme's prompt and placeholder styles
// and a steady cursor.
func (s Styles) StyleInput(ti *textinput.Model) {
	st := ti.Styles()
	st.Focused.Prompt, st.Blurred.Prompt = s.Prompt, s.Prompt
	st.Focused.Placeholder, st.Blurred.Placeholder = s.Muted, s.Muted
	st.Cursor.Blink = false
	ti.SetStyles(st)
}

// StyleTextArea gives a multi-line text field the theme's colours, a
// steady cursor, and a line number column in the muted colour.
func (s Styles) StyleTextArea(ta *textarea.Model) {
	st := textarea.DefaultStyles(s.Dark)
	if s.NoColor {
		st = textarea.Styles{}
	}
	for _, state := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		state.Prompt = s.Prompt
		state.Placeholder = s.Muted
		state.LineNumber = s.Muted
		state.CursorLine = lipgloss.NewStyle()
	}
	st.Cursor.Blink = false
	ta.SetStyles(st)
}
