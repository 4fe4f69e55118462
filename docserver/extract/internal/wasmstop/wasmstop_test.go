package wasmstop

import (
	"bytes"
	"context"
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// module assembles a module of two functions: spin, a loop that never
// ends, and sum(n) = n + (n-1) + ... + 1, counted in a loop; globals is
// the number of globals the module defines before the flag (0 for no
// global section).
func module(globals int) []byte {
	section := func(id byte, body ...byte) []byte {
		return append(binary.AppendUvarint([]byte{id}, uint64(len(body))), body...)
	}
	fn := func(body ...byte) []byte { return append(binary.AppendUvarint(nil, uint64(len(body))), body...) }
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, section(1, 2, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f)...) // () -> (), (i32) -> i32
	m = append(m, section(3, 2, 0, 1)...)
	m = append(m, section(5, 1, 0, 1)...) // one page of memory
	if globals > 0 {
		g := []byte{byte(globals)}
		for range globals {
			g = append(g, 0x7f, 0x01, 0x41, 0x07, 0x0b)
		}
		m = append(m, section(6, g...)...)
	}
	m = append(m, section(7, 2, 4, 's', 'p', 'i', 'n', 0, 0, 3, 's', 'u', 'm', 0, 1)...)
	spin := fn(0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b)
	sum := fn(1, 1, 0x7f,
		0x03, 0x40,
		0x20, 1, 0x20, 0, 0x6a, 0x21, 1, // acc += n
		0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x0d, 0, // n--; br_if n != 0
		0x0b,
		0x20, 1, 0x0b)
	code := append([]byte{2}, spin...)
	code = append(code, sum...)
	return append(m, section(10, code...)...)
}

func instantiate(t *testing.T, bin []byte) api.Module {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	m, err := rt.Instantiate(ctx, bin)
	if err != nil {
		t.Fatalf("the rewritten module does not load: %v", err)
	}
	return m
}

// A rewritten module computes what the original does, and a loop that
// never ends stops when the flag is raised from another goroutine.
func TestStopEndsARunningLoop(t *testing.T) {
	for _, globals := range []int{0, 2} {
		out, err := Rewrite(module(globals))
		if err != nil {
			t.Fatal(err)
		}
		m := instantiate(t, out)
		ctx := context.Background()
		if r, err := m.ExportedFunction("sum").Call(ctx, 100); err != nil || r[0] != 5050 {
			t.Fatalf("globals %d: sum(100) = %v, %v; want 5050", globals, r, err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := m.ExportedFunction("spin").Call(ctx)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("spin returned before the stop: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if !Stop(m) {
			t.Fatal("the rewritten module has no stop flag")
		}
		waitStopped(t, done)
		// Every later call that loops stops at once.
		if _, err := m.ExportedFunction("sum").Call(ctx, 3); err == nil {
			t.Error("a loop after the stop ran")
		}
	}
}

// A module in a long loop does not hold up the garbage collector's
// stop-the-world (WebAssembly code cannot be preempted: it visits Go), so
// the rest of the process runs on and can stop it.
func TestLoopsLetTheCollectorRun(t *testing.T) {
	out, err := Rewrite(module(1))
	if err != nil {
		t.Fatal(err)
	}
	m := instantiate(t, out)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	context.AfterFunc(ctx, func() { Stop(m) })
	done := make(chan error, 1)
	go func() {
		_, err := m.ExportedFunction("spin").Call(context.Background())
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	runtime.GC() // blocks for ever if the loop cannot be preempted
	waitStopped(t, done)
}

// waitStopped waits for a stopped call's error (done delivers it).
func waitStopped(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a stopped loop returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the loop still runs 10 s after its stop")
	}
}

// A module without memory cannot be rewritten (the visits to Go grow
// memory by 0 pages).
func TestRewriteNeedsAMemory(t *testing.T) {
	m := module(0)
	i := bytes.Index(m, []byte{5, 3, 1, 0, 1})
	m = append(m[:i:i], m[i+5:]...)
	if _, err := Rewrite(m); err == nil {
		t.Error("a module without memory was rewritten")
	}
}

// The original module has no flag to raise.
func TestStopNeedsTheRewrite(t *testing.T) {
	if Stop(instantiate(t, module(1))) {
		t.Error("Stop found a flag in a module that was not rewritten")
	}
}

// Malformed modules are refused with an error, never a panic: a module
// cut short inside its code section (the last one) is refused.
func TestRewriteRefusesMalformedModules(t *testing.T) {
	good := module(1)
	code := 8 // the code section's offset: walk the sections to it
	for good[code] != 10 {
		size, n := binary.Uvarint(good[code+1:])
		code += 1 + n + int(size)
	}
	for n := code + 1; n < len(good); n++ {
		if _, err := Rewrite(good[:n]); err == nil {
			t.Errorf("a module cut at %d bytes (code section at %d) was accepted", n, code)
		}
	}
	if _, err := Rewrite([]byte("\x00asm\x02\x00\x00\x00")); err == nil {
		t.Error("version 2 was accepted")
	}
}

func FuzzRewrite(f *testing.F) {
	f.Add(module(0))
	f.Add(module(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		Rewrite(b) // must not panic
	})
}
