// Package picture draws what a lowered tile call does, for people who
// would rather look than read: the partition of the call's tile (which
// thread owns each element, coloured by thread) and the bank map of one
// warp-level shared-memory instruction (which thread's word sits in which
// of the 32 banks in each wavefront, conflicts highlighted).
//
// The package holds editor-neutral models (Partition, BankMap) and two
// renderers of them: SVG (the CLI's --emit svg, the VS Code webview) and a
// compact Unicode grid at most 80 columns wide (terminal editors' hovers).
// It knows no LSP and no JSON.
//
// Where the figures come from:
//
//   - A partition is read from the layout of a register tile (a local
//     buffer whose layout has thread axes: laneid, warpid, tx, tid_in_wg,
//     ...), else from the lowered code, evaluated once per thread of the
//     call (eval.go): the thread that moves an element owns it.
//   - A bank map is built from BankAccess values (thread, byte address,
//     width) with the textbook rules (Banks): 32 banks of 4 bytes; a
//     32-bit access is served for the whole warp at once, a 64-bit one per
//     half warp and a 128-bit one per quarter warp; each bank serves one
//     distinct word per wavefront, threads reading the same word share it.
//     FromLowered feeds it with the shared accesses of the evaluator
//     below; a fuller simulator can feed it instead.
//
// Threads are numbered within the call's scope: thread t has tx = t,
// laneid = t % 32, warpid = t / 32, tid_in_wg = t % 128, wid_in_wg =
// (t / 32) % 4 and wgid = t / 128. Variables the lowered code reads from
// outside the call (an enclosing loop's) are taken as 0 and named in the
// notes.
//
// Invariant: a model is computed once and never modified; both renderers
// draw the same model, and a renderer's output depends on nothing else.
package picture
