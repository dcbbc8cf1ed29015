// Bookkeeping of the extension without vscode imports (unit-tested):
// which documents the server sees, when the status bar must ask again,
// and the case picker's items.

import { importsTirx } from './tirx';

/**
 * The documents sent to the server: a Python document is attached when
 * it is opened importing the TIRx DSL, or when an edit adds the import
 * (then it is opened on the server with its current text). It stays
 * attached until closed.
 */
export class Attachments {
  private readonly uris = new Set<string>();

  /** On open: whether to send didOpen. */
  open(uri: string, text: string): boolean {
    if (importsTirx(text)) {
      this.uris.add(uri);
      return true;
    }
    return false;
  }

  /**
   * On change: 'forward' the didChange of an attached document, 'open' a
   * document the edit made a TIRx file (send didOpen with the whole new
   * text instead), or 'skip'.
   */
  change(uri: string, text: () => string): 'forward' | 'open' | 'skip' {
    if (this.uris.has(uri)) {
      return 'forward';
    }
    if (importsTirx(text())) {
      this.uris.add(uri);
      return 'open';
    }
    return 'skip';
  }

  /** On close: whether to send didClose. */
  close(uri: string): boolean {
    return this.uris.delete(uri);
  }

  has(uri: string): boolean {
    return this.uris.has(uri);
  }

  clear(): void {
    this.uris.clear();
  }
}

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** The result of tilels.kernelSummary (docs/lsp.md). */
export interface KernelSummary {
  kernel: string;
  case?: number;
  count?: number;
  label?: string;
  calls: number;
  summary: string;
  text: string;
  tooltip: string;
  range: Range;
  unresolved?: string[];
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** Whether pos lies in r (start inclusive, end exclusive). */
export function inRange(r: Range, pos: Position): boolean {
  return !before(pos, r.start) && before(pos, r.end);
}

/**
 * The last answer of tilels.kernelSummary, for the status bar: a cursor
 * move inside the same kernel def of the same document version needs no
 * new request. null answers (outside every def) are not cached: the
 * status bar asks again on each move there.
 */
export class SummaryCache {
  private last: { uri: string; version: number; summary: KernelSummary } | undefined;

  /** The cached summary that still holds for pos, if any. */
  lookup(uri: string, version: number, pos: Position): KernelSummary | undefined {
    const l = this.last;
    if (l && l.uri === uri && l.version === version && inRange(l.summary.range, pos)) {
      return l.summary;
    }
    return undefined;
  }

  store(uri: string, version: number, summary: KernelSummary | null): void {
    this.last = summary ? { uri, version, summary } : undefined;
  }

  /** Forgets the cached answer (a case was selected, settings changed, new diagnostics). */
  invalidate(): void {
    this.last = undefined;
  }
}

/** The status bar item's text for a summary. */
export function statusText(s: KernelSummary): string {
  return `$(circuit-board) ${s.text}`;
}

/** The result of tilels.pickCase (docs/lsp.md). */
export interface PickCaseResult {
  kernel: string;
  selected: number;
  cases: { case: number; label: string; id?: string; source?: string }[];
}

export interface CaseItem {
  label: string;
  description: string;
  index: number;
  picked: boolean;
}

/** The quick pick items for a kernel's cases, the selected one marked. */
export function caseItems(r: PickCaseResult): CaseItem[] {
  const n = r.cases.length;
  return r.cases.map((c) => {
    const from = [c.source, c.id].filter((x) => x).join(' ');
    const parts = [c.case === r.selected ? 'selected' : '', from ? `from ${from}` : ''].filter((x) => x);
    return {
      label: `${c.case}/${n}: ${c.label || '(no parameters)'}`,
      description: parts.join(' · '),
      index: c.case,
      picked: c.case === r.selected,
    };
  });
}

/** The result of tilels.reference (docs/lsp.md): the release a document is analysed under. */
export interface ReferenceInfo {
  release: string;
  short: string;
  source: string;
  why: string;
  text: string;
  tooltip: string;
}

/**
 * The reference status bar item: the server's text ("TIRx 0.27 ✓ auto")
 * and a tooltip with the hover's line, why, and what a click does.
 */
export function referenceStatus(r: ReferenceInfo): { text: string; tooltip: string } {
  const how =
    r.source === 'setting'
      ? 'Click to change the tilels.reference setting.'
      : r.source === 'directive'
        ? 'The file pins it (# tilels: reference=…); click to see the tilels.reference setting.'
        : 'Chosen automatically; click to set tilels.reference or tilels.python.';
  return { text: `$(versions) ${r.text}`, tooltip: `${r.tooltip}\n\n${r.why}\n\n${how}` };
}

/**
 * The settings of the `tilels` section the server reads (lsp/settings.go),
 * sent as initializationOptions and on each change; tilels.serverPath is
 * the client's own.
 */
export const SERVER_SETTINGS = [
  'arch',
  'inlayHints',
  'inlayHintStyle',
  'hoverFormat',
  'maxCases',
  'bind',
  'extraPaths',
  'reference',
  'python',
  'hoverPicture',
  'lineDirectives',
  'nvcc',
] as const;

/** serverSettings reads each of SERVER_SETTINGS with get. */
export function serverSettings(get: (key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of SERVER_SETTINGS) {
    out[k] = get(k);
  }
  return out;
}

/**
 * The tilels section as the server reads it, with `python` and `nvcc`
 * expanded like tilels.serverPath (`~`, `${workspaceFolder}`, a relative
 * path with a separator from the first workspace folder); expand does
 * that for one path. Other settings pass unchanged.
 */
export function serverSection(section: Record<string, unknown>, expand: (p: string) => string): Record<string, unknown> {
  const out = { ...section };
  for (const k of ['python', 'nvcc']) {
    const v = out[k];
    if (typeof v === 'string' && v.trim() !== '') {
      out[k] = expand(v);
    }
  }
  return out;
}
