package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"
)

// Library returns the table of modelled TIRx/TVM library modules, for
// eval.Options.Library. Each entry's model lives in the file named after
// the module it mirrors. The table is built once and shared (an
// eval.Library is immutable).
func Library() *eval.Library { return library }

var library = eval.NewLibrary([]eval.LibModule{
	{ // tile_scheduler.go
		Path:    tileSchedulerPath,
		Aliases: []string{"tvm.tirx.lang.tile_scheduler"},
		Name:    "tile_scheduler",
		Attr:    tileSchedulerAttr,
	},
	{ // pipeline.go, pipeline_remote.go
		Path:    pipelinePath,
		Aliases: []string{"tvm.tirx.lang.pipeline"},
		Name:    "pipeline",
		Attr:    pipelineAttr,
	},
	{Path: torchPath, Name: "torch", Attr: torchAttr},  // torch.go
	{Path: irTypePath, Name: "type", Attr: irTypeAttr}, // ir_type.go
	{Path: "tvm.ir", Name: "ir", Attr: irAttr},         // ir_type.go
})
