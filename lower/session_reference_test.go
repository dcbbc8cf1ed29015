package lower

import (
	"context"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/release"
)

// refKernel is a kernel whose copy dispatches differently under 0.25
// (gmem_smem) and later releases (vec_auto).
const refKernel = `

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((128, 64), "float16", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
`

// TestSessionReferenceParse replays edits (minimised from the random edits
// of TestSessionMatchesAnalyze, cases/seed2 step 384 and factory/seed7
// step 249) after which the release a file shows changes through its
// syntax tree only, not through the texts referenceEditChanges counts near
// the edit: the session must analyse them under the new release, as
// Analyze does.
func TestSessionReferenceParse(t *testing.T) {
	const head = "from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n"
	// The keyword argument lies further from the edit than the longest
	// text referenceEditChanges counts; the missing comma after it is
	// what makes the parse inside the unclosed bracket drop the call.
	helper := func(open string, arg ...string) string {
		return "\n\ndef helper(rows, dtype):\n    T.device_en" + open + "try(" + strings.Join(arg, "") + ")\n" +
			"    A_s = T.alloc_buffer((rows, 32, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), dtype,dispatch=\"tma\" scope=\"shared\")\n"
	}
	for _, tc := range []struct {
		name     string
		texts    []string
		from, to release.Release
		// partial is a version the session must analyse in part.
		partial int
	}{
		// An unclosed bracket far before `dispatch="tma"` (0.25 only)
		// makes it no keyword argument: the file shows nothing, the
		// newest release; closing it again shows 0.25.
		{"unclosed bracket hides dispatch", []string{
			head + helper("") + refKernel,
			head + helper("[") + refKernel,
			head + helper("") + refKernel,
		}, release.R025, release.Newest, 0},
		// The same after an edit of the helper that the session analysed
		// in part (the previous marks are its segment's).
		{"unclosed bracket after a partial update", []string{
			head + helper("") + refKernel,
			head + helper("", "1") + refKernel,
			head + helper("[", "1") + refKernel,
		}, release.R025, release.Newest, 1},
		// `tile as T` makes T.Buffer read as Tx.Buffer (0.25 only); the
		// import edit changes no text referenceEditChanges counts.
		{"alias turns T.Buffer into Tx.Buffer", []string{
			"from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as T\n\n\ndef helper(x):\n    return T.Buffer((4,), \"float16\")\n" + strings.ReplaceAll(refKernel, "Tx.", "T."),
			"from tvm.script import tirx as T\nfrom tvm.script.tirx import tile as Tx\n\n\ndef helper(x):\n    return T.Buffer((4,), \"float16\")\n" + strings.ReplaceAll(refKernel, "Tx.", "T."),
		}, release.R025, release.Newest, 0},
		// Removing a string's closing quotes far before a pin comment
		// makes the pin string text.
		{"quotes hide a pin", []string{
			head + "\n\nS = \"\"\"a\"\"\" + \"" + strings.Repeat("b", 100) + "\"\n# tilels: reference=0.25\nY = 2  # \"\"\"\n" + refKernel,
			head + "\n\nS = \"\"\"a + \"" + strings.Repeat("b", 100) + "\"\n# tilels: reference=0.25\nY = 2  # \"\"\"\n" + refKernel,
			head + "\n\nS = \"\"\"a\"\"\" + \"" + strings.Repeat("b", 100) + "\"\n# tilels: reference=0.25\nY = 2  # \"\"\"\n" + refKernel,
		}, release.R025, release.Newest, 0},
		// The pin's release edited in place.
		{"pin edited", []string{
			head + "\n\nX = 1\n# tilels: reference=0.25\nY = 2\n" + refKernel,
			head + "\n\nX = 1\n# tilels: reference=0.27\nY = 2\n" + refKernel,
		}, release.R025, release.Newest, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first version shows from, a later one to.
			var rels []string
			changes := false
			for i, text := range tc.texts {
				r := Analyze(source.NewFile("k.py", []byte(text)), Options{}).Reference.Release
				rels = append(rels, r.Short())
				changes = changes || i > 0 && r == tc.to
				if i == 0 && r != tc.from {
					changes = false
					break
				}
			}
			if !changes {
				t.Fatalf("releases %v, want %s then %s (the case no longer tests a change)", rels, tc.from.Short(), tc.to.Short())
			}
			sess := NewSession(Options{})
			for i, text := range tc.texts {
				snap, err := sess.Analyze(context.Background(), source.NewFile("k.py", []byte(text)))
				if err != nil {
					t.Fatal(err)
				}
				want := Analyze(source.NewFile("k.py", []byte(text)), Options{})
				if msg := compareSnapshot(snap, want); msg != "" {
					t.Fatalf("version %d (full=%v): %s", i, snap.Full, msg)
				}
				if i > 0 && i == tc.partial && snap.Full {
					t.Fatalf("version %d was analysed whole", i)
				}
			}
		})
	}
}
