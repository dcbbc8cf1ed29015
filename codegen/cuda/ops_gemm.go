package cuda

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/ir"
)

// gemmOps prints the intrinsics of the gemm lowering (see ext.go).
var gemmOps = map[string]extOp{
	ir.OpPTXMma: {need: opNeed{sm: 80}, print: printPTXMma},
}

// mmaPTXType is the PTX type of an mma operand dtype.
var mmaPTXType = map[string]string{"float32": "f32", "float16": "f16", "bfloat16": "bf16"}

// mmaShape is one supported m16n8k* shape: registers per thread of A, B
// and C/D (A and B registers are b32, two 16-bit elements each).
type mmaShape struct{ a, b, c int }

var mmaShapes = map[string]mmaShape{
	"m16n8k16": {4, 2, 4},
	"m16n8k8":  {2, 1, 4},
}

// printPTXMma prints T.ptx.mma (ir.OpPTXMma) as a call of its helper.
func printPTXMma(k *kernel, c *ir.Call) string {
	if !k.wantArgs(c, 11) {
		return ""
	}
	var s [7]string
	for i := range s {
		v, ok := k.stringArg(c, i)
		if !ok {
			return ""
		}
		s[i] = v
	}
	shape, ok := mmaShapes[s[0]]
	if !ok || s[1] != "row" || s[2] != "col" {
		k.fail("%s: unsupported shape/layout %s.%s.%s", c.Op, s[0], s[1], s[2])
		return ""
	}
	for _, dt := range s[3:] {
		if _, ok := mmaPTXType[dt]; !ok {
			k.fail("%s: unsupported dtype %s", c.Op, dt)
			return ""
		}
	}
	want := []int{shape.c, shape.a, shape.b, shape.c}
	var args []ir.Expr
	for i, n := range want {
		t, ok := c.Args[7+i].(*ir.Tuple)
		if !ok || len(t.Elems) != n {
			k.fail("%s: operand %d must be a tuple of %d register addresses", c.Op, i, n)
			return ""
		}
		args = append(args, t.Elems...)
	}
	return k.callHelper(mmaHelper(s[0], s[3], s[4], s[5], s[6], shape), args)
}

// mmaHelpers holds the helpers of the reference's instructions, built
// once (read-only afterwards, so concurrent printers may share them).
var mmaHelpers = func() map[string]*helper {
	m := map[string]*helper{}
	for shape, n := range mmaShapes {
		for _, in := range []string{"float16", "bfloat16"} {
			h := newMmaHelper(shape, "float32", in, in, "float32", n)
			m[h.name] = h
		}
	}
	return m
}()

// mmaHelper is ptx_mma_<shape>_row_col_<d>_<a>_<b>_<c>: one
// mma.sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c> (PTX ISA 9.7.14.5.8)
// over register addresses: D and C are f32 registers, A and B b32
// registers holding two 16-bit elements each.
func mmaHelper(shape, d, a, b, cc string, n mmaShape) *helper {
	if h, ok := mmaHelpers[mmaHelperName(shape, d, a, b, cc)]; ok {
		return h
	}
	return newMmaHelper(shape, d, a, b, cc, n)
}

func mmaHelperName(shape, d, a, b, cc string) string {
	return fmt.Sprintf("ptx_mma_%s_row_col_%s_%s_%s_%s", shape, d, a, b, cc)
}

func newMmaHelper(shape, d, a, b, cc string, n mmaShape) *helper {
	name := mmaHelperName(shape, d, a, b, cc)
	var params, outs, ins, dRegs, aRegs, bRegs, cRegs []string
	reg := 0
	add := func(regs *[]string, prefix string, count int, out bool, cons, ctype string) {
		for i := range count {
			p := fmt.Sprintf("%s%d", prefix, i)
			params = append(params, "void* "+p)
			*regs = append(*regs, fmt.Sprintf("%%%d", reg))
			reg++
			if out {
				outs = append(outs, fmt.Sprintf(`"=%s"(*reinterpret_cast<%s*>(%s))`, cons, ctype, p))
			} else {
				ins = append(ins, fmt.Sprintf(`"%s"(*reinterpret_cast<const %s*>(%s))`, cons, ctype, p))
			}
		}
	}
	add(&dRegs, "d", n.c, true, "f", "float")
	add(&aRegs, "a", n.a, false, "r", "unsigned int")
	add(&bRegs, "b", n.b, false, "r", "unsigned int")
	add(&cRegs, "c", n.c, false, "f", "float")
	instr := fmt.Sprintf("mma.sync.aligned.%s.row.col.%s.%s.%s.%s", shape, mmaPTXType[d], mmaPTXType[a], mmaPTXType[b], mmaPTXType[cc])
	code := "__forceinline__ __device__ void " + name + "(" + strings.Join(params, ", ") + ") {\n" +
		"  asm volatile(\"" + instr + " \"\n" +
		"               \"{" + strings.Join(dRegs, ", ") + "}, {" + strings.Join(aRegs, ", ") + "}, {" +
		strings.Join(bRegs, ", ") + "}, {" + strings.Join(cRegs, ", ") + "};\"\n" +
		"               : " + strings.Join(outs, ", ") + "\n" +
		"               : " + strings.Join(ins, ", ") + ");\n}\n"
	return &helper{name: name, rank: rankMatrix, minSM: 80, what: "ptx.mma " + shape, code: code}
}
