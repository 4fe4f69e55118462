package protocol

import (
	"strconv"
	"testing"
)

// Every error code of the package has its name (CodeName), but those the
// base protocol does not name.
func TestEveryCodeHasAName(t *testing.T) {
	unnamed := map[string]bool{"CodeTooManyRequests": true} // this project's; the spec gives it no name
	consts := constants(t, "Code")
	if len(consts) < 30 {
		t.Fatalf("found only %d code constants", len(consts))
	}
	for name, v := range consts {
		code, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s = %s", name, v)
		}
		if got := CodeName(code); (got == "") != unnamed[name] {
			t.Errorf("CodeName(%s = %d) = %q", name, code, got)
		}
	}
}
