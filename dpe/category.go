package dpe

// Category is the kind of a DPE element.
type Category string

// The 19 element categories of the DPE model, with the keys of the element's
// content object each one uses (the renderer reads these keys; servers that
// produce elements write them). The spec's keys come first; the optional
// rich keys after "+" carry what plain text cannot (see README, "Rich
// element content"): clients that read only the spec's keys keep working.
const (
	Text       Category = "text"        // text: string + markdown
	Heading    Category = "heading"     // level: int (1-6), text: string + markdown, anchor
	List       Category = "list"        // ordered: bool, items: []string, start: int (optional) + levels, markers, items_markdown
	Code       Category = "code"        // language: string, code: string
	Table      Category = "table"       // headers: []string, rows: [][]string, total_rows, total_columns (Level 3) + align, headers_markdown, rows_markdown
	PivotTable Category = "pivot_table" // as table
	Chart      Category = "chart"       // chart_type, title, data_summary: string
	Diagram    Category = "diagram"     // title, description: string
	Image      Category = "image"       // url, alt, description: string + within
	Formula    Category = "formula"     // expression: string, cell: string (optional), value (optional)
	Link       Category = "link"        // text, url: string + within
	Annotation Category = "annotation"  // text, author: string
	Header     Category = "header"      // text: string
	Footer     Category = "footer"      // text: string
	Separator  Category = "separator"   // (empty)
	Audio      Category = "audio"       // url, title: string
	Video      Category = "video"       // url, title: string
	Form       Category = "form"        // fields: []string
	Widget     Category = "widget"      // kind, description: string
)

// Rich content keys any element may carry: "quote" (blockquote depth) and
// "indent" (depth of the list item the block belongs to).

// Categories returns the 19 categories in the specification's order.
func Categories() []Category {
	return []Category{
		Text, Heading, List, Code,
		Table, PivotTable,
		Chart, Diagram, Image,
		Formula, Link, Annotation,
		Header, Footer, Separator,
		Audio, Video,
		Form, Widget,
	}
}

// Valid reports whether c is one of the 19 categories.
func (c Category) Valid() bool {
	switch c {
	case Text, Heading, List, Code, Table, PivotTable, Chart, Diagram, Image,
		Formula, Link, Annotation, Header, Footer, Separator, Audio, Video, Form, Widget:
		return true
	}
	return false
}
