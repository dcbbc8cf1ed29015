// Whether a Python file uses the TIRx DSL: the extension attaches the
// language server only to such files. This is the one decision about
// Python text made in TypeScript; everything about kernels comes from
// the server.

// An import of the DSL on a line of its own (leading whitespace allowed:
// an import inside a function or an `if`):
//
//   from tvm.script import tirx [as T]           from tvm.script import tir, tirx
//   from tvm.script.tirx import tile as Tx       import tvm.script.tirx
//   import tvm.tirx                              from tvm.tirx.layout import S
//   from tvm import tirx                         import tvm.tirx as tirx
const fromDsl = /^[ \t]*from[ \t]+tvm(?:\.script)?\.tirx(?:\.[\w.]+)?[ \t]+import\b/m;
const importDsl = /^[ \t]*import[ \t]+(?:[\w.]+[ \t]*(?:as[ \t]+\w+)?[ \t]*,[ \t]*)*tvm(?:\.script)?\.tirx\b/m;
// `from tvm.script import tirx` / `from tvm import tirx`, in a name list
// that may be parenthesised over several lines.
const fromParent = /^[ \t]*from[ \t]+tvm(?:\.script)?[ \t]+import[ \t]*(\([^)]*\)|[^\n]*)/gm;

/** Reports whether text imports the TIRx DSL (see the forms above). */
export function importsTirx(text: string): boolean {
  if (fromDsl.test(text) || importDsl.test(text)) {
    return true;
  }
  fromParent.lastIndex = 0;
  for (let m = fromParent.exec(text); m !== null; m = fromParent.exec(text)) {
    const names = m[1].replace(/#[^\n]*/g, '').replace(/[()\\]/g, '').split(',');
    if (names.some((n) => n.trim().split(/\s+/)[0] === 'tirx')) {
      return true;
    }
  }
  return false;
}

/**
 * Whether the extension starts the language server for a document: a
 * Python file (on disk or untitled) that imports the TIRx DSL. VS Code
 * activates the extension on any Python file (activation events cannot
 * look at a file's text); this decides whether anything more happens.
 */
export function startsServer(languageId: string, scheme: string, text: string): boolean {
  return languageId === 'python' && (scheme === 'file' || scheme === 'untitled') && importsTirx(text);
}
