package lower

import (
	"strings"

	"github.com/tilels/tilels/codegen/cuda"
	"github.com/tilels/tilels/codegen/tirx"
	"github.com/tilels/tilels/ir"
)

// CallText is the lowering of one tile call as a hover shows it: its TIRx
// and its CUDA, each printed alone (not the whole kernel).
type CallText struct {
	// Found reports whether the kernel's lowered function has the call
	// (a call that was not lowered has nothing to print).
	Found bool
	// TIRx is the lowered call from its "# Tx." comment on, at
	// indentation zero ("" when the printer gave no such comment).
	TIRx string
	// CUDA is cuda.PrintCall's text: the "// Tx... -> variant" comment
	// and the braced block; CUDAErr why there is none (an instruction
	// above the target arch, a printing error).
	CUDA    string
	CUDAErr error
}

// CallLowering prints the lowering of call, a tile call of k, for the
// first of its instances (a call a Python loop unrolled has several):
// the TIRx of that lowering alone, and its CUDA as cuda.PrintCall prints
// it in k (the statements outside k's tile calls, none of its other
// calls). Its cost does not grow with the number of calls in k.
func CallLowering(k *Kernel, call *ir.TileCall, opts Options) CallText {
	low := LoweredOf(k, call)
	if low == nil {
		return CallText{}
	}
	out := CallText{Found: true}
	text := tirx.Print(&ir.Func{Name: k.Name, Body: &ir.Block{Stmts: []ir.Stmt{low}}}, ir.Launch{})
	out.TIRx = postDefText(k, call) + tirxExcerpt(text)
	if k.Target != "" {
		return out // a Trainium kernel has no CUDA form
	}
	out.CUDA, out.CUDAErr = cuda.PrintCall(cuda.Kernel{Func: caseFunc(k), Launch: k.Launch}, low, cuda.Options{Arch: PrintArch([]*Kernel{k}, opts)})
	return out
}

// LoweredOf returns the ir.Lowered that replaced call in k's lowered
// function (its first instance, in print order; nil when none), outside
// other tile calls' lowerings.
func LoweredOf(k *Kernel, call *ir.TileCall) *ir.Lowered {
	var found *ir.Lowered
	var walk func(b *ir.Block)
	walk = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			if found != nil {
				return
			}
			switch s := s.(type) {
			case *ir.Lowered:
				if s.Call == call {
					found = s
				}
			case *ir.Block:
				walk(s)
			case *ir.For:
				walk(s.Body)
			case *ir.While:
				walk(s.Body)
			case *ir.If:
				walk(s.Then)
				walk(s.Else)
			}
		}
	}
	if k.Lowered != nil {
		walk(k.Lowered.Host)
		walk(k.Lowered.Body)
	}
	return found
}

// tirxExcerpt keeps the lowered call of a one-statement TIRx function:
// from its "# Tx." comment on, dedented.
func tirxExcerpt(text string) string { return excerptFrom(text, "# Tx.") }

// postDefText is the TIRx of the statements call's lowering placed after
// its operands' definitions (dispatch.Result.PostDef: a gemm_async's
// descriptors), each group under a comment naming the buffer; "" when
// there are none.
func postDefText(k *Kernel, call *ir.TileCall) string {
	var stmts []ir.Stmt
	for _, d := range k.Calls {
		if d.Call != call || d.Result == nil {
			continue
		}
		for _, pd := range d.Result.PostDef {
			stmts = append(stmts, &ir.Comment{Text: "placed after the declaration of " + pd.Buf.Name + ":"})
			stmts = append(stmts, pd.Stmts...)
		}
		break
	}
	if len(stmts) == 0 {
		return ""
	}
	return excerptFrom(tirx.Print(&ir.Func{Name: k.Name, Body: &ir.Block{Stmts: stmts}}, ir.Launch{}), "# placed after")
}

// excerptFrom is text from the first line that starts with prefix (after
// its indentation) on, dedented, without blank lines.
func excerptFrom(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, prefix) {
			ind := len(l) - len(t)
			var out strings.Builder
			for _, m := range lines[i:] {
				if strings.TrimSpace(m) == "" {
					continue
				}
				if len(m) >= ind {
					m = m[ind:]
				}
				out.WriteString(m + "\n")
			}
			return out.String()
		}
	}
	return ""
}
