package tui

import (
	"path/filepath"
	"testing"

	"github.com/smcp-browse/smcp-browse/internal/testutil"
)

// Golden frames of every screen at 100×30 (and the wide catalog at 140×36),
// ANSI-stripped. Regenerate with: go test ./tui -run TestGolden -update
func TestGolden(t *testing.T) {
	const w, h = 100, 30
	cases := []struct {
		name  string
		size  [2]int
		start string // Options.Computer
		keys  []string
	}{
		{"computers", [2]int{w, h}, "", nil},
		{"catalog", [2]int{w, h}, "laptop", nil},
		{"catalog_wide_preview", [2]int{140, 36}, "laptop", []string{"down"}},
		{"catalog_filter_typing", [2]int{w, h}, "laptop", []string{"/", "g", "u", "i", "d", "e"}},
		{"catalog_filtered", [2]int{w, h}, "laptop", []string{"/", "财", "务", "enter"}},
		{"catalog_type_picker", [2]int{w, h}, "laptop", []string{"t"}},
		{"document", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter"}},
		{"page_rendered", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter"}},
		{"page_rendered_narrow", [2]int{34, 24}, "laptop", []string{"j", "j", "j", "enter", "enter"}},
		{"page_json", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "m"}},
		{"page_text", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "m", "m"}},
		{"page_elements", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "e", "j", "j"}},
		{"page_category_picker", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "c", "j", "j", "j", "j", "space"}},
		{"page_search", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "/", "Q", "4"}},
		{"element", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "e", "j", "j", "enter"}},
		{"desktop", [2]int{w, h}, "laptop", []string{"d"}},
		{"skills", [2]int{w, h}, "laptop", []string{"K"}},
		{"skill_doc", [2]int{w, h}, "laptop", []string{"K", "enter"}},
		{"tools", [2]int{w, h}, "laptop", []string{"M"}},
		{"tool_form", [2]int{w, h}, "laptop", []string{"M", "enter"}},
		{"tool_result_blob", [2]int{w, h}, "laptop", []string{"M", "G", "enter", "ctrl+s", "]"}},
		{"help_page", [2]int{w, h}, "laptop", []string{"j", "j", "j", "enter", "enter", "?"}},
		{"untrusted_notes", [2]int{w, h}, "laptop", []string{"enter", "enter"}},
		{"narrow_catalog", [2]int{60, 20}, "laptop", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := testOptions()
			o.Computer = tc.start
			hs := newHarness(t, newFake(), o, tc.size[0], tc.size[1])
			hs.press(tc.keys...)
			frame := hs.app.View().Content
			checkFrame(t, frame, tc.size[0], tc.size[1])
			testutil.Golden(t, filepath.Join(tuiGoldens, tc.name+".golden"), goldenFrame(hs.screen()))
		})
	}
}
