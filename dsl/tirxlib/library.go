package tirxlib

import (
	"strings"

	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/ir"
)

// Library returns the table of modelled TIRx/TVM library modules, for
// eval.Options.Library. Each entry's model lives in the file named after
// the module it mirrors. The table is built once and shared (an
// eval.Library is immutable).
func Library() *eval.Library { return library }

// gemmAsyncPath is the gemm_async variant module, whose layout helpers
// (sf_smem_layout, sf_tmem_layout) kernels import (gemm_async.go).
const gemmAsyncPath = "tvm.backend.cuda.tile_primitive.gemm_async"

var library = eval.NewLibrary([]eval.LibModule{
	{ // tir.go: TVMScript's T namespace
		Path:    eval.TPath,
		Aliases: []string{"tvm.tirx.script"},
		Name:    "T",
		Attr:    tAttr,
	},
	{ // tile.go: the tile primitives
		Path:    eval.TxPath,
		Aliases: []string{"tvm.tirx.script.tile"},
		Name:    "Tx",
		Attr:    txModuleAttr,
		Names:   txNames(),
	},
	{Path: tirxOpPath, Name: "op", Attr: tirxOpAttr, Names: tirxOpNames}, // tirx_op_module.go
	{Path: cudaOpPath, Name: "op", Attr: cudaOpAttr, Names: cudaOpNames}, // cuda_op_module.go
	{Path: "tvm", Name: "tvm", Attr: tvmAttr},                            // tvm.go
	{Path: "tvm.runtime", Name: "runtime", Attr: tvmAttr},                // tvm.go: tvm.runtime.DataType is tvm.DataType
	{ // layout.go
		Path:    eval.LayoutPath,
		Aliases: []string{"tvm.tir.layout"},
		Name:    "layout",
		Attr:    layoutModuleAttr,
		Names:   layoutNames(),
	},
	{ // layout.go: tma_utils under any of its tvm.*.tile_primitive spellings
		Path:    eval.TmaPath,
		Aliases: []string{"tvm.tirx.op_schedule.cuda.common"},
		Name:    "tma_utils",
		Attr:    tmaModuleAttr,
		Names:   tmaNames(),
		Match: func(path string) bool {
			return strings.HasPrefix(path, "tvm.") && strings.HasSuffix(path, "tile_primitive.tma_utils")
		},
	},
	{ // layout.go, gemm_async.go
		Path:  gemmAsyncPath,
		Name:  "gemm_async",
		Attr:  gemmAsyncAttr,
		Names: []string{"sf_smem_layout", "sf_tmem_layout"},
		Match: func(path string) bool {
			return strings.HasPrefix(path, "tvm.") && (strings.HasSuffix(path, "tile_primitive.gemm_async") || strings.HasSuffix(path, "tile_primitive.gemm_async.tcgen05"))
		},
	},
	{ // tile_scheduler.go
		Path:    tileSchedulerPath,
		Aliases: []string{"tvm.tirx.lang.tile_scheduler", "tvm.tirx.tile_scheduler"},
		Name:    "tile_scheduler",
		Attr:    tileSchedulerAttr,
	},
	{ // clc.go
		Path:    clcPath,
		Aliases: []string{"tvm.tirx.lang.clc"},
		Name:    "clc",
		Attr:    clcAttr,
		Names:   []string{"query_cancel_first_ctaid_x"},
	},
	{ // iket.go
		Path:    iketPath,
		Aliases: []string{"tvm.tirx.cuda.iket"},
		Name:    "iket",
		Attr:    iketAttr,
		Names:   []string{"IketProfiler"},
	},
	{ // pipeline.go, pipeline_remote.go
		Path:    pipelinePath,
		Aliases: []string{"tvm.tirx.lang.pipeline"},
		Name:    "pipeline",
		Attr:    pipelineAttr,
	},
	{Path: irBuilderPath, Name: "ir_builder", Attr: irBuilderAttr, Names: []string{"IRBuilder"}}, // ir_builder.go
	{Path: torchPath, Name: "torch", Attr: torchAttr},                                            // torch.go
	{Path: irTypePath, Name: "type", Attr: irTypeAttr},                                           // ir_type.go
	{Path: "tvm.ir", Name: "ir", Attr: irAttr},                                                   // ir_type.go
}, eval.Hooks{
	BufferAttr:             bufferAttr,             // buffer_view.go
	EmitView:               emitView,               // buffer_view_rearrange.go
	BufferViewDtypeLaidOut: bufferViewDtypeLaidOut, // layout_pack.go
	LayoutAttr:             layoutAttr,             // layout.go
	LayoutBinop:            layoutBinop,            // layout.go
	SpecSubscript:          specSubscript,          // layout.go
	IsTileOp:               isTileOp,               // tile.go
	TxScope:                txScope,                // tile.go
	TxAttr:                 txAttr,                 // tile.go
	TileCall:               tileCall,               // tile.go
	PoolAttr:               PoolAttr,               // tir.go (T.SMEMPool)
	TBuiltin:               tBuiltin,               // tir.go
	MathCall:               mathCall,               // tir.go
	ScopeID:                scopeID,                // tir.go
	DeclBuffer:             tDeclBuffer,            // tir.go
	StrippedIntrinsic:      strippedIntrinsic,      // iket.go
	TrainiumLayout:         trainiumLayout,         // trn_layout.go
})

// bufferAttr is the Buffer attributes modelled here: sub (a
// subscriptable view maker), permute and the rearranging views.
func bufferAttr(ev *eval.Evaluator, buf *ir.Buffer, name string, span source.Span) eval.Value {
	switch name {
	case "sub":
		return &subIndexerV{eval.Base{At: span}, buf}
	case "permute":
		return eval.Method("Buffer.permute", func(ev *eval.Evaluator, c *eval.Call) eval.Value { return bufferPermute(ev, buf, c) })
	}
	return bufferViewAttr(ev, buf, name)
}

// LibAttr implements eval.AttrValue.
func (t *TMEMPoolV) LibAttr(ev *eval.Evaluator, name string, span source.Span) eval.Value {
	return tmemPoolAttr(ev, t, name, span)
}

// LibIndex implements eval.SubscriptValue.
func (o *subIndexerV) LibIndex(ev *eval.Evaluator, idx []eval.Value, e *syntax.Subscript) eval.Value {
	return subscriptSub(ev, o, idx, e)
}

// LibIndex implements eval.SubscriptValue.
func (ch *ChunkV) LibIndex(ev *eval.Evaluator, idx []eval.Value, e *syntax.Subscript) eval.Value {
	return chunkIndex(ev, ch, idx, e)
}

// LibIndex implements eval.SubscriptValue.
func (t *TileIndexerV) LibIndex(ev *eval.Evaluator, idx []eval.Value, e *syntax.Subscript) eval.Value {
	return tileIndex(ev, t, idx, e)
}
