package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
)

// tvm.tirx.op, the module of tvm/tirx/op.py, which tvm.script.tirx
// re-exports as T.<name>: `from tvm.tirx.op import if_then_else`
// (test_codegen_cuda.py) reaches T.if_then_else. Only the names op.py
// defines (in 0.27.0.post1) resolve here; each is what T's attribute of
// that name is (modelled or not).

// tirxOpPath is the module's path.
const tirxOpPath = "tvm.tirx.op"

// tirxOpNames are the public functions of tvm/tirx/op.py.
var tirxOpNames = []string{
	"register_intrin_lowering", "call_packed_lowered", "call_cpacked_lowered",
	"call_packed", "call_ffi_kernel", "tensormap_encode_tiled", "call_cpacked",
	"call_intrin", "call_pure_extern", "call_extern", "call_llvm_intrin",
	"call_llvm_pure_intrin", "tvm_stack_alloca", "tvm_stack_make_shape",
	"tvm_stack_make_array", "assume", "undef", "start_profile_intrinsic",
	"end_profile_intrinsic", "tvm_tuple", "handle_add_byte_offset",
	"tvm_struct_get", "tvm_struct_set", "address_of", "lookup_param",
	"tvm_thread_allreduce", "tvm_thread_invariant", "tvm_storage_sync",
	"tvm_kernel_replace_point", "tvm_global_barrier_kinit", "tvm_warp_shuffle",
	"tvm_warp_shuffle_up", "tvm_warp_shuffle_down", "tvm_warp_shuffle_xor",
	"tvm_warp_activemask", "type_annotation", "tvm_access_ptr",
	"ptr_byte_offset", "tvm_throw_last_error", "print_buffer",
	"cooperative_tensor_fill", "cooperative_tensor_load",
	"cooperative_tensor_store", "cooperative_tensor_multiply_accumulate",
	"vectorlow", "vectorhigh", "vectorcombine", "dp4a", "any", "all", "trace",
	"infinity", "reinterpret", "exp", "exp2", "exp10", "fma", "erf", "tanh",
	"sigmoid", "log", "log2", "log10", "log1p", "tan", "cos", "cosh", "acos",
	"acosh", "sin", "sinh", "asin", "asinh", "atan", "atanh", "atan2", "sqrt",
	"rsqrt", "floor", "ceil", "trunc", "abs", "bitwise_and", "bitwise_not",
	"bitwise_or", "bitwise_xor", "round", "nearbyint", "nextafter", "hypot",
	"copysign", "ldexp", "likely", "filter", "selector", "isnan", "isnullptr",
	"isfinite", "isinf", "power", "pow", "popcount", "q_multiply_shift",
	"q_multiply_shift_per_axis", "shift_left", "shift_right", "fmod",
	"if_then_else", "div", "indexdiv", "indexmod", "truncdiv", "truncmod",
	"floordiv", "logaddexp", "floormod", "ceildiv", "comm_reducer",
}

var tirxOpSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range tirxOpNames {
		m[n] = true
	}
	return m
}()

func tirxOpAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	if !tirxOpSet[name] {
		return nil, false
	}
	return tAttr(ev, name, span)
}
