package wire

import (
	"strconv"
	"testing"

	"github.com/smcp-browse/smcp-browse/protocol"
)

// Every SMCP event of protocol is read without allocating its name, and
// is the name itself; others are read by the general path.
func TestKnownEventsAreProtocols(t *testing.T) {
	for _, e := range protocol.Events() {
		elem := []byte(strconv.Quote(e))
		name, ok := knownEvent(elem)
		if !ok || name != e {
			t.Errorf("knownEvent(%s) = %q, %v", elem, name, ok)
		}
		if n := testing.AllocsPerRun(100, func() { knownEvent(elem) }); n != 0 {
			t.Errorf("knownEvent(%s): %v allocations", elem, n)
		}
		if got, _, ok := EventName(elem); !ok || got != e {
			t.Errorf("EventName(%s) = %q, %v", elem, got, ok)
		}
	}
	for _, elem := range []string{`"client:other"`, `"notify:enter_office "`, `"client\u003atool_call"`} {
		if name, ok := knownEvent([]byte(elem)); ok {
			t.Errorf("knownEvent(%s) = %q", elem, name)
		}
	}
	if got, _, ok := EventName([]byte(`"client\u003atool_call"`)); !ok || got != protocol.EventToolCall {
		t.Errorf("an escaped name: %q, %v", got, ok)
	}
}
