package copyasync

// copy_async/ldgsts under 0.26.0 and 0.27.0.post1: the same partition as
// 0.25 (ldgsts.go), plus the configuration those releases read from the
// call.
//
// Mirrors TVM python/tvm/backend/cuda/tile_primitive/copy_async/ldgsts.py
// (_emit_cp_async, _emit_ldgsts) at 0.27.0.post1:
//
//   - prefetch_size=N (default -1: none) spells cp.async...global.L2::NB;
//   - predicate=p rides pred= (the instruction guarded by @p: nothing is
//     written where p is 0);
//   - fill_mode="zero" takes the src-size arity instead: src-size =
//     (p != 0 ? cp-size : 0), zero-filling the destination where p is 0
//     (without predicate=, p is -1: the full cp-size);
//   - direct=True (thread scope only) is one cp.async from the two region
//     starts, of the region's bytes (4, 8 or 16), bypassing the partition;
//     otherwise the ValueErrors "ldgsts direct=True is only valid in thread
//     scope", "ldgsts direct=True requires constant extent, got E" and
//     "ldgsts direct=True requires a 4/8/16-byte region, got N elements of B
//     bits";
//   - 0.27 addresses a swizzled shared tile through recompose_swizzle (the
//     whole formula each round); 0.26 keeps 0.25's signed-stride fast path
//     (the same addresses).
//
// 0.26 forwards the same three keywords to T.ptx.cp_async, which prints the
// same instructions.

import common "github.com/tilels/tilels/dispatch/cuda/common"
import cudacopy "github.com/tilels/tilels/dispatch/cuda/copy"
import (
	"fmt"

	"github.com/tilels/tilels/dispatch"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// cpConfig is the ldgsts configuration of one call.
type cpConfig struct {
	prefetch int64   // -1: none
	pred     ir.Expr // nil: the default -1
	zeroFill bool
}

func readCpConfig(c *dispatch.Call) cpConfig {
	cfg := cpConfig{prefetch: -1}
	if v, ok := c.Config("prefetch_size"); ok {
		if n, isConst := ir.ConstInt(v); isConst {
			cfg.prefetch = n
		}
	}
	if v, ok := c.Config("predicate"); ok {
		if n, isConst := ir.ConstInt(v); !isConst || n != -1 {
			cfg.pred = v
		}
	}
	if v, ok := c.Config("fill_mode"); ok {
		if s, isStr := v.(*ir.StringImm); isStr && s.Value == "zero" {
			cfg.zeroFill = true
		}
	}
	return cfg
}

// configBool is _config_bool.
func configBool(c *dispatch.Call, key string) bool {
	v, ok := c.Config(key)
	if !ok || v == nil {
		return false
	}
	if n, isConst := ir.ConstInt(v); isConst {
		return n != 0
	}
	if s, isStr := v.(*ir.StringImm); isStr {
		return s.Value != ""
	}
	return true
}

// cpAsyncChain is _emit_cp_async: one cp.async.{cg,ca}.shared.global[.L2::NB].
func (cfg cpConfig) cpAsync(dst, src ir.Expr, n int64, span source.Span) ir.Stmt {
	cop := "ca"
	if n == 16 {
		cop = "cg"
	}
	op := "ptx.cp.async." + cop + ".shared.global"
	if cfg.prefetch != -1 {
		op += fmt.Sprintf(".L2::%dB", cfg.prefetch)
	}
	args := []ir.Expr{dst, src, common.Cst(n)}
	switch {
	case cfg.zeroFill:
		var size ir.Expr = common.Cst(n)
		if cfg.pred != nil {
			size = &ir.Select{Cond: ir.Bin(ir.NE, cfg.pred, common.Cst(0)), A: common.Cst(n), B: common.Cst(0), Span: span}
		}
		args = append(args, &ir.Cast{To: ir.UInt32, X: size, Span: span})
	case cfg.pred != nil:
		args = append(args, &ir.Call{Op: ir.OpPredGuard, Args: []ir.Expr{cfg.pred}, Type: ir.UInt32, Span: span})
	}
	return &ir.Evaluate{X: &ir.Call{Op: op, Args: args, Span: span}, Span: span}
}

func emitLdgsts26(c *dispatch.Call) (*dispatch.Result, *dispatch.Decline) {
	cfg := readCpConfig(c)
	if configBool(c, "direct") {
		return emitLdgstsDirect(c, cfg)
	}
	res, d := cudacopy.EmitGS(c, cudacopy.GsEmit{
		AllowedBits: ldgstsVecBits,
		Loop:        ir.Unrolled,
		VecOK:       ldgstsCpSize,
		Xfer:        cfg.cpAsync,
		Note:        "cp.async is asynchronous: commit_group, wait_group and a barrier are the caller's",
		FullSwizzle: c.Target.Release >= release.R027,
	})
	if res != nil {
		res.Notes = append(res.Notes, cfg.notes()...)
	}
	return res, d
}

func (cfg cpConfig) notes() []string {
	var out []string
	if cfg.prefetch != -1 {
		out = append(out, fmt.Sprintf("prefetch_size=%d (.L2::%dB)", cfg.prefetch, cfg.prefetch))
	}
	switch {
	case cfg.zeroFill && cfg.pred != nil:
		out = append(out, "fill_mode='zero': src-size = predicate ? cp-size : 0")
	case cfg.pred != nil:
		out = append(out, "predicate: @p cp.async")
	}
	return out
}

// emitLdgstsDirect is the direct=True path: one cp.async of the region.
func emitLdgstsDirect(c *dispatch.Call, cfg cpConfig) (*dispatch.Result, *dispatch.Decline) {
	if c.Scope != "thread" {
		dispatch.Raise("ValueError", "ldgsts direct=True is only valid in thread scope")
	}
	src, dst := c.Src(), c.Dst()
	elemBits := int64(src.Buf.Dtype.Bits)
	n := int64(1)
	for _, e := range dst.Extent {
		k, ok := ir.ConstInt(e)
		if !ok {
			dispatch.Raise("ValueError", "ldgsts direct=True requires constant extent, got %s", dispatch.ExprText(e))
		}
		n *= k
	}
	cp := n * elemBits / 8
	if n*elemBits%8 != 0 || (cp != 4 && cp != 8 && cp != 16) {
		dispatch.Raise("ValueError", "ldgsts direct=True requires a 4/8/16-byte region, got %d elements of %d bits", n, elemBits)
	}
	span := c.Span()
	sPtr := common.PtrOff(dst.Buf, cudacopy.StartOffset(dst), span)
	gPtr := common.PtrOff(src.Buf, cudacopy.StartOffset(src), span)
	res := &dispatch.Result{
		Body: &ir.Block{Stmts: []ir.Stmt{cfg.cpAsync(sPtr, gPtr, cp, span)}, Span: span},
		Vec:  n, VecBits: cp * 8, Outer: 1, Threads: 1,
		Partition: fmt.Sprintf("direct: one %d-byte cp.async from the region starts", cp),
		Notes:     append([]string{"cp.async is asynchronous: commit_group, wait_group and a barrier are the caller's"}, cfg.notes()...),
	}
	return res, nil
}
