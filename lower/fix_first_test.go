package lower

import (
	"context"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// fixFirstSrc: a call only fallback lowers (30x10 float32 on 128
// threads) and one gmem_smem lowers (64x64).
const fixFirstSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def two(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (30, 10), "float32")
    B = T.match_buffer(B_ptr, (64, 64), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((30, 10), "float32", scope="shared")
    B_s = T.alloc_buffer((64, 64), "float32", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
    Tx.cta.copy(B_s[:, :], B[:, :])
# tilels: reference=0.25
`

// TestFixFirst: FixFirst changes nothing before FallbackNote computed the
// fix; after it, the warning says the fix first, and the code action
// (QuickFixes) returns the very fixes FallbackNote computed, not a second
// computation.
func TestFixFirst(t *testing.T) {
	snap, err := NewSession(Options{}).Analyze(context.Background(), source.NewFile("k.py", []byte(fixFirstSrc)))
	if err != nil {
		t.Fatal(err)
	}
	out, pending := snap.FixFirst(snap.Diags)
	if pending != 1 || &out[0] != &snap.Diags[0] {
		t.Fatalf("before any fix: %d pending (want 1), diagnostics copied %v", pending, &out[0] != &snap.Diags[0])
	}
	todo := snap.Pending(snap.Diags, -1)
	if len(todo) != 1 || todo[0].Code != CodeFallbackOnly {
		t.Fatalf("Pending: %+v", todo)
	}
	note := snap.FallbackNote(Options{}, todo[0])
	if want := "change the tile extent 30 to 32 and 10 to 12 (gmem_smem applies, verified)"; note != want {
		t.Fatalf("note %q, want %q", note, want)
	}
	out, pending = snap.FixFirst(snap.Diags)
	if pending != 0 || len(snap.Pending(snap.Diags, -1)) != 0 {
		t.Fatalf("%d still pending", pending)
	}
	var msg string
	for _, d := range out {
		if d.Code == CodeFallbackOnly {
			msg = d.Message
		}
	}
	const want = "copy lowers only through fallback (scalar, single thread); fix: change the tile extent 30 to 32 and 10 to 12 (gmem_smem applies, verified) — gmem_smem: region size 300 not divisible by thread_cnt=128"
	if !strings.HasPrefix(msg, want) {
		t.Fatalf("message:\n%s\nwant prefix\n%s", msg, want)
	}
	for _, d := range snap.Diags {
		if strings.Contains(d.Message, "fix:") {
			t.Fatalf("FixFirst changed the snapshot's own diagnostics: %s", d.Message)
		}
	}
	fixes := snap.QuickFixes(Options{}, pending0(t, snap).Span.Start, pending0(t, snap).Span.End)
	entry, ok := snap.fixes.known(perfKey{pending0(t, snap).Span, CodeFallbackOnly})
	if !ok || len(fixes) == 0 || len(entry.fixes) == 0 || len(fixes[0].More) == 0 || &fixes[0].More[0] != &entry.fixes[0].More[0] || !fixes[0].Preferred {
		t.Fatalf("the code action's fixes are not the cached ones (the same edits in memory): %+v", fixes)
	}
	if !strings.HasPrefix(fixes[0].Title, "Change the tile extent 30 to 32 and 10 to 12:") {
		t.Errorf("preferred fix %q does not match the note", fixes[0].Title)
	}
}

func pending0(t *testing.T, snap *Snapshot) (d diag.Diagnostic) {
	t.Helper()
	for _, d := range snap.Diags {
		if d.Code == CodeFallbackOnly {
			return d
		}
	}
	t.Fatal("no fallback-only warning")
	return
}

// TestFixFirstResult: tilels --lower's text is the editor's after the
// background fix: the same message in Result.Diags and the kernel's.
func TestFixFirstResult(t *testing.T) {
	res := Analyze(source.NewFile("k.py", []byte(fixFirstSrc)), Options{})
	FixFirstResult(res, Options{})
	snap, _ := NewSession(Options{}).Analyze(context.Background(), source.NewFile("k.py", []byte(fixFirstSrc)))
	for _, d := range snap.Diags {
		if d.Code == CodeFallbackOnly {
			snap.FallbackNote(Options{}, d)
		}
	}
	lsp, _ := snap.FixFirst(snap.Diags)
	n := 0
	for i, d := range res.Diags {
		if d.Code != CodeFallbackOnly {
			continue
		}
		n++
		if d.Message != lsp[i].Message || !strings.Contains(d.Message, "; fix: ") {
			t.Errorf("headless %q\neditor   %q", d.Message, lsp[i].Message)
		}
		found := false
		for _, kd := range res.Kernels[0].Diags {
			found = found || kd.Code == CodeFallbackOnly && kd.Message == d.Message
		}
		if !found {
			t.Errorf("the kernel record's warning is not rewritten: %+v", res.Kernels[0].Diags)
		}
	}
	if n != 1 {
		t.Fatalf("%d fallback-only warnings, want 1", n)
	}
}

// TestFixCacheSingleFlight: the background (FallbackNote) and code
// actions (QuickFixes) asking for one warning's fixes at the same time
// compute them once: every caller gets the same edits in memory.
func TestFixCacheSingleFlight(t *testing.T) {
	snap, err := NewSession(Options{}).Analyze(context.Background(), source.NewFile("k.py", []byte(fixFirstSrc)))
	if err != nil {
		t.Fatal(err)
	}
	d := pending0(t, snap)
	const n = 4
	got := make([]*Edit, n)
	notes := make([]string, n)
	done := make(chan int)
	for g := range n {
		go func() {
			defer func() { done <- g }()
			if g%2 == 0 {
				notes[g] = snap.FallbackNote(Options{}, d)
			}
			if fs := snap.QuickFixes(Options{}, d.Span.Start, d.Span.End); len(fs) > 0 && len(fs[0].More) > 0 {
				got[g] = &fs[0].More[0]
			}
		}()
	}
	for range n {
		<-done
	}
	for g := range n {
		if got[g] == nil || got[g] != got[0] {
			t.Fatalf("caller %d got other edits (%p, first %p): computed more than once", g, got[g], got[0])
		}
		if g%2 == 0 && notes[g] != notes[0] {
			t.Fatalf("notes differ: %q %q", notes[g], notes[0])
		}
	}
}
