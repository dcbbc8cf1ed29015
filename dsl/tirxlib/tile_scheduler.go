package tirxlib

import (
	"github.com/tilels/tilels/dsl/eval"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
)

// The tile schedulers of tvm/backend/cuda/lang/tile_scheduler.py (also
// reached as tvm.tirx.lang.tile_scheduler). They are T.meta_class classes
// whose state is T.local_scalar fields and whose init / next_tile /
// update_current_m_n_idx are T.inline methods: each call emits the TIR the
// reference's method body emits (stores into the scalars, T.let bindings,
// device ifs), and valid() is the device condition `linear_idx < total`.
// So `while sched.valid(): ... sched.next_tile()` is an ir.While whose
// body is evaluated once, reading the tile indices (sched.m_idx, .n_idx,
// .batch_idx, .tile_idx, ...) as loads of those scalars: one generic tile
// with symbolic coordinates, as the TVMScript parser sees it.
//
// The classes are ClassV values whose methods are Go builtins, so user
// code reads and subclasses them like its own classes. Modelled:
// BaseTileScheduler, ClusterPersistentScheduler2D (group-major and
// serpentine orders, static or runtime M), GroupMajor3D,
// RankAwareGroupMajorTileScheduler, IndexedTripleTileScheduler,
// FlashAttentionLinearScheduler, FlashAttentionLPTScheduler and
// ClusterLaunchControlScheduler with its worker() handles and its
// try_cancel handshake (clc.go: run_scheduler, consume, consume_wg). Other
// names of the module stay opaque.

const tileSchedulerPath = "tvm.backend.cuda.lang.tile_scheduler"

func tileSchedulerAttr(ev *eval.Evaluator, name string, span source.Span) (eval.Value, bool) {
	switch name {
	case "BaseTileScheduler", "ClusterPersistentScheduler2D", "GroupMajor3D", "RankAwareGroupMajorTileScheduler",
		"IndexedTripleTileScheduler", "FlashAttentionLinearScheduler", "FlashAttentionLPTScheduler",
		"ClusterLaunchControlScheduler":
		return schedClass(name, span), true
	}
	return nil, false
}

// schedFn is a scheduler method: self is the instance, c the call with
// self as its first argument.
type schedFn func(s *sched, c *eval.Call) eval.Value

// schedClass builds the class name of the module (a fresh ClassV per
// import: classes are mutable values).
func schedClass(name string, span source.Span) *eval.ClassV {
	cls := &eval.ClassV{Base: eval.Base{At: span}, Name: name, Attrs: map[string]eval.Value{}}
	add := func(m string, params []string, minPos int, fn schedFn) {
		full := name + "." + m
		cls.Attrs[m] = eval.Builtin(full, func(ev *eval.Evaluator, c *eval.Call) eval.Value {
			if !ev.CheckArgs(c, full, minPos+1, append([]string{"self"}, params...)...) {
				return eval.Poison(c.At)
			}
			self, ok := c.Args[0].(*eval.InstanceV)
			if !ok {
				if eval.IsErr(c.Args[0]) {
					return c.Args[0]
				}
				return ev.Errorf(c.At, eval.CodeType, "%s() needs a %s instance, got %s", full, name, eval.Describe(c.Args[0]))
			}
			if m != "valid" && m != "worker" && !ev.RequireKernel(c, full+"()") {
				return eval.Poison(c.At)
			}
			if m != "__init__" && m != "worker" {
				// the other methods take tile indices and strides: scalars
				for i, a := range c.Args[1:] {
					if eval.IsErr(a) {
						return a
					}
					if _, ok := ev.ToIR(a, ir.Int32); !ok {
						return ev.Errorf(c.ArgSpans[i+1], eval.CodeType, "%s() argument %d must be an integer scalar, got %s", full, i+1, eval.Describe(a))
					}
				}
				for _, k := range c.Kwargs {
					if eval.IsErr(k.V) {
						return k.V
					}
					if _, ok := ev.ToIR(k.V, ir.Int32); !ok {
						return ev.Errorf(k.Vspan, eval.CodeType, "%s() argument '%s' must be an integer scalar, got %s", full, k.Name, eval.Describe(k.V))
					}
				}
			}
			return fn(&sched{ev: ev, self: self, span: c.At}, c)
		})
		cls.Order = append(cls.Order, m)
	}
	inherit := func(b string) { cls.Bases = []*eval.ClassV{schedClass(b, span)} }
	switch name {
	case "BaseTileScheduler":
		add("__init__", []string{"prefix"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.baseInit(c, c.Arg(1, "prefix"))
			return none(c)
		})
		add("update_current_m_n_idx", []string{"linear_idx"}, 1, func(s *sched, c *eval.Call) eval.Value { return none(c) })
		add("init", []string{"linear_init"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", c.Args[1])
			s.update(c.Args[1])
			return none(c)
		})
		add("next_tile", []string{"step"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", s.op("+", s.get("linear_idx"), c.Args[1]))
			s.update(s.get("linear_idx"))
			return none(c)
		})
		add("valid", []string{"total_tiles"}, 1, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), c.Args[1])
		})
	case "ClusterPersistentScheduler2D":
		inherit("BaseTileScheduler")
		add("__init__", []string{"prefix", "num_m_tiles", "num_n_tiles", "num_clusters", "l2_group_size", "cluster_m", "cluster_n", "serpentine"}, 4,
			func(s *sched, c *eval.Call) eval.Value {
				s.cps2DInit(c, c.Arg(1, "prefix"), c.Arg(2, "num_m_tiles"), c.Arg(3, "num_n_tiles"), c.Arg(4, "num_clusters"),
					c.Arg(5, "l2_group_size"), c.Arg(6, "cluster_m"), c.Arg(7, "cluster_n"), c.Arg(8, "serpentine"))
				return none(c)
			})
		add("update_current_m_n_idx", []string{"work_idx"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.cps2DUpdate(c.Args[1])
			return none(c)
		})
		add("init", []string{"cluster_id"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", c.Args[1])
			s.set("tile_count", s.int(0))
			s.update(c.Args[1])
			return none(c)
		})
		add("next_tile", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			s.cps2DAdvance(s.get("_num_clusters"))
			return none(c)
		})
		add("next_tile_stride", []string{"stride"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.cps2DAdvance(c.Args[1])
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), s.get("_TOTAL_TILES"))
		})
	case "GroupMajor3D":
		inherit("BaseTileScheduler")
		add("__init__", []string{"prefix", "m_tiles", "n_tiles", "k_tiles", "group_rows", "step"}, 5, func(s *sched, c *eval.Call) eval.Value {
			s.gm3DInit(c)
			return none(c)
		})
		add("update_current_m_n_idx", []string{"linear_idx"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.gm3DUpdate(c.Args[1])
			return none(c)
		})
		add("init", []string{"linear_init"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", c.Args[1])
			s.set("tile_idx", s.int(0))
			s.update(c.Args[1])
			return none(c)
		})
		advance := func(s *sched, stride eval.Value) {
			s.set("linear_idx", s.op("+", s.get("linear_idx"), stride))
			s.set("tile_idx", s.op("+", s.get("tile_idx"), s.int(1)))
			s.update(s.get("linear_idx"))
		}
		add("next_tile", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			advance(s, s.get("_step"))
			return none(c)
		})
		add("next_tile_stride", []string{"stride"}, 1, func(s *sched, c *eval.Call) eval.Value {
			advance(s, c.Args[1])
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), s.get("_TOTAL"))
		})
	case "RankAwareGroupMajorTileScheduler":
		inherit("BaseTileScheduler")
		add("__init__", []string{"prefix", "m_clusters", "n_clusters", "group_size", "world_size"}, 5, func(s *sched, c *eval.Call) eval.Value {
			s.baseInit(c, c.Arg(1, "prefix"))
			for i, f := range []string{"_m_clusters", "_n_clusters", "_group_size", "_world_size"} {
				s.setPy(f, c.Args[2+i])
			}
			return none(c)
		})
		add("update_current_m_n_idx", []string{"linear_idx"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.rankAwareUpdate(c, c.Args[1])
			return none(c)
		})
		add("next_tile", []string{"stride"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", s.op("+", s.get("linear_idx"), c.Args[1]))
			s.update(s.get("linear_idx"))
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), s.op("*", s.get("_m_clusters"), s.get("_n_clusters")))
		})
	case "IndexedTripleTileScheduler":
		inherit("BaseTileScheduler")
		add("__init__", []string{"prefix", "b_indices", "h_indices", "q_indices", "tiles_indptr"}, 5, func(s *sched, c *eval.Call) eval.Value {
			s.baseInit(c, c.Arg(1, "prefix"))
			for i, f := range []string{"b_indices", "h_indices", "q_indices", "tiles_indptr"} {
				s.setPy(f, c.Args[2+i])
			}
			for _, f := range []string{"q_idx", "h_idx", "b_idx", "linear_lim"} {
				s.scalar(f, ir.Int32)
			}
			return none(c)
		})
		add("init", []string{"sm"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", s.item(s.get("tiles_indptr"), c.Args[1]))
			s.set("linear_lim", s.item(s.get("tiles_indptr"), s.op("+", c.Args[1], s.int(1))))
			s.tripleLoad()
			return none(c)
		})
		add("next_tile", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", s.op("+", s.get("linear_idx"), s.int(1)))
			s.tripleLoad()
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), s.get("linear_lim"))
		})
	case "FlashAttentionLinearScheduler", "FlashAttentionLPTScheduler":
		inherit("BaseTileScheduler")
		lpt := name == "FlashAttentionLPTScheduler"
		params := []string{"prefix", "num_batches", "num_heads", "num_m_blocks", "num_ctas"}
		if lpt {
			params = []string{"prefix", "num_batches", "num_heads", "num_m_blocks", "l2_swizzle", "num_ctas"}
		}
		add("__init__", params, len(params)-1+btoi(!lpt), func(s *sched, c *eval.Call) eval.Value {
			s.baseInit(c, c.Arg(1, "prefix"))
			nb, nh, nm := c.Arg(2, "num_batches"), c.Arg(3, "num_heads"), c.Arg(4, "num_m_blocks")
			s.setPy("_num_batches", nb)
			s.setPy("_num_heads", nh)
			s.setPy("_num_m_blocks", nm)
			if lpt {
				sw := c.Arg(5, "l2_swizzle")
				ctas := c.Arg(6, "num_ctas")
				if ctas == nil {
					ctas = &eval.NoneV{Base: eval.Base{At: c.At}}
				}
				s.setPy("_l2_swizzle", sw)
				s.setPy("_num_ctas", ctas)
				s.setPy("_total_tasks", s.op("*", s.op("*", nb, nh), nm))
				s.setPy("_num_hb", s.op("*", nb, nh))
				s.setPy("_l2_major", s.op("*", sw, nm))
				s.setPy("_num_hb_quotient", s.op("//", s.get("_num_hb"), sw))
			} else {
				s.setPy("_num_ctas", c.Arg(5, "num_ctas"))
				s.setPy("_total_tasks", s.op("*", s.op("*", nb, nh), nm))
			}
			for _, f := range []string{"batch_idx", "head_idx", "m_block_idx"} {
				s.scalar(f, ir.Int32)
			}
			return none(c)
		})
		add("update_current_m_n_idx", []string{"linear_idx"}, 1, func(s *sched, c *eval.Call) eval.Value {
			if lpt {
				s.lptUpdate(c.Args[1])
			} else {
				s.linearUpdate(c.Args[1])
			}
			return none(c)
		})
		add("init", []string{"cta_id"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", c.Args[1])
			s.update(c.Args[1])
			return none(c)
		})
		add("next_tile", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			if lpt && eval.IsNoneV(s.get("_num_ctas")) {
				// single-tile mode: each CTA owns one task
				s.set("linear_idx", s.get("_total_tasks"))
				return none(c)
			}
			s.set("linear_idx", s.op("+", s.get("linear_idx"), s.get("_num_ctas")))
			s.update(s.get("linear_idx"))
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("<", s.get("linear_idx"), s.get("_total_tasks"))
		})
	case "ClusterLaunchControlScheduler":
		add("__init__", []string{"pool", "num_m_tiles", "num_n_tiles", "l2_group_size", "cta_group", "finish_arrivals"}, 6, func(s *sched, c *eval.Call) eval.Value {
			s.clcInit(c)
			return none(c)
		})
		add("worker", []string{"prefix"}, 1, func(s *sched, c *eval.Call) eval.Value {
			return s.ev.CallClass(schedWorkerClass(c.At), &eval.Call{Node: c.Node, At: c.At, FnSpan: c.FnSpan, Fr: c.Fr,
				Args: []eval.Value{s.self, c.Args[1]}, ArgSpans: []source.Span{c.ArgSpans[0], c.ArgSpans[1]}})
		})
		add("run_scheduler", []string{"cbx"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.clcRunScheduler(c.Args[1])
			return none(c)
		})
	case "_CLCWorker":
		inherit("ClusterPersistentScheduler2D")
		add("__init__", []string{"clc", "prefix"}, 2, func(s *sched, c *eval.Call) eval.Value {
			clc, ok := c.Args[1].(*eval.InstanceV)
			if !ok {
				return s.ev.Errorf(c.ArgSpans[1], eval.CodeType, "_CLCWorker needs a ClusterLaunchControlScheduler, got %s", eval.Describe(c.Args[1]))
			}
			cs := &sched{ev: s.ev, self: clc, span: c.At}
			nm, nn := cs.get("_num_m_tiles"), cs.get("_num_n_tiles")
			s.cps2DInit(c, c.Args[2], nm, nn, s.op("*", nm, nn), cs.get("_l2_group_size"), nil, nil, nil)
			s.setPy("_clc", clc)
			prefix := "sched"
			if p, ok := s.self.Attrs["_tirx_prefix"].(*eval.StrV); ok {
				prefix = p.V
			}
			s.setPy("_sa", s.namedState(prefix+"__sa", 0)) // (named as its fields are)
			s.scalar("_done", ir.Int32)
			s.scalar("_nxt", ir.UInt32)
			return none(c)
		})
		add("reset", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			s.set("_done", s.int(0))
			return none(c)
		})
		add("init", []string{"cluster_id"}, 1, func(s *sched, c *eval.Call) eval.Value {
			s.set("linear_idx", c.Args[1])
			s.set("tile_count", s.int(0))
			s.update(c.Args[1])
			s.set("_done", s.int(0))
			return none(c)
		})
		add("valid", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			return s.cmp("==", s.get("_done"), s.int(0))
		})
		add("consume", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			s.clcConsume(nil)
			return none(c)
		})
		add("consume_wg", []string{"wg_id", "warp_id", "lane_id"}, 3, func(s *sched, c *eval.Call) eval.Value {
			s.clcConsume(c.Args[1:4])
			return none(c)
		})
		add("advance_coords", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			clc := &sched{ev: s.ev, self: asInstance(s.get("_clc")), span: c.At}
			if clc.self == nil {
				return eval.Poison(c.At)
			}
			s.when(s.cmp("!=", s.get("_nxt"), s.int(0xFFFFFFFF)), func() {
				s.update(s.op("//", s.get("_nxt"), clc.get("_cta_group")))
			}, nil)
			return none(c)
		})
		add("mark_done_if_drained", nil, 0, func(s *sched, c *eval.Call) eval.Value {
			s.when(s.cmp("==", s.get("_nxt"), s.int(0xFFFFFFFF)), func() { s.set("_done", s.int(1)) }, nil)
			return none(c)
		})
	}
	return cls
}

func schedWorkerClass(span source.Span) *eval.ClassV { return schedClass("_CLCWorker", span) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func none(c *eval.Call) eval.Value { return &eval.NoneV{Base: eval.Base{At: c.At}} }

func asInstance(v eval.Value) *eval.InstanceV {
	in, _ := v.(*eval.InstanceV)
	return in
}

// sched is one method call on a scheduler instance: the helpers evaluate
// Python arithmetic on Values (constants fold, device values build IR) and
// emit the statements the reference's T.inline bodies emit.
type sched struct {
	ev   *eval.Evaluator
	self *eval.InstanceV
	span source.Span
}

func (s *sched) int(n int64) eval.Value { return &eval.IntV{Base: eval.Base{At: s.span}, V: n} }

// get is self.<field>.
func (s *sched) get(field string) eval.Value {
	if v, ok := s.self.Attrs[field]; ok {
		return v
	}
	return s.ev.GetAttr(s.self, field, s.span, s.span)
}

// setPy is a Python attribute store (constructor state).
func (s *sched) setPy(field string, v eval.Value) {
	if v == nil {
		v = &eval.NoneV{Base: eval.Base{At: s.span}}
	}
	s.ev.StoreAttr(s.self, field, v, s.span)
}

// set is `self.<field> = v` in a T.inline body: a store into the field's
// local scalar.
func (s *sched) set(field string, v eval.Value) {
	if eval.IsErr(v) {
		return
	}
	if !s.ev.StoreScalar(s.get(field), v, s.span, s.span) {
		s.ev.Errorf(s.span, eval.CodeType, "%s.%s: cannot store %s into its scalar", s.self.Class.Name, field, eval.Describe(v))
	}
}

// scalar declares `self.<field> = T.local_scalar(dtype)`, named
// <prefix>_<field> as name_meta_class_value names it.
func (s *sched) scalar(field string, dt ir.DataType) {
	prefix := "sched"
	if p, ok := s.self.Attrs["_tirx_prefix"].(*eval.StrV); ok {
		prefix = p.V
	}
	name := prefix + "_" + field
	buf := &ir.Buffer{Name: name, Shape: []int64{1}, Dtype: dt, Scope: "local", Kind: ir.AllocBuffer, Span: s.span}
	buf.Layout = s.ev.LayoutArg(nil, source.NoSpan, buf)
	buf.Data = &ir.Var{Name: name, Type: ir.HandleT, Span: s.span}
	s.ev.EmitStmt(&ir.Alloc{Buf: buf, Span: s.span})
	s.ev.AddBufferSite(buf, source.NoSpan, s.span, source.NoSpan)
	s.setPy(field, eval.ScalarOf(&eval.BufferV{Base: eval.Base{At: s.span}, B: buf}, s.span))
}

func (s *sched) op(op string, a, b eval.Value) eval.Value {
	if a == nil || b == nil {
		return eval.Poison(s.span)
	}
	return s.ev.Binop(op, a, b, s.span, false)
}

func (s *sched) cmp(op string, a, b eval.Value) eval.Value {
	if a == nil || b == nil {
		return eval.Poison(s.span)
	}
	return s.ev.Compare(op, a, b, s.span)
}

// item is buf[i] (a device load).
func (s *sched) item(buf, i eval.Value) eval.Value {
	b, ok := buf.(*eval.BufferV)
	if !ok {
		if eval.IsErr(buf) {
			return buf
		}
		return s.ev.Errorf(s.span, eval.CodeType, "%s needs a buffer of indices, got %s", s.self.Class.Name, eval.Describe(buf))
	}
	e, ok := s.ev.ToIR(i, ir.Int32)
	if !ok {
		return eval.Poison(s.span)
	}
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: &ir.Load{Buf: b.B, Indices: []ir.Expr{e}, Span: s.span}}
}

// let is `name: T.let = v`: an immutable binding of a device value.
func (s *sched) let(name string, v eval.Value) eval.Value {
	e, ok := s.ev.ToIR(v, ir.Int32)
	if !ok {
		return v
	}
	vr := &ir.Var{Name: name, Type: eval.ExprType(e), Span: s.span}
	if !vr.Type.IsValid() {
		vr.Type = ir.Int32
	}
	s.ev.EmitStmt(&ir.Let{Var: vr, Value: e, Span: s.span})
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: vr}
}

// sel is T.Select(cond, a, b).
func (s *sched) sel(cond, a, b eval.Value) eval.Value {
	c, ok := cond.(*eval.ExprV)
	if !ok {
		if eval.IsErr(cond) {
			return cond
		}
		if eval.Truthy(cond) {
			return a
		}
		return b
	}
	ae, ok1 := s.ev.ToIR(a, ir.Int32)
	be, ok2 := s.ev.ToIR(b, eval.ExprType(ae))
	if !ok1 || !ok2 {
		return eval.Poison(s.span)
	}
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: &ir.Select{Cond: c.E, A: ae, B: be, Span: s.span}}
}

// when is an `if` in a T.inline body: a Python condition keeps the live
// branch, a device one becomes an ir.If.
func (s *sched) when(cond eval.Value, then, els func()) {
	c, ok := cond.(*eval.ExprV)
	if !ok {
		if eval.IsErr(cond) {
			return
		}
		if eval.Truthy(cond) {
			then()
		} else if els != nil {
			els()
		}
		return
	}
	st := &ir.If{Cond: c.E, Then: s.block(then), Span: s.span}
	if els != nil {
		st.Else = s.block(els)
	}
	s.ev.EmitStmt(st)
}

// update is self.update_current_m_n_idx(x), through the instance so a
// subclass's override is the one called.
func (s *sched) update(x eval.Value) {
	f := s.ev.GetAttr(s.self, "update_current_m_n_idx", s.span, s.span)
	s.ev.CallValue(f, &eval.Call{At: s.span, FnSpan: s.span, Args: []eval.Value{x}, ArgSpans: []source.Span{s.span}})
}

func (s *sched) notModelled(c *eval.Call, what string) eval.Value {
	s.ev.Warnf(c.At, eval.CodeUnresolved, "not modelled: %s; statement ignored", what)
	return none(c)
}

// baseInit is BaseTileScheduler.__init__: the m_idx, n_idx and linear_idx
// scalars. The prefix names them: the assigned name when the constructor
// is the value of an assignment (name_meta_class_value), else prefix.
func (s *sched) baseInit(c *eval.Call, prefixArg eval.Value) {
	prefix, _ := s.ev.HintName(c, "")
	if prefix == "" {
		if p, ok := prefixArg.(*eval.StrV); ok && p.V != "" {
			prefix = p.V
		} else {
			prefix = "sched"
		}
	}
	s.setPy("_tirx_prefix", &eval.StrV{Base: eval.Base{At: c.At}, V: prefix})
	s.scalar("m_idx", ir.Int32)
	s.scalar("n_idx", ir.Int32)
	s.scalar("linear_idx", ir.Int32)
}

// cps2DInit is ClusterPersistentScheduler2D.__init__ (nil arguments take
// the reference's defaults: l2_group_size=8, cluster_m=cluster_n=1,
// serpentine=False).
func (s *sched) cps2DInit(c *eval.Call, prefix, numM, numN, numClusters, l2, cm, cn, serp eval.Value) {
	s.baseInit(c, prefix)
	if l2 == nil {
		l2 = s.int(8)
	}
	if cm == nil {
		cm = s.int(1)
	}
	if cn == nil {
		cn = s.int(1)
	}
	if serp == nil {
		serp = &eval.BoolV{Base: eval.Base{At: c.At}, V: false}
	}
	s.setPy("_num_m_tiles", numM)
	s.setPy("_num_n_tiles", numN)
	s.setPy("_num_clusters", numClusters)
	s.setPy("_l2_group_size", l2)
	s.setPy("_cluster_m", cm)
	s.setPy("_cluster_n", cn)
	s.setPy("_serpentine", serp)
	s.setPy("work_idx", s.get("linear_idx"))
	s.scalar("tile_count", ir.Int32)
	s.setPy("tile_idx", s.get("tile_count"))
	_, staticM := numM.(*eval.IntV)
	nCols := s.op("//", s.op("-", s.op("+", numN, cn), s.int(1)), cn)
	s.setPy("_N_TILE_COLS", nCols)
	var rows, full eval.Value
	if staticM {
		rows = s.op("//", s.op("-", s.op("+", numM, cm), s.int(1)), cm)
		full = s.op("//", rows, l2)
	} else {
		rows = s.truncdiv(s.op("-", s.op("+", numM, cm), s.int(1)), cm)
		full = s.truncdiv(rows, l2)
	}
	s.setPy("_M_TILE_ROWS", rows)
	s.setPy("_FULL_GROUPS", full)
	s.setPy("_TAIL_ROWS", s.op("-", rows, s.op("*", full, l2)))
	s.setPy("_TOTAL_TILES", s.op("*", s.op("*", s.op("*", rows, nCols), cm), cn))
	if eval.Truthy(serp) {
		nBlocks := s.op("//", nCols, l2)
		mBlocks := s.op("//", rows, l2)
		if !staticM {
			mBlocks = s.truncdiv(rows, l2)
		}
		s.setPy("_N_BLOCKS", nBlocks)
		s.setPy("_M_BLOCKS", mBlocks)
		s.setPy("_BLOCK_SIZE", s.op("*", l2, l2))
		s.setPy("_FULL_BLOCK_TILES", s.op("*", s.op("*", mBlocks, nBlocks), s.get("_BLOCK_SIZE")))
		s.setPy("_RESIDUAL_N", s.op("-", nCols, s.op("*", nBlocks, l2)))
		s.setPy("_RESIDUAL_M", s.op("-", rows, s.op("*", mBlocks, l2)))
	}
}

// truncdiv is T.truncdiv(a, b) (C division; the operands are tile counts).
func (s *sched) truncdiv(a, b eval.Value) eval.Value {
	if eval.IsPyNum(a) && eval.IsPyNum(b) {
		return s.op("//", a, b)
	}
	ae, ok1 := s.ev.ToIR(a, ir.Int32)
	be, ok2 := s.ev.ToIR(b, eval.ExprType(ae))
	if !ok1 || !ok2 {
		return eval.Poison(s.span)
	}
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: eval.MkBin(ir.Div, ae, be, s.span)}
}

func (s *sched) cps2DAdvance(stride eval.Value) {
	s.set("linear_idx", s.op("+", s.get("linear_idx"), stride))
	s.set("tile_count", s.op("+", s.get("tile_count"), s.int(1)))
	s.update(s.get("linear_idx"))
}

// cps2DUpdate is ClusterPersistentScheduler2D.update_current_m_n_idx:
// split the cluster-local offsets off work_idx, then map the tile's linear
// index to (row, col) in group-major or serpentine order.
func (s *sched) cps2DUpdate(workIdx eval.Value) {
	cm, cn := s.get("_cluster_m"), s.get("_cluster_n")
	mOff := s.op("%", workIdx, cm)
	t := s.op("//", workIdx, cm)
	nOff := s.op("%", t, cn)
	linear := s.op("//", t, cn)
	setCoords := func(row, col eval.Value) {
		s.set("m_idx", s.op("+", s.op("*", row, cm), mOff))
		s.set("n_idx", s.op("+", s.op("*", col, cn), nOff))
	}
	if eval.Truthy(s.get("_serpentine")) {
		s.serpentine(linear, setCoords)
		return
	}
	full, tail := s.get("_FULL_GROUPS"), s.get("_TAIL_ROWS")
	fullZero := isIntValue(full, 0)
	tailZero := isIntValue(tail, 0)
	g := s.get("_l2_group_size")
	span := s.op("*", g, s.get("_N_TILE_COLS"))
	zero := func() { setCoords(s.int(0), s.int(0)) }
	fullPart := func() {
		groupID := s.let("group_id", s.op("//", linear, span))
		within := s.let("within_group", s.op("%", linear, span))
		row := s.let("tile_row", s.op("+", s.op("*", groupID, g), s.op("%", within, g)))
		col := s.let("tile_col", s.op("//", within, g))
		setCoords(row, col)
	}
	tailPart := func() {
		rem := s.let("rem", s.op("-", linear, s.op("*", full, span)))
		row := s.let("tile_row", s.op("+", s.op("*", full, g), s.op("%", rem, tail)))
		col := s.let("tile_col", s.op("//", rem, tail))
		setCoords(row, col)
	}
	inFull := func() eval.Value {
		return s.op("&", s.cmp(">", full, s.int(0)), s.cmp("<", linear, s.op("*", full, span)))
	}
	switch {
	case fullZero && tailZero:
		zero()
	case fullZero:
		s.when(s.cmp(">", tail, s.int(0)), tailPart, zero)
	case tailZero:
		s.when(inFull(), fullPart, zero)
	default:
		s.when(inFull(), fullPart, func() { s.when(s.cmp(">", tail, s.int(0)), tailPart, zero) })
	}
}

func isIntValue(v eval.Value, n int64) bool {
	x, ok := v.(*eval.IntV)
	return ok && x.V == n
}

// serpentine is ClusterPersistentScheduler2D._update_serpentine: square
// blocks of l2_group_size tiles, row-major inside a block, block columns
// traversed alternately down and up, then the residual strips.
func (s *sched) serpentine(linear eval.Value, setCoords func(row, col eval.Value)) {
	S := s.get("_l2_group_size")
	mBlocks, nBlocks := s.get("_M_BLOCKS"), s.get("_N_BLOCKS")
	blockSize, fullTiles := s.get("_BLOCK_SIZE"), s.get("_FULL_BLOCK_TILES")
	rows, resN, resM := s.get("_M_TILE_ROWS"), s.get("_RESIDUAL_N"), s.get("_RESIDUAL_M")
	zero := func() { setCoords(s.int(0), s.int(0)) }
	inFull := s.op("&", s.op("&", s.cmp(">", mBlocks, s.int(0)), s.cmp(">", nBlocks, s.int(0))), s.cmp("<", linear, fullTiles))
	s.when(inFull, func() {
		blockLinear := s.let("block_linear", s.op("//", linear, blockSize))
		within := s.let("within_block", s.op("%", linear, blockSize))
		blockCol := s.let("block_col", s.op("//", blockLinear, mBlocks))
		rowRaw := s.let("block_row_raw", s.op("%", blockLinear, mBlocks))
		blockRow := s.let("block_row", s.sel(s.cmp("==", s.op("%", blockCol, s.int(2)), s.int(0)), rowRaw,
			s.op("-", s.op("-", mBlocks, s.int(1)), rowRaw)))
		localRow := s.let("local_row", s.op("//", within, S))
		localCol := s.let("local_col", s.op("%", within, S))
		row := s.let("tile_row", s.op("+", s.op("*", blockRow, S), localRow))
		col := s.let("tile_col", s.op("+", s.op("*", blockCol, S), localCol))
		setCoords(row, col)
	}, func() {
		s.when(s.cmp(">", resN, s.int(0)), func() {
			rem := s.let("rem", s.op("-", linear, fullTiles))
			strip := s.let("right_strip_tiles", s.op("*", rows, resN))
			s.when(s.cmp("<", rem, strip), func() {
				row := s.let("tile_row", s.op("//", rem, resN))
				col := s.let("tile_col", s.op("+", s.op("*", nBlocks, S), s.op("%", rem, resN)))
				setCoords(row, col)
			}, zero) // both remaining legs of the reference set (0, 0)
		}, func() {
			s.when(s.cmp(">", resM, s.int(0)), func() {
				rem := s.let("rem", s.op("-", linear, fullTiles))
				strip := s.let("bottom_strip_tiles", s.op("*", resM, s.op("*", nBlocks, S)))
				s.when(s.cmp("<", rem, strip), func() {
					row := s.let("tile_row", s.op("+", s.op("*", mBlocks, S), s.op("%", rem, resM)))
					col := s.let("tile_col", s.op("//", rem, resM))
					setCoords(row, col)
				}, zero)
			}, zero)
		})
	})
}

// tripleLoad is IndexedTripleTileScheduler._load.
func (s *sched) tripleLoad() {
	lin := s.get("linear_idx")
	s.set("q_idx", s.item(s.get("q_indices"), lin))
	s.set("h_idx", s.item(s.get("h_indices"), lin))
	s.set("b_idx", s.item(s.get("b_indices"), lin))
}

// linearUpdate is FlashAttentionLinearScheduler.update_current_m_n_idx.
func (s *sched) linearUpdate(lin eval.Value) {
	nh, nm := s.get("_num_heads"), s.get("_num_m_blocks")
	hm := s.op("*", nh, nm)
	s.set("batch_idx", s.op("//", lin, hm))
	s.set("head_idx", s.op("//", s.op("%", lin, hm), nm))
	s.set("m_block_idx", s.op("%", lin, nm))
}

// lptUpdate is FlashAttentionLPTScheduler.update_current_m_n_idx: the L2
// swizzle over batch*head groups, then the m blocks in reverse order.
func (s *sched) lptUpdate(lin eval.Value) {
	sw, major := s.get("_l2_swizzle"), s.get("_l2_major")
	quot, hb := s.get("_num_hb_quotient"), s.get("_num_hb")
	nh, nm := s.get("_num_heads"), s.get("_num_m_blocks")
	bidhb := s.let("bidhb", s.op("//", lin, major))
	l2mod := s.let("l2_mod", s.op("%", lin, major))
	rem := s.let("num_hb_remainder", s.max(s.op("%", hb, sw), s.int(1)))
	inQuot := s.cmp("<", bidhb, quot)
	raw := s.let("m_block_raw", s.sel(inQuot, s.op("//", l2mod, sw), s.op("//", l2mod, rem)))
	resid := s.let("bidhb_residual", s.sel(s.cmp("<", bidhb, quot), s.op("%", l2mod, sw), s.op("%", l2mod, rem)))
	actual := s.let("bidhb_actual", s.op("+", s.op("*", bidhb, sw), resid))
	s.set("batch_idx", s.op("//", actual, nh))
	s.set("head_idx", s.op("%", actual, nh))
	s.set("m_block_idx", s.op("-", s.op("-", nm, s.int(1)), raw))
}

// max is T.max(a, b).
func (s *sched) max(a, b eval.Value) eval.Value {
	if x, ok := a.(*eval.IntV); ok {
		if y, ok := b.(*eval.IntV); ok {
			return &eval.ExprV{Base: eval.Base{At: s.span}, E: &ir.IntImm{Value: max(x.V, y.V), Type: ir.Int32, Span: s.span}}
		}
	}
	ae, ok1 := s.ev.ToIR(a, ir.Int32)
	be, ok2 := s.ev.ToIR(b, eval.ExprType(ae))
	if !ok1 || !ok2 {
		return eval.Poison(s.span)
	}
	return &eval.ExprV{Base: eval.Base{At: s.span}, E: eval.MkBin(ir.Max, ae, be, s.span)}
}

// clcInit is ClusterLaunchControlScheduler.__init__: the tile counts, the
// two one-stage Pipelines of the handshake (tvm.backend.cuda.lang.pipeline,
// as that module's model makes them), the 16-byte response handle from
// pool and the scheduler warp's scalars.
func (s *sched) clcInit(c *eval.Call) {
	for i, f := range []string{"_num_m_tiles", "_num_n_tiles", "_l2_group_size", "_cta_group"} {
		s.setPy(f, c.Arg(2+i, f[1:]))
	}
	prefix, _ := s.ev.HintName(c, "clc_sched")
	s.setPy("_tirx_prefix", &eval.StrV{Base: eval.Base{At: c.At}, V: prefix})
	pool := c.Arg(1, "pool")
	pipeline, _ := pipelineAttr(s.ev, "Pipeline", c.At)
	mk := func(full string, initEmpty eval.Value) eval.Value {
		return s.ev.CallValue(pipeline, &eval.Call{At: c.At, FnSpan: c.At, Fr: c.Fr,
			Args: []eval.Value{pool, s.int(1)}, ArgSpans: []source.Span{c.ArgSpan(1, "pool"), c.At},
			Kwargs: []eval.Kwarg{{Name: "full", V: &eval.StrV{Base: eval.Base{At: c.At}, V: full}, At: c.At, Vspan: c.At}, {Name: "empty", V: &eval.StrV{Base: eval.Base{At: c.At}, V: "mbar"}, At: c.At, Vspan: c.At},
				{Name: "init_empty", V: initEmpty, At: c.At, Vspan: c.At}}})
	}
	s.setPy("sched_arr", mk("tma", s.int(1)))
	s.setPy("sched_fin", mk("mbar", c.Arg(6, "finish_arrivals")))
	if p, ok := pool.(*eval.PoolV); ok {
		alloc := PoolAttr(s.ev, p, "alloc", c.At)
		s.setPy("clc_handle", s.ev.CallValue(alloc, &eval.Call{At: c.At, FnSpan: c.At, Fr: c.Fr,
			Args: []eval.Value{&eval.TupleV{Base: eval.Base{At: c.At}, Elts: []eval.Value{s.int(4)}}, &eval.StrV{Base: eval.Base{At: c.At}, V: "uint32"}}, ArgSpans: []source.Span{c.At, c.At},
			Kwargs: []eval.Kwarg{{Name: "align", V: s.int(16), At: c.At, Vspan: c.At}}}))
	} else {
		s.setPy("clc_handle", &eval.OpaqueV{Base: eval.Base{At: c.At}, Path: "ClusterLaunchControlScheduler(...).clc_handle"})
	}
	s.scalar("_s_done", ir.Int32)
	s.scalar("_s_nxt", ir.UInt32)
}

// gm3DInit is GroupMajor3D.__init__: groups of group_rows M tiles, each
// group walking N then K, with a tail of M rows.
func (s *sched) gm3DInit(c *eval.Call) {
	s.baseInit(c, c.Arg(1, "prefix"))
	m, n, k, g := c.Arg(2, "m_tiles"), c.Arg(3, "n_tiles"), c.Arg(4, "k_tiles"), c.Arg(5, "group_rows")
	step := c.Arg(6, "step")
	if step == nil {
		step = s.int(1)
	}
	s.setPy("_step", step)
	s.scalar("tile_idx", ir.Int32)
	s.scalar("k_idx", ir.Int32)
	s.setPy("_G", g)
	s.setPy("_N", n)
	s.setPy("_K", k)
	var groups, final, safe eval.Value
	if _, static := m.(*eval.IntV); static {
		groups = s.op("//", m, g)
		final = s.op("-", m, s.op("*", groups, g))
		safe = final
		if isIntValue(final, 0) {
			safe = s.int(1)
		}
	} else {
		groups = s.truncdiv(m, g)
		final = s.op("-", m, s.op("*", groups, g))
		safe = s.max(final, s.int(1))
	}
	s.setPy("_GROUPS", groups)
	s.setPy("_FINAL_ROWS", final)
	s.setPy("_SAFE_FINAL_ROWS", safe)
	s.setPy("_GROUP_SIZE", s.op("*", s.op("*", g, n), k))
	s.setPy("_TOTAL", s.op("*", s.op("*", m, n), k))
	s.setPy("_FULL_BOUND", s.op("*", groups, s.get("_GROUP_SIZE")))
	s.setPy("_HAS_FULL", s.cmp(">", groups, s.int(0)))
	s.setPy("_HAS_TAIL", s.cmp(">", final, s.int(0)))
}

// gm3DUpdate is GroupMajor3D.update_current_m_n_idx.
func (s *sched) gm3DUpdate(lin eval.Value) {
	g, n, gs := s.get("_G"), s.get("_N"), s.get("_GROUP_SIZE")
	groups, safe, bound := s.get("_GROUPS"), s.get("_SAFE_FINAL_ROWS"), s.get("_FULL_BOUND")
	fullM := s.let("full_m", s.op("+", s.op("*", s.op("//", lin, gs), g), s.op("%", lin, g)))
	fullN := s.let("full_n", s.op("%", s.op("//", lin, g), n))
	fullK := s.let("full_k", s.op("//", s.op("%", lin, gs), s.op("*", g, n)))
	rem := s.let("rem", s.op("-", lin, bound))
	tailM := s.let("tail_m", s.op("+", s.op("*", groups, g), s.op("%", rem, safe)))
	tailN := s.let("tail_n", s.op("%", s.op("//", rem, safe), n))
	tailK := s.let("tail_k", s.op("//", rem, s.op("*", safe, n)))
	setAll := func(m, n, k eval.Value) func() {
		return func() {
			s.set("m_idx", m)
			s.set("n_idx", n)
			s.set("k_idx", k)
		}
	}
	s.when(s.op("&", s.get("_HAS_FULL"), s.cmp("<", lin, bound)), setAll(fullM, fullN, fullK), func() {
		s.when(s.get("_HAS_TAIL"), setAll(tailM, tailN, tailK), setAll(s.int(0), s.int(0), s.int(0)))
	})
}

// rankAwareUpdate is RankAwareGroupMajorTileScheduler.update_current_m_n_idx:
// group-major over the remote rows first, starting after this PE's own.
func (s *sched) rankAwareUpdate(c *eval.Call, lin eval.Value) {
	m, n, gs, ws := s.get("_m_clusters"), s.get("_n_clusters"), s.get("_group_size"), s.get("_world_size")
	myPE := s.ev.IntrinsicCall(&eval.IntrinsicV{Base: eval.Base{At: c.At}, Path: "nvshmem.my_pe"}, &eval.Call{At: c.At, FnSpan: c.At})
	myRank := s.let("my_rank", myPE)
	remote := s.let("remote_m_clusters", s.op("-", m, s.op("//", m, ws)))
	groupRows := s.let("group_rows", s.op("*", s.op("//", remote, gs), gs))
	finalRows := s.let("final_rows", s.op("-", remote, groupRows))
	repeat := s.let("group_repeat", s.op("*", gs, n))
	shift := s.op("//", s.op("*", s.op("+", myRank, s.int(1)), m), ws)
	local := s.op("//", m, ws)
	inGroups := s.and(s.cmp("<", lin, s.op("*", groupRows, n)), s.cmp(">", groupRows, s.int(0)))
	s.when(inGroups, func() {
		s.set("m_idx", s.op("%", s.op("+", s.op("+", s.op("*", s.op("//", lin, repeat), gs), s.op("%", lin, gs)), shift), m))
		s.set("n_idx", s.op("//", s.op("%", lin, repeat), gs))
	}, func() {
		s.when(s.cmp("<", lin, s.op("*", remote, n)), func() {
			r := s.let("remainder_idx", s.op("-", lin, s.op("*", groupRows, n)))
			s.set("m_idx", s.op("%", s.op("+", s.op("+", groupRows, s.op("%", r, finalRows)), shift), m))
			s.set("n_idx", s.op("//", r, finalRows))
		}, func() {
			r := s.let("remainder_idx", s.op("-", lin, s.op("*", remote, n)))
			s.set("m_idx", s.op("%", s.op("+", s.op("+", remote, s.op("%", r, local)), shift), m))
			s.set("n_idx", s.op("//", r, local))
		})
	})
}

// and is Python `a and b` on conditions in TIR code: a logical and of
// device values (T.And), else Python's short-circuit.
func (s *sched) and(a, b eval.Value) eval.Value {
	ae, aDev := a.(*eval.ExprV)
	be, bDev := b.(*eval.ExprV)
	switch {
	case aDev && bDev:
		return &eval.ExprV{Base: eval.Base{At: s.span}, E: eval.MkBin(ir.And, ae.E, be.E, s.span)}
	case !aDev && !eval.Truthy(a):
		return a
	case !aDev:
		return b
	}
	if !eval.Truthy(b) {
		return b
	}
	return a
}
