package lower

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkReferencePrint is the cost a session pays on each edit to know
// whether the edit may change the file's release (referencePrint over the
// whole text): on a 3,000-line file.
func BenchmarkReferencePrint(b *testing.B) {
	src, err := os.ReadFile("../testdata/examples/copy_gmem_smem.py")
	if err != nil {
		b.Fatal(err)
	}
	text := []byte(strings.Repeat(string(src), 3000/strings.Count(string(src), "\n")+1))
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		_ = referencePrint(text)
	}
}

// TestReferenceEditChanges checks the windowed test against the whole
// texts' prints on edits at every position of a file with needles.
func TestReferenceEditChanges(t *testing.T) {
	base := "from tvm.backend.cuda.tile_primitive import x\nTx.copy(a, b, dispatch=\"tma\")\n# tilels: reference=0.25\n"
	edits := []string{"", "x", `"`, "tma", `"tma"`, "reference=", "operator", "_auto"}
	for p := 0; p <= len(base); p++ {
		for del := 0; del <= 3 && p+del <= len(base); del++ {
			for _, ins := range edits {
				cur := base[:p] + ins + base[p+del:]
				want := referencePrint([]byte(base)) != referencePrint([]byte(cur))
				// diffRegion's view of the edit: the common prefix and suffix.
				q, oldEnd, newEnd := diffRegion([]byte(base), []byte(cur))
				if got := referenceEditChanges([]byte(base), []byte(cur), q, oldEnd, newEnd); got != want {
					t.Fatalf("edit at %d (-%d +%q): changes %v, want %v", p, del, ins, got, want)
				}
			}
		}
	}
}
