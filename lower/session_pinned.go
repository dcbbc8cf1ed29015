package lower

import (
	"bytes"
	"strings"

	"github.com/tilels/tilels/dsl/source"
)

// pinnedEdit reports whether the edit old[p:oldEnd] -> cur[p:newEnd]
// must be analysed as a whole file whatever its region turns out to be,
// so that the region's parse can be skipped. It is an edit inside the
// segment of a top-level kernel that cannot be analysed alone because
// module-level code names it (a factory's `_kernel.specialize(...)`) or
// it comes after module-level code that names a kernel. Such an edit's
// region holds that kernel's segment: with it alone kernelEdit declines,
// with more segments changed does, and only an edit between two logical
// lines (unchanged: a comment, blank lines, trailing white space) could
// be analysed in part. So the text must show the edit is not one: it is
// on one line (no line break or '#' in the old or the new text), after
// code on that line (no '#' before it, not right after a ';'), and
// before code on that line (not a '#', ';' or '\') or right after an
// opening bracket or a comma (inside brackets, where the lexer makes no
// NEWLINE). Either way the result is Analyze's: a whole-file analysis is
// always exact, this only saves the parse, and an edit this test
// mistakes costs the partial path it might have taken, never a result.
//
// Measured (BenchmarkSessionFile, the largest TIRx-kernels file, one
// 2,450-line @T.jit kernel that its factory specializes for 4 CONFIGS):
// the region's parse was 2.0 ms of each keystroke's 27 ms of CPU, spent
// before analysing the whole file anyway.
func (s *Snapshot) pinnedEdit(old, cur []byte, p, oldEnd, newEnd int) bool {
	j := segAt(s.segs, source.Pos(p))
	if j < 0 {
		return false
	}
	sg := s.segs[j]
	if !sg.kernel() || source.Pos(p) <= sg.span.Start || source.Pos(oldEnd) >= sg.span.End {
		return false
	}
	name := s.views(sg)[0].Kernel.Name
	if _, named := s.idx.ctxFirst[name]; !named && j <= s.idx.minKernelRef {
		return false
	}
	if bytes.ContainsAny(old[p:oldEnd], "\n\r#") || bytes.ContainsAny(cur[p:newEnd], "\n\r#") {
		return false
	}
	ls := bytes.LastIndexAny(old[:p], "\n\r") + 1
	before := bytes.TrimRight(old[ls:p], " \t\f")
	if len(before) == 0 || bytes.IndexByte(before, '#') >= 0 || before[len(before)-1] == ';' {
		return false
	}
	after := old[oldEnd:]
	if le := bytes.IndexAny(after, "\n\r"); le >= 0 {
		after = after[:le]
	}
	after = bytes.TrimLeft(after, " \t\f")
	if len(after) == 0 {
		return strings.IndexByte("([{,", before[len(before)-1]) >= 0
	}
	return after[0] != '#' && after[0] != ';' && after[0] != '\\'
}
