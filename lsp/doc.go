// Package lsp is the tilels language server: the Language Server Protocol
// over JSON-RPC (go.lsp.dev/protocol and jsonrpc2 v1.0.1) in front of the
// lower pipeline. See docs/lsp.md for the features, settings, commands and
// the inlay-hint format.
//
// Contract and invariants:
//
//   - Notifications (didOpen, didChange, didClose, ...) run on the
//     connection's read loop in wire order; requests are released to run
//     concurrently and each starts after every notification that arrived
//     before it. A handler error or panic never ends the connection:
//     requests get a JSON-RPC error, notifications are logged and dropped.
//   - Text sync is incremental. Every document version is an immutable
//     byte slice; Mapper (mapper.go) is the only code that converts between
//     byte offsets and LSP positions (UTF-16).
//   - didChange returns at once. Analysis runs on one worker goroutine per
//     document through a lower.Session (one kernel re-analysed per edit
//     where possible); an edit cancels the analysis in flight, the worker
//     coalesces to the newest version, and diagnostics of a version older
//     than the newest are never published.
//   - Reads (hover, hints, symbols, ...) use the last complete snapshot, an
//     immutable value behind an atomic pointer, without locks; positions
//     are carried between the snapshot's text and the newest text through
//     the one edit region that separates them.
//   - A kernel def with several bound cases is shown in one of them, the
//     document's selected case (cases.go): an immutable map behind an
//     atomic pointer, replaced by tilels.selectCase. Diagnostics are
//     every case's; everything else uses the selected case.
//   - Logs go to the configured writer (stderr by default), never to the
//     protocol stream. Error-level logs mean a bug in tilels.
package lsp
