package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/ir"
)

// Hand-written TMA kernels (flash_attention_backward.py,
// gemm_reduce_scatter.py) encode their own tensor maps in the host part of
// the kernel:
//
//	m: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
//	T.call_packed("runtime.cuTensorMapEncodeTiled", m, "float16", rank,
//	    X.data, dims..., strides..., box..., elem_strides...,
//	    interleave, swizzle, l2_promotion, oob_fill)
//
// and pass T.address_of(m) to T.ptx["cp.async.bulk.tensor..."] chains.
// The call changes nothing tilels lowers or prints; noteHostMap keeps the
// descriptor it encodes (ir.Func.HostMaps), so that the memory analysis
// knows how many bytes each such copy moves.

// encodeTiled is the packed function that encodes a tiled tensor map.
const encodeTiled = "runtime.cuTensorMapEncodeTiled"

// noteHostMap records the tensor map a T.call_packed(encodeTiled, ...)
// call c encodes, when its handle is a variable and every operand after
// the data pointer is a static integer (nothing otherwise: a copy through
// the map is then one the analysis does not size).
func noteHostMap(ev *eval.Evaluator, c *eval.Call) {
	if ev.Kern == nil || ev.Kern.K == nil || len(c.Args) < 5 {
		return
	}
	if s, ok := c.Args[0].(*eval.StrV); !ok || s.V != encodeTiled {
		return
	}
	h, ok := c.Args[1].(*eval.ExprV)
	if !ok {
		return
	}
	v, ok := h.E.(*ir.Var)
	if !ok || v.Type != ir.HandleT {
		return
	}
	dts, ok := c.Args[2].(*eval.StrV)
	if !ok {
		return
	}
	dt, ok := eval.ParseDType(dts.V)
	if !ok {
		return
	}
	rank, ok := eval.ToInt(c.Args[3])
	if !ok || rank < 1 || rank > 5 {
		return
	}
	r := int(rank)
	// dims (r), strides (r-1), box (r), element strides (r), then the
	// four enums
	ints := make([]int64, 0, 4*r+3)
	for _, a := range c.Args[5:] {
		n, ok := eval.ToInt(a)
		if !ok {
			return
		}
		ints = append(ints, n)
	}
	if len(ints) != 4*r+3 {
		return
	}
	m := &ir.TensorMap{
		Name:          v.Name,
		Buf:           dataBuffer(c.Args[4]),
		DType:         dt,
		Rank:          r,
		GlobalDims:    ints[:r],
		GlobalStrides: ints[r : 2*r-1],
		Box:           ints[2*r-1 : 3*r-1],
		ElemStrides:   ints[3*r-1 : 4*r-1],
		Interleave:    int(ints[4*r-1]),
		Swizzle:       int(ints[4*r]),
		L2Promotion:   int(ints[4*r+1]),
		OOBFill:       int(ints[4*r+2]),
		ForceDType:    -1,
		Span:          c.At,
	}
	for _, b := range m.Box {
		if b < 1 || b > 256 {
			return // cuTensorMapEncodeTiled refuses it
		}
	}
	f := ev.Kern.K.Func
	if f.HostMaps == nil {
		f.HostMaps = map[*ir.Var]*ir.TensorMap{}
	}
	f.HostMaps[v] = m
}

// dataBuffer is the buffer whose data pointer value x is (nil when it is
// none: the map then has no buffer, which the byte count does not need).
func dataBuffer(x eval.Value) *ir.Buffer {
	switch x := x.(type) {
	case *eval.BufferV:
		return x.B
	case *eval.ExprV:
		if d, ok := x.E.(*ir.BufferData); ok {
			return d.Buf
		}
	}
	return nil
}
