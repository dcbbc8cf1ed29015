// Package dispatch is the target-independent core of the TIRx tile-primitive
// dispatcher (spec reference/tirx-dispatch.md §1.3, §1.6, §3; reference:
// apache/tvm at abe2526b3e, python/tvm/tirx/operator/tile_primitive/
// dispatcher.py and src/tirx/transform/tile_primitive_dispatch.cc).
//
// It has two halves:
//
//   - The registry (Registry, Variant, Pred, Decline, Explanation): given one
//     tile call in context (a *Call), it tries the registered variants of the
//     call's op in TVM order (-Priority, Name), evaluates every predicate of
//     a variant (no short-circuit), runs the first variant whose predicates
//     all pass, and records every attempt. Explanation.Table renders TVM's
//     failure table byte for byte (the "opcall:" lines hold the call
//     rendered from the IR, see CallText).
//   - The pass (Lower): scope-id collection and extent inference, the launch
//     configuration, active-thread-set tracking through narrowing `if`s,
//     the per-call (inter, intra) split, and selection for every TileCall.
//
// Contract and invariants:
//
//   - Declines are values. A predicate returns nil (pass) or a *Decline; an
//     emitter returns (*Result, nil) or (nil, *Decline). (nil, nil) from
//     Emit is a bug and is reported as TVM's "impl returned None; schedule
//     must return PrimFunc or raise fail()" decline.
//   - A panic inside a predicate or emitter is recovered and reported as a
//     "predicate exception: T: msg" / "exception — T: msg" row; it never
//     crashes the caller. Raise lets a variant reproduce a Python exception
//     on purpose (e.g. TVM's KeyError: 'cluster' in the copy fallback).
//   - Lower never mutates its input: blocks on the path to a TileCall are
//     copied; every other node is shared with the input.
//   - Lower returns one Decision per TileCall, in source (pre-order) order,
//     and replaces each TileCall by an *ir.Lowered (Variant "" and an empty
//     body when nothing applies; a dispatch/no-variant or
//     dispatch/forced-variant error diagnostic says why).
//   - Everything is deterministic: map iteration never leaks into output.
//
// Example:
//
//	out := dispatch.Lower(fn, dispatch.DefaultTarget(), cuda.Variants())
//	for _, d := range out.Decisions {
//		fmt.Println(d.Call.Op, d.Scope, d.Threads, d.Variant)
//	}
package dispatch
