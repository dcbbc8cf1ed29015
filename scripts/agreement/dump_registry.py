"""Print the installed wheel's tile-primitive registry as JSON (op -> target -> [variant, priority, predicate names]).

Run with a reference virtual environment's python; the CUDA part is
dispatch/cuda/testdata/registry-<release>.json.
"""
import json, sys, importlib
import tvm
for mod in ["tvm.backend.cuda.tile_primitive", "tvm.backend.cuda.operator.tile_primitive", "tvm.tirx.cuda.operator.tile_primitive", "tvm.tirx.cuda.tile_primitive"]:
    try:
        importlib.import_module(mod); print("imported", mod, file=sys.stderr); break
    except Exception as e:
        print("no", mod, e, file=sys.stderr)
from tvm.tirx.operator.tile_primitive import dispatcher as d
out = {}
for (op, tgt), cases in d._DISPATCH_TABLE.items():
    out.setdefault(op.name, {})[tgt] = [(c.variant, c.priority, [p.name for p in c.preds]) for c in cases]
json.dump(out, sys.stdout, indent=1)
