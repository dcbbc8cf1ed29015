package lower

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// Bound cases. The evaluator (dsl/eval, docs/binding.md) evaluates a
// kernel def once per distinct set of parameter values a binding source
// gives it; Analyze turns each into one Kernel record carrying its Case.
// The records of one def are adjacent, in case order. A diagnostic every
// case of a def reports is kept once; one only some cases report is kept
// once with the first such case named in the message (eval.MergeCaseDiags).
// Kernel.Diags of a case record hold that case's own diagnostics,
// unmerged: what an editor shows when the user picks the case.

// UnresolvedCall is a tile call that was not dispatched because its
// arguments need a value that no binding source gave (a factory parameter
// without value, a T.constexpr never specialized). It shows as
// "unresolved: needs M" instead of a dispatch result.
type UnresolvedCall struct {
	// Span is the whole call, OpSpan its callee (Tx.warp.copy).
	Span, OpSpan source.Span
	// Op is the tile primitive, Scope its scope ("" when the callee or the
	// scope could not be evaluated).
	Op, Scope string
	// Needs names the parameters to bind, in the order they were needed.
	Needs []string
	// NotModelled, when set, is why the call is not dispatched although
	// nothing needs binding: "not a CUDA kernel: target trn is not
	// modelled".
	NotModelled string
}

// foreignRecord is the record of a kernel written for another target
// (dispatch.Output.Foreign): like a partial record, nothing is dispatched
// or printed for it, and each of its tile calls says why.
func foreignRecord(k *eval.Kernel, out *dispatch.Output) *Kernel {
	kr := &Kernel{Name: k.Func.Name, Span: k.Func.Span, Func: k.Func, Foreign: out.Foreign}
	caseRecord(kr, k)
	why := NotCUDA(out.Foreign)
	ir.WalkStmts(k.Func.Body, func(s ir.Stmt) {
		if tc, ok := s.(*ir.TileCall); ok {
			kr.Unresolved = append(kr.Unresolved, UnresolvedCall{Span: tc.Span, OpSpan: tc.OpSpan, Op: tc.Op, Scope: tc.Scope, NotModelled: why})
		}
	})
	return kr
}

// NotCUDA is the reason given for each tile call of a kernel written for
// target kind.
func NotCUDA(kind string) string {
	return "not a CUDA kernel: target " + kind + " is not modelled"
}

// caseRecord fills the case fields of kr from the evaluated kernel.
func caseRecord(kr *Kernel, k *eval.Kernel) {
	kr.CaseID, kr.CaseSource = k.CaseID, k.CaseSource
	if len(k.Case) == 0 {
		return
	}
	kr.Case = make(map[string]string, len(k.Case))
	kr.CaseNames = make([]string, len(k.Case))
	for i, b := range k.Case {
		kr.Case[b.Name] = eval.Literal(b.Value)
		kr.CaseNames[i] = b.Name
	}
	kr.CaseLabel = eval.CaseString(k.Case)
}

// numberCases sets CaseIndex and CaseCount of records of the same def.
func numberCases(ks []*Kernel) {
	for i := 0; i < len(ks); {
		j := i
		for j < len(ks) && ks[j].Span == ks[i].Span {
			j++
		}
		for n := i; n < j; n++ {
			ks[n].CaseIndex, ks[n].CaseCount = n-i+1, j-i
		}
		i = j
	}
}

// partialRecord builds the record of a kernel whose evaluation needed
// unbound parameters: no dispatch, its tile calls unresolved.
func partialRecord(k *eval.Kernel) *Kernel {
	kr := &Kernel{Name: k.Func.Name, Span: k.Func.Span, Func: k.Func}
	caseRecord(kr, k)
	kr.CaseIndex, kr.CaseCount = 1, 1
	for _, u := range k.Unbound {
		if i := strings.LastIndexByte(u, '.'); i >= 0 {
			u = u[i+1:]
		}
		kr.Needs = append(kr.Needs, u)
	}
	for _, u := range k.Unresolved {
		kr.Unresolved = append(kr.Unresolved, UnresolvedCall{Span: u.Span, OpSpan: u.OpSpan, Op: u.Op, Scope: u.Scope, Needs: u.Needs})
	}
	return kr
}

// ownsDiag reports whether a file diagnostic inside a case record's span
// belongs to every case record's Diags: what evaluation, dispatch and the
// arch check of a case did not report (syntax errors, the case cap).
func ownsDiag(d diag.Diagnostic) bool {
	return d.Code == eval.CodeCaseCap || !strings.HasPrefix(d.Code, "eval/") && !strings.HasPrefix(d.Code, "dispatch/") && d.Code != CodeArch
}

// caseDiags returns the file-level diagnostics of a def's case records:
// each case's evaluation and dispatch diagnostics, merged across the
// cases. own[i] receives case i's unmerged diagnostics.
func caseDiags(ks []*eval.Kernel, outs []*dispatch.Output, prog *eval.Program, own [][]diag.Diagnostic) []diag.Diagnostic {
	groups := make([][]diag.Diagnostic, len(ks))
	labels := make([]string, len(ks))
	for i, k := range ks {
		// Non-nil even when empty: the record then owns no case diagnostic.
		d := append(append(make([]diag.Diagnostic, 0, len(k.Diags)), k.Diags...), dropCascades(outs[i], k.Diags, prog.Diags)...)
		diag.Sort(d)
		groups[i], labels[i] = d, k.CaseLabel()
		own[i] = d
	}
	return eval.MergeCaseDiags(groups, labels)
}

// caseFunc returns the lowered function of k to print: for one of several
// cases of a def, a copy named <name>_case<i> so that the printed kernels
// (and their CUDA symbols) stay distinct.
func caseFunc(k *Kernel) *ir.Func {
	if k.CaseCount <= 1 || k.Lowered == nil {
		return k.Lowered
	}
	f := *k.Lowered
	f.Name = fmt.Sprintf("%s_case%d", f.Name, k.CaseIndex)
	return &f
}
