package skill

import (
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

func refOf(t *testing.T, fm map[string]any) protocol.A2CSkillRef {
	t.Helper()
	var r protocol.A2CSkillRef
	if err := FillRef(&r, fm); err != nil {
		t.Fatal(err)
	}
	return r
}
