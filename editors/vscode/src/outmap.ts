// The source <-> lowered view map without vscode imports (unit-tested):
// the server's tilels/outputRanges answer and the lookups the editor
// makes with it (which range the cursor is in, on either side).

/** A zero-based LSP position. */
export interface Pos {
  line: number;
  character: number;
}

/** A zero-based LSP range, end exclusive. */
export interface Rng {
  start: Pos;
  end: Pos;
}

/**
 * One kernel or top-level tile call: its range in the source document and
 * the whole lines [output.start.line, output.end.line) of the lowered
 * document it produced. A call's output lies inside its kernel's.
 */
export interface OutputRange {
  kind: 'kernel' | 'call';
  kernel: string;
  source: Rng;
  output: Rng;
}

/** The answer to tilels/outputRanges for one lowered view. */
export interface OutputMap {
  source: string;
  version: number;
  ranges: OutputRange[];
}

/** The request the server answers (lsp/output_ranges.go). */
export const OUTPUT_RANGES = 'tilels/outputRanges';

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Whether p is in r (start inclusive, end exclusive). */
export function contains(r: Rng, p: Pos): boolean {
  return before(r.start, p) && !before(r.end, p);
}

/**
 * The innermost range accepted by ok: the first call, else the first
 * kernel. When several kernels come from one def (a factory called
 * twice) the first is the one revealed.
 */
function innermost(m: OutputMap | undefined, ok: (r: OutputRange) => boolean): OutputRange | undefined {
  let best: OutputRange | undefined;
  for (const r of m?.ranges ?? []) {
    if (ok(r) && (best === undefined || (r.kind === 'call' && best.kind !== 'call'))) {
      best = r;
    }
  }
  return best;
}

/** The range whose source holds the cursor p of the source document. */
export function atSource(m: OutputMap | undefined, p: Pos): OutputRange | undefined {
  return innermost(m, (r) => contains(r.source, p));
}

/** The range whose output holds line of the lowered document. */
export function atOutputLine(m: OutputMap | undefined, line: number): OutputRange | undefined {
  return innermost(m, (r) => r.output.start.line <= line && line < r.output.end.line);
}

/**
 * Where a lowered view opens for the cursor p of its source: the call or
 * kernel under the cursor, else the kernel nearest above it, else the
 * first kernel (never line 1 and its #include lines when there is one).
 */
export function openingRange(m: OutputMap | undefined, p: Pos): OutputRange | undefined {
  const at = atSource(m, p);
  if (at) {
    return at;
  }
  const kernels = (m?.ranges ?? []).filter((r) => r.kind === 'kernel');
  let above: OutputRange | undefined;
  for (const k of kernels) {
    if (before(k.source.start, p)) {
      above = k;
    }
  }
  return above ?? kernels[0];
}

/** The number of output lines a range covers (at least 1). */
export function outputLines(r: OutputRange): number {
  return Math.max(1, r.output.end.line - r.output.start.line);
}
