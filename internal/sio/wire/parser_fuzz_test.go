package wire

import (
	"log/slog"
	"testing"
)

// FuzzRawDecoder feeds arbitrary frames to the Socket.IO decoder: it never
// panics or fails, and a valid packet after the junk still decodes.
func FuzzRawDecoder(f *testing.F) {
	for _, s := range []string{
		`42/smcp,1["client:get_tools",{"computer":"pc"}]`, `42/smcp,["x",{`, `451-/smcp,2["x",{"_placeholder":true,"num":0}]`,
		`49garbage`, `0/smcp,{}`, `3/smcp,7[]`, `461-/smcp,1[{"_placeholder":true,"num":5}]`, ``, `4`, `299999999999999999999999[]`,
		`2/smcp,1[]`, `2["connect"]`, `2[5,{}]`, `0/smcp,"x"`, `4/smcp,"refused"`, `1/smcp,{}`,
	} {
		f.Add(s, []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, text string, bin []byte) {
		d := rawParser{log: slog.New(slog.DiscardHandler)}.NewDecoder()
		var n int
		_ = d.On("decoded", func(...any) { n++ })
		for _, frame := range []any{text, bin, text} {
			if err := d.Add(frame); err != nil {
				t.Fatalf("Add returned %v", err)
			}
		}
		before := n
		if err := d.Add(`2/smcp,["server:list_room",{}]`); err != nil {
			t.Fatal(err)
		}
		if n != before+1 {
			t.Fatalf("a valid packet after %q did not decode", text)
		}
	})
}
