// Colour-links the source with its lowered views (CUDA, TIRx), as
// Compiler Explorer does: the view opens at the kernel (or tile call)
// under the cursor; moving the cursor in the source reveals and
// highlights the lines its tile call produced in every visible view; the
// cursor in a view reveals and highlights the source call. The map comes
// from the server (tilels/outputRanges, lsp/output_ranges.go), asked
// again whenever a view's text changes.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';

import { OUTPUT_RANGES, OutputMap, OutputRange, Rng, atOutputLine, atSource, openingRange } from './outmap';

/** The scheme of the server's lowered views (LSP 3.18 textDocumentContent). */
export const LOWERED_SCHEME = 'tilels-lowered';

function rangeOf(r: Rng): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** The whole lines of r.output, as a vscode range (end on the last line). */
function outputRange(r: OutputRange): vscode.Range {
  const last = Math.max(r.output.start.line, r.output.end.line - 1);
  return new vscode.Range(r.output.start.line, 0, last, 0);
}

/**
 * Only tile calls are linked as the cursor moves: a kernel's range serves
 * to open a view at it (following every cursor move inside a kernel's
 * plain statements would jump the view to the kernel's first line).
 */
function callOnly(r: OutputRange | undefined): OutputRange | undefined {
  return r?.kind === 'call' ? r : undefined;
}

export class LoweredLink implements vscode.Disposable {
  /** The map of each open lowered view, by its URI. */
  private readonly maps = new Map<string, OutputMap>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly sourceDeco: vscode.TextEditorDecorationType;
  private readonly outputDeco: vscode.TextEditorDecorationType;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly client: () => LanguageClient | undefined) {
    const style: vscode.DecorationRenderOptions = {
      backgroundColor: new vscode.ThemeColor('editor.wordHighlightStrongBackground'),
      overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.wordHighlightStrongForeground'),
      overviewRulerLane: vscode.OverviewRulerLane.Center,
    };
    this.sourceDeco = vscode.window.createTextEditorDecorationType(style);
    this.outputDeco = vscode.window.createTextEditorDecorationType({ ...style, isWholeLine: true });
    this.subs.push(
      this.sourceDeco,
      this.outputDeco,
      vscode.window.onDidChangeTextEditorSelection((e) => this.onSelection(e.textEditor)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === LOWERED_SCHEME && e.contentChanges.length > 0) {
          this.refetch(e.document.uri.toString(), 100);
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === LOWERED_SCHEME) {
          this.maps.delete(doc.uri.toString());
        }
      }),
      vscode.window.onDidChangeVisibleTextEditors((eds) => {
        for (const ed of eds) {
          const u = ed.document.uri;
          if (u.scheme === LOWERED_SCHEME && !this.maps.has(u.toString())) {
            this.refetch(u.toString(), 0);
          }
        }
      }),
    );
  }

  dispose(): void {
    for (const t of this.pending.values()) {
      clearTimeout(t);
    }
    for (const d of this.subs) {
      d.dispose();
    }
  }

  /** The map of a lowered view (for tests and the commands). */
  mapOf(view: string): OutputMap | undefined {
    return this.maps.get(view);
  }

  private async fetch(view: string): Promise<OutputMap | undefined> {
    const c = this.client();
    if (!c) {
      return undefined;
    }
    try {
      const m = (await c.sendRequest(OUTPUT_RANGES, { uri: view })) as OutputMap;
      m.source = vscode.Uri.parse(m.source).toString(); // VS Code's spelling of the URI
      this.maps.set(view, m);
      return m;
    } catch (err) {
      c.warn(`${OUTPUT_RANGES} ${view}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** Asks for a view's map again after delayMs, then re-links the cursor. */
  private refetch(view: string, delayMs: number): void {
    const old = this.pending.get(view);
    if (old) {
      clearTimeout(old);
    }
    this.pending.set(
      view,
      setTimeout(() => {
        this.pending.delete(view);
        void this.fetch(view).then((m) => {
          const src = m && this.sourceEditor(m);
          if (src) {
            this.fromSource(src, false);
          }
        });
      }, delayMs),
    );
  }

  /**
   * A lowered view was just shown (window/showDocument): it opens at the
   * kernel or tile call under the source's cursor, at the top.
   */
  async opened(view: vscode.Uri): Promise<void> {
    const m = await this.fetch(view.toString());
    const out = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === view.toString());
    if (!m || !out) {
      return;
    }
    const src = this.sourceEditor(m);
    const p = src?.selection.active ?? new vscode.Position(0, 0);
    const r = openingRange(m, { line: p.line, character: p.character });
    if (!r) {
      return;
    }
    out.revealRange(outputRange(r), vscode.TextEditorRevealType.AtTop);
    if (src) {
      this.fromSource(src, false);
    }
  }

  private sourceEditor(m: OutputMap): vscode.TextEditor | undefined {
    return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === m.source);
  }

  private onSelection(ed: vscode.TextEditor): void {
    if (ed.document.uri.scheme === LOWERED_SCHEME) {
      this.fromOutput(ed);
    } else if (ed.document.languageId === 'python') {
      this.fromSource(ed, true);
    }
  }

  /** The cursor in the source: highlight (and reveal) its call in every visible view. */
  private fromSource(src: vscode.TextEditor, reveal: boolean): void {
    const p = src.selection.active;
    const at = { line: p.line, character: p.character };
    let shown: OutputRange | undefined;
    for (const out of vscode.window.visibleTextEditors) {
      const m = this.maps.get(out.document.uri.toString());
      if (out.document.uri.scheme !== LOWERED_SCHEME || !m || m.source !== src.document.uri.toString()) {
        continue;
      }
      const r = callOnly(atSource(m, at));
      out.setDecorations(this.outputDeco, r ? [outputRange(r)] : []);
      if (r && reveal) {
        out.revealRange(outputRange(r), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      shown = shown ?? r;
    }
    src.setDecorations(this.sourceDeco, shown ? [rangeOf(shown.source)] : []);
  }

  /** The cursor in a view: highlight its lines and reveal the source call. */
  private fromOutput(out: vscode.TextEditor): void {
    const m = this.maps.get(out.document.uri.toString());
    if (!m) {
      return;
    }
    const r = callOnly(atOutputLine(m, out.selection.active.line));
    out.setDecorations(this.outputDeco, r ? [outputRange(r)] : []);
    const src = this.sourceEditor(m);
    if (!src) {
      return;
    }
    src.setDecorations(this.sourceDeco, r ? [rangeOf(r.source)] : []);
    if (r) {
      src.revealRange(rangeOf(r.source), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }
}
