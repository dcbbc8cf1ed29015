"""Print the installed wheel's Trainium tile-primitive registry as JSON (op -> [variant, priority, predicate names]).

Run with a reference virtual environment's python; the result is
dispatch/trn/testdata/registry-trn-<release>.json.
"""
import json, sys, importlib
import tvm
for mod in ["tvm.backend.trn.tile_primitive", "tvm.backend.trn.operator.tile_primitive"]:
    try:
        importlib.import_module(mod); print("imported", mod, file=sys.stderr); break
    except Exception as e:
        print("no", mod, e, file=sys.stderr)
from tvm.tirx.operator.tile_primitive import dispatcher as d
out = {}
for (op, tgt), cases in d._DISPATCH_TABLE.items():
    if tgt != "trn": continue
    out[op.name] = [(c.variant, c.priority, [p.name for p in c.preds]) for c in cases]
json.dump(out, sys.stdout, indent=None, sort_keys=True)
