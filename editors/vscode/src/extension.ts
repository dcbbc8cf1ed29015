// The TIRx extension: starts the tilels language server for Python files
// that import the TIRx DSL and adds commands and a status bar item on top
// of its protocol features. Everything about kernels (diagnostics, hovers,
// inlay hints, code lenses, the lowered CUDA, cases, the status summary)
// comes from the server; this file only wires VS Code to it.

import * as vscode from 'vscode';
import {
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ResponseError,
  ServerOptions,
  ShowDocumentParams,
  ShowDocumentRequest,
  ShowDocumentResult,
  State,
} from 'vscode-languageclient/node';

import { probe, problemMessage, resolveServerPath } from './server';
import {
  Attachments,
  KernelSummary,
  PickCaseResult,
  ReferenceInfo,
  SummaryCache,
  caseItems,
  referenceStatus,
  serverSection,
  serverSettings,
  statusText,
} from './state';
import { PictureResult, pictureHtml, pictureTitle } from './picture';
import { LOWERED_SCHEME, LoweredLink } from './lowered';
import { importsTirx, startsServer } from './tirx';

let ext: Extension | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  ext = new Extension(ctx);
  ext.register();
  await ext.startIfNeeded();
}

export async function deactivate(): Promise<void> {
  await ext?.stop();
  ext = undefined;
}

function key(doc: vscode.TextDocument): string {
  return doc.uri.toString();
}

function isPython(doc: vscode.TextDocument): boolean {
  return doc.languageId === 'python' && (doc.uri.scheme === 'file' || doc.uri.scheme === 'untitled');
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

class Extension {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** The server command whose check failed: not tried again unasked. */
  private failedFor: string | undefined;
  private readonly attachments = new Attachments();
  private readonly cache = new SummaryCache();
  private readonly status: vscode.StatusBarItem;
  private statusTimer: ReturnType<typeof setTimeout> | undefined;
  private statusSeq = 0;
  /** The source <-> lowered view colour-link (lowered.ts). */
  private link: LoweredLink | undefined;
  /** The server has no tilels.kernelSummary (an older build). */
  private noSummary = false;
  /** The reference release of the active document (tilels.reference). */
  private readonly refStatus: vscode.StatusBarItem;
  private refCache: { uri: string; version: number; info: ReferenceInfo | null } | undefined;
  /** The server has no tilels.reference (an older build). */
  private noReference = false;

  constructor(private readonly ctx: vscode.ExtensionContext) {
    this.status = vscode.window.createStatusBarItem('tilels.kernel', vscode.StatusBarAlignment.Left, 10);
    this.status.name = 'TIRx kernel';
    this.refStatus = vscode.window.createStatusBarItem('tilels.reference', vscode.StatusBarAlignment.Left, 9);
    this.refStatus.name = 'TIRx reference release';
    this.refStatus.command = 'tilels.chooseReference';
  }

  register(): void {
    const subs = this.ctx.subscriptions;
    subs.push(
      this.status,
      this.refStatus,
      (this.link = new LoweredLink(() => this.client)),
      vscode.commands.registerCommand('tilels.showLoweredCuda', () => this.showLowered()),
      vscode.commands.registerCommand('tilels.showPtx', () => this.showLowered('ptx')),
      vscode.commands.registerCommand('tilels.showSass', () => this.showLowered('sass')),
      vscode.commands.registerCommand('tilels.chooseReference', () => this.chooseReference()),
      vscode.commands.registerCommand('tilels.writeCudaFile', () => this.writeCuda()),
      vscode.commands.registerCommand('tilels.selectParameterCase', () => this.selectCase()),
      vscode.commands.registerCommand('tilels.showPicture', () => this.showPicture()),
      vscode.commands.registerCommand('tilels.restartServer', () => this.restart()),
      vscode.workspace.onDidOpenTextDocument((doc) => this.onDocument(doc)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        this.onDocument(e.document);
        if (e.document === vscode.window.activeTextEditor?.document && !this.tirxContext) {
          this.updateContext(); // an edit that adds the import
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfiguration(e)),
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.updateContext();
        this.scheduleStatus(0);
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) {
          this.scheduleStatus(150);
        }
      }),
      vscode.languages.onDidChangeDiagnostics((e) => {
        const ed = vscode.window.activeTextEditor;
        if (ed && e.uris.some((u) => u.toString() === key(ed.document))) {
          this.cache.invalidate();
          this.refCache = undefined; // a new analysis, maybe under another release
          this.scheduleStatus(50);
        }
      }),
    );
  }

  /** Starts the server when an open document imports the TIRx DSL. */
  async startIfNeeded(): Promise<void> {
    this.updateContext();
    if (vscode.workspace.textDocuments.some((d) => startsServer(d.languageId, d.uri.scheme, d.getText()))) {
      await this.ensureClient(false);
    }
  }

  private onDocument(doc: vscode.TextDocument): void {
    if (!this.client && !this.starting && startsServer(doc.languageId, doc.uri.scheme, doc.getText())) {
      void this.ensureClient(false);
    }
  }

  /**
   * Sets the context key tilels.tirxFile (the palette shows the TIRx
   * commands only in files that import the DSL) for the active editor.
   */
  private updateContext(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const on = doc !== undefined && (this.attachments.has(key(doc)) || startsServer(doc.languageId, doc.uri.scheme, doc.getText()));
    if (on !== this.tirxContext) {
      this.tirxContext = on;
      void vscode.commands.executeCommand('setContext', 'tilels.tirxFile', on);
    }
  }

  private tirxContext: boolean | undefined;

  private onConfiguration(e: vscode.ConfigurationChangeEvent): void {
    if (e.affectsConfiguration('tilels.serverPath')) {
      this.failedFor = undefined;
      if (this.client || this.starting) {
        void this.restart();
      } else {
        void this.startIfNeeded();
      }
      return;
    }
    if (e.affectsConfiguration('tilels')) {
      // The server pulls the new settings itself (workspace/configuration).
      this.cache.invalidate();
      this.refCache = undefined;
      this.scheduleStatus(300);
    }
  }

  private serverCommand(): string {
    const setting = vscode.workspace.getConfiguration('tilels').get<string>('serverPath', '');
    return resolveServerPath(setting, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  }

  /**
   * The running client, started after checking `tilels --version`. A
   * failed check is reported once; it is tried again when asked
   * (interactive: a command) or when tilels.serverPath changes.
   */
  async ensureClient(interactive: boolean): Promise<LanguageClient | undefined> {
    if (this.client) {
      return this.client;
    }
    if (this.starting) {
      return this.starting;
    }
    const command = this.serverCommand();
    if (!interactive && this.failedFor === command) {
      return undefined;
    }
    this.starting = this.start(command).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(command: string): Promise<LanguageClient | undefined> {
    const found = await probe(command);
    const problem = problemMessage(found);
    if (problem !== undefined) {
      this.failedFor = command;
      void vscode.window.showErrorMessage(problem, 'Open Settings').then((choice) => {
        if (choice === 'Open Settings') {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'tilels.serverPath');
        }
      });
      return undefined;
    }
    this.failedFor = undefined;
    // No transport: stdio without the --stdio flag tilels does not take.
    const serverOptions: ServerOptions = { command, args: ['serve'] };
    const client = new LanguageClient('tilels', 'TIRx (tilels)', serverOptions, this.clientOptions());
    client.onDidChangeState((e) => {
      if (this.client !== undefined && this.client !== client) {
        return; // a client replaced by a restart
      }
      if (e.newState !== State.Running) {
        this.attachments.clear();
        this.cache.invalidate();
      }
      this.scheduleStatus(0);
    });
    try {
      await client.start();
    } catch (err) {
      this.failedFor = command;
      void vscode.window.showErrorMessage(`TIRx: could not start "${command} serve": ${errorText(err)}`);
      return undefined;
    }
    this.client = client;
    this.scheduleStatus(0);
    return client;
  }

  /**
   * Stops the server. The client leaves the running state before this
   * returns its promise, so that a configuration listener that runs after
   * ours (the client's own) sees it stopping rather than sending to it.
   */
  stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.attachments.clear();
    this.cache.invalidate();
    this.refCache = undefined;
    this.status.hide();
    this.refStatus.hide();
    if (!client || client.state !== State.Running) {
      return Promise.resolve();
    }
    return client.stop().catch((err) => {
      void vscode.window.showWarningMessage(`TIRx: stopping the server: ${errorText(err)}`);
    });
  }

  private restart(): Promise<void> {
    if (this.starting) {
      return this.starting.then(() => this.restart());
    }
    const stopped = this.stop();
    return stopped.then(async () => {
      this.failedFor = undefined;
      await this.ensureClient(true);
    });
  }

  private watcher: vscode.FileSystemWatcher | undefined;

  /** One watcher of the workspace's Python files, for every client. */
  private pythonWatcher(): vscode.FileSystemWatcher {
    if (!this.watcher) {
      this.watcher = vscode.workspace.createFileSystemWatcher('**/*.py');
      this.ctx.subscriptions.push(this.watcher);
    }
    return this.watcher;
  }

  /** The tilels section of the settings, as the server reads it. */
  private settings(): Record<string, unknown> {
    const c = vscode.workspace.getConfiguration('tilels');
    return this.forServer(serverSettings((k) => c.get(k)));
  }

  /** section with tilels.python expanded as tilels.serverPath is. */
  private forServer(section: Record<string, unknown>): Record<string, unknown> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return serverSection(section, (p) => resolveServerPath(p, folder));
  }

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
      ],
      // Python files changed on disk: documents importing them are
      // analysed again (the server's workspace imports).
      synchronize: { configurationSection: 'tilels', fileEvents: this.pythonWatcher() },
      initializationOptions: this.settings(),
      outputChannelName: 'TIRx (tilels)',
      middleware: this.middleware(),
    };
  }

  /**
   * Only documents that import the TIRx DSL reach the server; the
   * lowered views open beside the source; a case selection (the code
   * lens) updates the status bar.
   */
  private middleware(): Middleware {
    const attached = (doc: vscode.TextDocument) => this.attachments.has(key(doc));
    return {
      didOpen: (doc, next) => (this.attachments.open(key(doc), doc.getText()) ? next(doc) : Promise.resolve()),
      didChange: async (e, next) => {
        switch (this.attachments.change(key(e.document), () => e.document.getText())) {
          case 'forward':
            return next(e);
          case 'open': {
            const c = this.client;
            if (c) {
              await c.sendNotification(DidOpenTextDocumentNotification.type, c.code2ProtocolConverter.asOpenTextDocumentParams(e.document));
            }
            return;
          }
        }
      },
      didClose: (doc, next) => (this.attachments.close(key(doc)) ? next(doc) : Promise.resolve()),
      provideHover: (doc, pos, token, next) => (attached(doc) ? next(doc, pos, token) : undefined),
      provideInlayHints: (doc, range, token, next) => (attached(doc) ? next(doc, range, token) : []),
      provideCodeLenses: (doc, token, next) => (attached(doc) ? next(doc, token) : []),
      provideCodeActions: (doc, range, context, token, next) => (attached(doc) ? next(doc, range, context, token) : []),
      provideDocumentSymbols: (doc, token, next) => (attached(doc) ? next(doc, token) : []),
      provideDefinition: (doc, pos, token, next) => (attached(doc) ? next(doc, pos, token) : undefined),
      window: {
        showDocument: (params, token, next) => this.showDocument(params, token, next),
      },
      workspace: {
        // The server pulls section tilels: expand tilels.python in it.
        configuration: async (params, token, next) => {
          const res = await next(params, token);
          if (!Array.isArray(res)) {
            return res;
          }
          return res.map((v, i) =>
            params.items[i]?.section === 'tilels' && v !== null && typeof v === 'object' ? this.forServer(v as Record<string, unknown>) : v,
          );
        },
      },
      executeCommand: async (command, args, next) => {
        const res = await next(command, args);
        if (command === 'tilels.selectCase') {
          this.cache.invalidate();
          this.scheduleStatus(0);
        }
        return res;
      },
    };
  }

  /**
   * window/showDocument: a lowered view opens beside the source (or where
   * it is already shown); the text comes from the server through the
   * client's textDocumentContent provider and follows its refreshes.
   */
  private async showDocument(
    params: ShowDocumentParams,
    token: vscode.CancellationToken,
    next: ShowDocumentRequest.HandlerSignature,
  ): Promise<ShowDocumentResult> {
    const uri = this.client ? this.client.protocol2CodeConverter.asUri(params.uri) : vscode.Uri.parse(params.uri);
    if (uri.scheme !== LOWERED_SCHEME || params.external === true) {
      const res = await next(params, token);
      return res instanceof ResponseError ? { success: false } : res;
    }
    try {
      let doc = await vscode.workspace.openTextDocument(uri);
      if (uri.path.endsWith('.tirx') && doc.languageId !== 'python') {
        doc = await vscode.languages.setTextDocumentLanguage(doc, 'python');
      }
      const shown = vscode.window.visibleTextEditors.find((e) => key(e.document) === uri.toString());
      await vscode.window.showTextDocument(doc, {
        viewColumn: shown?.viewColumn ?? vscode.ViewColumn.Beside,
        preserveFocus: params.takeFocus !== true,
        preview: false,
      });
      await this.link?.opened(uri);
      return { success: true };
    } catch (err) {
      this.client?.warn(`showDocument ${uri.toString()}: ${errorText(err)}`);
      return { success: false };
    }
  }

  /** The active editor when it shows a TIRx file, else a message. */
  private activeTirx(): vscode.TextEditor | undefined {
    const ed = vscode.window.activeTextEditor;
    if (!ed || !isPython(ed.document)) {
      void vscode.window.showInformationMessage('TIRx: open a Python file that imports the TIRx DSL first.');
      return undefined;
    }
    if (!this.attachments.has(key(ed.document)) && !importsTirx(ed.document.getText())) {
      void vscode.window.showInformationMessage(
        'TIRx: this file does not import the TIRx DSL (e.g. "from tvm.script import tirx as T").',
      );
      return undefined;
    }
    return ed;
  }

  private async command<T>(client: LanguageClient, command: string, args: unknown[]): Promise<T> {
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  /** Runs fn with the client and the active TIRx editor; errors become messages. */
  private async withActive(what: string, fn: (client: LanguageClient, ed: vscode.TextEditor) => Promise<void>): Promise<void> {
    const ed = this.activeTirx();
    if (!ed) {
      return;
    }
    const client = await this.ensureClient(true);
    if (!client) {
      return;
    }
    try {
      await fn(client, ed);
    } catch (err) {
      void vscode.window.showErrorMessage(`TIRx: ${what}: ${errorText(err)}`);
    }
  }

  /** Opens the lowered view: CUDA, or with kind the PTX or SASS nvcc makes of it (tilels.nvcc). */
  private showLowered(kind?: 'ptx' | 'sass'): Promise<void> {
    return this.withActive(kind ? `show ${kind.toUpperCase()}` : 'show lowered CUDA', async (client, ed) => {
      const args = kind ? [key(ed.document), '', kind] : [key(ed.document)];
      const res = await this.command<{ uri: string; shown?: boolean }>(client, 'tilels.showLowered', args);
      if (res.shown !== true) {
        throw new Error(`VS Code could not open ${res.uri}`);
      }
    });
  }

  private writeCuda(): Promise<void> {
    return this.withActive('write CUDA', async (client, ed) => {
      const res = await this.command<{ uri: string; applied: boolean }>(client, 'tilels.writeCUDA', [key(ed.document)]);
      if (!res.applied) {
        throw new Error('the edit was not applied');
      }
      // The server writes through a workspace edit; save what it created.
      const target = vscode.Uri.parse(res.uri);
      const doc = await vscode.workspace.openTextDocument(target);
      if (doc.isDirty) {
        await doc.save();
      }
      const name = target.path.slice(target.path.lastIndexOf('/') + 1);
      const choice = await vscode.window.showInformationMessage(`TIRx: wrote ${name}`, 'Open');
      if (choice === 'Open') {
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
      }
    });
  }

  /** The picture webview, reused by later pictures. */
  private picturePanel: vscode.WebviewPanel | undefined;

  /** Draws the tile call under the cursor (tilels.picture) in a webview beside the source. */
  private showPicture(): Promise<void> {
    return this.withActive('show picture', async (client, ed) => {
      const pos = ed.selection.active;
      const res = await this.command<PictureResult | null>(client, 'tilels.picture', [
        key(ed.document),
        { line: pos.line, character: pos.character },
      ]);
      if (!res) {
        void vscode.window.showInformationMessage('TIRx: put the cursor on a tile call (Tx.warp.copy(...)) to draw it.');
        return;
      }
      if (!this.picturePanel) {
        this.picturePanel = vscode.window.createWebviewPanel(
          'tilels.picture.view',
          pictureTitle(res),
          { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
          { enableScripts: false, localResourceRoots: [] },
        );
        this.picturePanel.onDidDispose(() => (this.picturePanel = undefined));
        this.ctx.subscriptions.push(this.picturePanel);
      }
      this.picturePanel.title = pictureTitle(res);
      this.picturePanel.webview.html = pictureHtml(res);
      this.picturePanel.reveal(vscode.ViewColumn.Beside, true);
    });
  }

  private selectCase(): Promise<void> {
    return this.withActive('select a parameter case', async (client, ed) => {
      const pos = ed.selection.active;
      const uri = key(ed.document);
      const res = await this.command<PickCaseResult>(client, 'tilels.pickCase', [uri, { line: pos.line, character: pos.character }]);
      if (res.cases.length <= 1) {
        void vscode.window.showInformationMessage(`TIRx: kernel ${res.kernel} has a single case.`);
        return;
      }
      const items = caseItems(res);
      const picked = await new Promise<(typeof items)[number] | undefined>((resolve) => {
        const qp = vscode.window.createQuickPick<(typeof items)[number]>();
        qp.title = `TIRx: parameter case of ${res.kernel}`;
        qp.placeholder = 'The case that hints, hovers and the lowered CUDA show';
        qp.matchOnDescription = true;
        qp.items = items;
        qp.activeItems = items.filter((i) => i.picked);
        qp.onDidAccept(() => {
          resolve(qp.selectedItems[0] ?? qp.activeItems[0]);
          qp.hide();
        });
        qp.onDidHide(() => {
          resolve(undefined);
          qp.dispose();
        });
        qp.show();
      });
      if (!picked) {
        return;
      }
      await this.command(client, 'tilels.selectCase', [uri, res.kernel, picked.index]);
      this.cache.invalidate();
      this.scheduleStatus(0);
    });
  }

  private scheduleStatus(delayMs: number): void {
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
    }
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.updateStatus();
    }, delayMs);
  }

  /** Picks tilels.reference (user settings) from a list naming each release. */
  private async chooseReference(): Promise<void> {
    const c = vscode.workspace.getConfiguration('tilels');
    const now = c.get<string>('reference', 'auto');
    const items = [
      { label: 'auto', description: "the file's pin, else the installed apache-tvm, else what the file shows, else 0.27" },
      { label: '0.25', description: 'apache-tvm 0.25.0.post1 (gmem_smem, reg, tma)' },
      { label: '0.26', description: 'apache-tvm 0.26.0 (vec_auto, tma_auto, tma_explicit)' },
      { label: '0.27', description: 'apache-tvm 0.27.0.post1 (pip install apache-tvm)' },
    ].map((i) => ({ ...i, picked: i.label === now }));
    const picked = await vscode.window.showQuickPick(items, { title: 'TIRx: reference release (tilels.reference)', placeHolder: `now: ${now}` });
    if (picked && picked.label !== now) {
      await c.update('reference', picked.label, vscode.ConfigurationTarget.Global);
    }
  }

  /** Shows the release the active document is analysed under (tilels.reference). */
  private async updateReference(seq: number): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    const client = this.client;
    if (!ed || !client || client.state !== State.Running || this.noReference || !this.attachments.has(key(ed.document))) {
      this.refStatus.hide();
      return;
    }
    const uri = key(ed.document);
    const version = ed.document.version;
    let info: ReferenceInfo | null;
    if (this.refCache && this.refCache.uri === uri && this.refCache.version === version) {
      info = this.refCache.info;
    } else {
      try {
        info = await this.command<ReferenceInfo>(client, 'tilels.reference', [uri]);
      } catch (err) {
        if (/unknown command/.test(errorText(err))) {
          this.noReference = true;
        }
        info = null;
      }
      if (seq !== this.statusSeq) {
        return; // a newer update is under way
      }
      this.refCache = { uri, version, info };
    }
    if (!info) {
      this.refStatus.hide();
      return;
    }
    const s = referenceStatus(info);
    this.refStatus.text = s.text;
    this.refStatus.tooltip = s.tooltip;
    this.refStatus.show();
  }

  /** Shows the server's summary of the kernel def at the cursor. */
  private async updateStatus(): Promise<void> {
    const seq = ++this.statusSeq;
    void this.updateReference(seq);
    const ed = vscode.window.activeTextEditor;
    const client = this.client;
    if (!ed || !client || client.state !== State.Running || this.noSummary || !this.attachments.has(key(ed.document))) {
      this.status.hide();
      return;
    }
    const uri = key(ed.document);
    const version = ed.document.version;
    const pos = { line: ed.selection.active.line, character: ed.selection.active.character };
    let summary: KernelSummary | null | undefined = this.cache.lookup(uri, version, pos);
    if (!summary) {
      try {
        summary = await this.command<KernelSummary | null>(client, 'tilels.kernelSummary', [uri, pos]);
      } catch (err) {
        if (/unknown command/.test(errorText(err))) {
          this.noSummary = true;
        }
        summary = null;
      }
      if (seq !== this.statusSeq) {
        return; // a newer update is under way
      }
      this.cache.store(uri, version, summary);
    }
    if (!summary) {
      this.status.hide();
      return;
    }
    const cases = (summary.count ?? 1) > 1;
    this.status.text = statusText(summary);
    this.status.tooltip = `${summary.tooltip}\n\n${cases ? 'Click to select a parameter case.' : 'Click to show the lowered CUDA.'}`;
    this.status.command = cases ? 'tilels.selectParameterCase' : 'tilels.showLoweredCuda';
    this.status.show();
  }
}
