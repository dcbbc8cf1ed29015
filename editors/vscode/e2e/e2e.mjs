// The end-to-end run of scripts/e2e-vscode: installs the .vsix into a
// fresh code-server profile, opens a copy of an example kernel and checks
// what a user sees, with playwright-core driving Debian's chromium. Every
// wait is on a condition with a timeout.
//
// node e2e/e2e.mjs --code-server DIR --vsix FILE --tilels BIN --example FILE
//                  --chromium BIN [--screenshots DIR]

import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';

const opts = {};
for (let i = 2; i < process.argv.length; i += 2) {
  opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
}
for (const k of ['code-server', 'vsix', 'tilels', 'example', 'chromium']) {
  if (!opts[k]) {
    console.error(`e2e.mjs: --${k} is required`);
    process.exit(2);
  }
}

const t0 = Date.now();
function log(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}`);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'tilels-e2e-vscode-'));
const userData = path.join(tmp, 'user-data');
const extensions = path.join(tmp, 'extensions');
const workspace = path.join(tmp, 'workspace');
const home = path.join(tmp, 'home');
for (const d of [path.join(userData, 'User'), extensions, workspace, home]) {
  mkdirSync(d, { recursive: true });
}
const exampleName = path.basename(opts.example);
copyFileSync(opts.example, path.join(workspace, exampleName));
// A kernel def with two parameter cases (a pytest grid over a factory),
// written for apache-tvm 0.25 (gmem_smem; 0.26 and later say vec_auto).
const casesSrc = `import pytest
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


def make_copy(shape, dtype):
    @T.prim_func
    def copy(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, shape, dtype)
        T.device_entry()
        T.cta_id([1])
        T.thread_id([32])
        A_s = T.alloc_buffer(shape, dtype, scope="shared")
        Tx.warp.copy(A_s[:, :], A[:, :])

    return copy


@pytest.mark.parametrize("shape", [(32, 32), (4, 6)], ids=["square", "odd"])
def test_copy(shape):
    make_copy(shape, "float16")
# tilels: reference=0.25
`;
writeFileSync(path.join(workspace, 'cases.py'), casesSrc);
// A 30x10 float32 global -> shared tile on 128 threads: only the scalar
// fallback copies it, and the quick fix (lower/fix.go) changes the tile to
// 32x12 (384 elements, 3 per thread), verified by the server.
const quickfixSrc = `from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def tile30x10(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (30, 10), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    A_s = T.alloc_buffer((30, 10), "float32", scope="shared")
    Tx.cta.copy(A_s[:, :], A[:, :])
# tilels: reference=0.25
`;
writeFileSync(path.join(workspace, 'quickfix.py'), quickfixSrc);
writeFileSync(
  path.join(userData, 'User', 'settings.json'),
  JSON.stringify(
    {
      'tilels.serverPath': opts.tilels,
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.welcomePage.walkthroughs.openOnInstall': false,
      'security.workspace.trust.enabled': false,
      'extensions.ignoreRecommendations': true,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'chat.commandCenter.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'editor.minimap.enabled': false,
      'window.commandCenter': false,
      'editor.hover.delay': 200,
    },
    null,
    2,
  ),
);

// code-server's own files (config.yaml, logs) go under this HOME.
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local/share') };
const entry = path.join(opts['code-server'], 'out', 'node', 'entry.js');
const common = ['--user-data-dir', userData, '--extensions-dir', extensions];

let server;
let browser;
let page;
let failed = false;

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitHTTP(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms`);
    }
    if (server.exitCode !== null) {
      throw new Error(`code-server exited with ${server.exitCode}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function check(cond, what) {
  if (!cond) {
    throw new Error(`check failed: ${what}`);
  }
  log(`ok ${what}`);
}

/** Waits until fn() (run in the page) returns a truthy value; returns it. */
async function until(page, what, fn, arg, timeout = 30000) {
  try {
    const h = await page.waitForFunction(fn, arg, { timeout, polling: 100 });
    return await h.jsonValue();
  } catch (err) {
    throw new Error(`timed out waiting for ${what}: ${err.message.split('\n')[0]}`);
  }
}

/**
 * Types text into Quick Open (F1), waits until the focused row is the one
 * labelled rowText (moving down to it when it is not the first) and
 * accepts it.
 */
async function quickOpen(page, text, rowText, opensPick = false) {
  const input = page.locator('.quick-input-widget input');
  // Right after a click into a webview (the picture tab) the palette F1
  // opens may close again as the webview takes the focus (seen in CI: the
  // input hid before fill; and, on a loaded machine, after it, its rows
  // left in the page hidden); open it again then.
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: rowText }).first();
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await input.fill(text, { timeout: 5000 });
      await row.waitFor({ state: 'visible', timeout: attempt === 3 ? 15000 : 7000 });
      break;
    } catch (err) {
      if (attempt === 3) {
        throw err;
      }
      log(`the palette closed before "${text}" was typed or its rows shown; opening it again`);
      if (await input.isVisible()) {
        await page.keyboard.press('Escape');
      }
    }
  }
  for (let i = 0; ; i++) {
    const focused = await page.locator('.quick-input-list .monaco-list-row.focused').first().textContent({ timeout: 5000 });
    if (focused.includes(rowText)) {
      break;
    }
    if (i === 20) {
      throw new Error(`no row "${rowText}" in Quick Open for "${text}"`);
    }
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  if (opensPick) {
    // The command opens a quick pick of its own in the same widget, often
    // before the palette is seen hidden: the caller waits for that pick.
    return;
  }
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10000 });
}

/** Runs a command from the palette by its full title. */
function runCommand(page, title, opensPick = false) {
  return quickOpen(page, `>${title}`, title, opensPick);
}

/** Puts the cursor at line:column (1-based) of the active editor, with the keyboard. */
function goTo(page, line, column) {
  return quickOpen(page, `:${line}:${column}`, `${line}`);
}

/** The bounding box of the first occurrence of text in the editor line holding lineText. */
async function textBox(page, lineText, text) {
  return page.evaluate(
    ([lineText, text]) => {
      for (const line of document.querySelectorAll('.editor-group-container .monaco-editor .view-line')) {
        if (!line.textContent.replace(/\u00a0/g, ' ').includes(lineText)) {
          continue;
        }
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let all = '';
        const nodes = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          nodes.push([n, all.length]);
          all += n.data.replace(/\u00a0/g, ' ');
        }
        const at = all.indexOf(lineText) + lineText.indexOf(text);
        const range = document.createRange();
        for (const [n, off] of nodes) {
          if (at >= off && at < off + n.data.length) {
            range.setStart(n, at - off);
          }
          if (at + text.length > off && at + text.length <= off + n.data.length) {
            range.setEnd(n, at + text.length - off);
          }
        }
        const r = range.getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }
      return null;
    },
    [lineText, text],
  );
}

/** Calls get until accept accepts its answer (every 100 ms, 15 s at most); returns the last answer. */
async function poll(what, get, accept, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await get();
    if (accept(v) || Date.now() > end) {
      if (!accept(v)) {
        log(`gave up waiting for ${what}`);
      }
      return v;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The texts of the lines of an editor group ('first' or 'last') that an extension decoration (class ced-*) covers. */
async function decoratedLines(page, group) {
  return page.evaluate((group) => {
    const g = document.querySelectorAll('.editor-group-container')[group === 'last' ? document.querySelectorAll('.editor-group-container').length - 1 : 0];
    const ed = g?.querySelector('.monaco-editor');
    if (!ed) {
      return [];
    }
    const tops = new Set();
    for (const d of ed.querySelectorAll('.view-overlays [class*="ced-"]')) {
      tops.add(d.parentElement.style.top || d.style.top);
    }
    return [...ed.querySelectorAll('.view-line')].filter((l) => tops.has(l.style.top)).map((l) => l.textContent.replace(/\u00a0/g, ' '));
  }, group);
}

/**
 * The colour-link of the source with its lowered view (lowered.ts): the
 * stamp at the view's top; the view, scrolled to its end, scrolls back to
 * the copy the source cursor moves onto and highlights its lines; a click
 * on a line of the view highlights its source call.
 */
async function linkedViewChecks(page, lowered) {
  // Focus moves by clicks on text (the palette has no "Focus Second
  // Editor Group" in code-server 4.100.3): a click on a line of the view
  // outside every call focuses it and links nothing.
  const click = async (lineText, text, what) => {
    const box = await textBox(page, lineText, text);
    check(box !== null, `${what} is on screen`);
    await page.mouse.click(box.x + 2, box.y + box.height / 2);
  };
  await click('__syncthreads();', '__syncthreads', 'the view\'s __syncthreads line');
  await page.keyboard.press('Control+Home');
  await until(page, 'the view at its first line', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    return gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines')?.textContent.replace(/\u00a0/g, ' ').includes('tilels: lowered from');
  });
  check(/tilels: lowered from .*, version 1, sm_90a/.test(await lowered()), 'the view is stamped with the source version and arch');
  await page.keyboard.press('Control+End');
  await until(page, 'the view at its last line', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    const t = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines')?.textContent.replace(/\u00a0/g, ' ') ?? '';
    return !t.includes('Tx.warp.copy') && !t.includes('tilels: lowered from');
  });
  log('ok scrolled to the end, the view shows no copy');
  // A click on the second copy in the source.
  await click('Tx.warp.copy(B[:, :], A_smem[:, :])', 'copy(B', 'the second copy in the source');
  const second = await until(page, 'the view to scroll to the second copy', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    const t = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines')?.innerText.replace(/\u00a0/g, ' ') ?? '';
    return t.includes('Tx.warp.copy(B[0:4, 0:6], A_smem[0:4, 0:6]) -> fallback') ? t : null;
  });
  check(second.includes('B_ptr[(v_0_1 * 6) + v_1_1]'), 'the cursor on the second copy scrolls the view to its lowering');
  const lit = await poll('the lines of the second copy to be highlighted', () => decoratedLines(page, 'last'), (d) => d.some((l) => l.includes('B_ptr[(v_0_1 * 6)')));
  check(lit.some((l) => l.includes('Tx.warp.copy(B[0:4, 0:6]')) && lit.some((l) => l.includes('B_ptr[(v_0_1 * 6)')) && !lit.some((l) => l.includes('A_smem[0:4, 0:6], A[0:4')),
    `the view highlights the second copy's lines only (${lit.length} lines)`);
  const src = await poll('the source call to be highlighted', () => decoratedLines(page, 'first'), (d) => d.length > 0);
  check(src.length === 1 && src[0].includes('Tx.warp.copy(B[:, :], A_smem[:, :])'), `the source highlights the call under the cursor: ${JSON.stringify(src)}`);
  // A click on a line of the first copy's lowering: its source call.
  await click('A_smem_ptr[(v_0 * 6) + v_1] = A_ptr', 'A_ptr', 'a line of the first copy\'s lowering');
  const back = await poll('the source call of the view line', () => decoratedLines(page, 'first'), (d) => d.some((l) => l.includes('Tx.warp.copy(A_smem[:, :], A[:, :])')));
  check(back.length === 1 && back[0].includes('Tx.warp.copy(A_smem[:, :], A[:, :])'), `a line of the view highlights its source call: ${JSON.stringify(back)}`);
  // Back to the top of the view (what the checks after this one read),
  // and to the source, outside the kernel.
  await page.keyboard.press('Control+Home');
  await click('ROWS, COLS = 4, 6', 'ROWS', 'the shape line of the source');
}

async function main() {
  log(`installing ${path.basename(opts.vsix)}`);
  const inst = spawnSync(process.execPath, [entry, ...common, '--install-extension', opts.vsix], { env, encoding: 'utf8', timeout: 120000 });
  if (inst.status !== 0) {
    throw new Error(`--install-extension failed (${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  }
  const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
  check(existsSync(path.join(extensions, `tilels.tilels-vscode-${version}`, 'out', 'extension.js')), `the .vsix installs (tilels.tilels-vscode-${version})`);

  const port = await freePort();
  const logFile = path.join(tmp, 'code-server.log');
  server = spawn(
    process.execPath,
    [entry, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', workspace],
    { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const out = [];
  server.stdout.on('data', (d) => out.push(d));
  server.stderr.on('data', (d) => out.push(d));
  server.on('exit', () => writeFileSync(logFile, Buffer.concat(out)));
  await waitHTTP(`http://127.0.0.1:${port}/healthz`, 60000);
  log(`code-server ${port} up`);

  // A fresh profile for every run.
  browser = await chromium.launchPersistentContext(path.join(tmp, 'chromium'), {
    executablePath: opts.chromium,
    headless: true,
    viewport: { width: 1400, height: 820 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  const consoleErrors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') {
      consoleErrors.push(m.text());
    }
  });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: exampleName }).waitFor({ state: 'visible', timeout: 30000 });
  log('workbench loaded');

  // Open the kernel from the explorer.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: exampleName }).click();
  await page.locator('.tabs-container .tab', { hasText: exampleName }).waitFor({ state: 'visible', timeout: 15000 });
  await until(page, 'the kernel text', () =>
    [...document.querySelectorAll('.monaco-editor .view-line')].some((l) => l.textContent.includes('Tx.warp.copy(A_smem')),
  );
  log(`${exampleName} open`);
  // More room for the source and the lowered view side by side.
  await runCommand(page, 'View: Close Primary Side Bar');
  await page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 10000 });

  // The server's diagnostics: a warning squiggle under each copy (both
  // lower only through fallback).
  const squiggles = await until(
    page,
    'the fallback warning squiggles',
    () => document.querySelectorAll('.monaco-editor .squiggly-warning').length >= 2 && document.querySelectorAll('.monaco-editor .squiggly-warning').length,
    undefined,
    90000,
  );
  check(squiggles === 2, `two fallback warning squiggles (found ${squiggles})`);

  // Inlay hints after the calls.
  const hints = await until(page, 'the inlay hints', () => {
    const t = [...document.querySelectorAll('.monaco-editor .view-line')].map((l) => l.textContent.replace(/\u00a0/g, ' ')).join('\n');
    return (t.match(/→ fallback, scalar, 24 rounds/g) || []).length;
  });
  check(hints === 2, `inlay hint "→ fallback, scalar, 24 rounds" after each copy (${hints})`);

  // The code lens above the def, awaited here with the focus in the
  // source: VS Code asks for an editor's lenses only once it has held the
  // focus for a debounce (250-375 ms; a blur cancels the request), which
  // the palette-driven steps below seldom leave it. Rendered later, the
  // lens's 16 px zone pushes the lines below it down between a line's
  // box being measured and the click on it (the click on the second copy
  // in linkedViewChecks then lands on line 20).
  await until(page, 'the code lens above the kernel def', () =>
    [...(document.querySelector('.editor-group-container')?.querySelectorAll('.codelens-decoration') ?? [])].some((e) => e.textContent.includes('show lowered CUDA')));
  log('ok the code lens "show lowered CUDA" above the def');

  // The cursor on the first copy's callee (line 19, "copy"): the status
  // bar shows the server's summary of the kernel.
  const box = await textBox(page, 'Tx.warp.copy(A_smem', 'copy');
  check(box !== null && box.width > 0, 'the first Tx.warp.copy is on screen');
  await goTo(page, 19, 15);
  const status = await until(page, 'the status bar summary', () => {
    const item = [...document.querySelectorAll('.statusbar-item')].find((e) => e.textContent.includes('small_tile'));
    return item ? item.textContent.trim() : null;
  });
  check(status === 'small_tile · copy: fallback ×2', `status bar "${status}"`);
  // Beside it, the reference release the file is analysed under
  // (tilels.reference): the example pins 0.25 with its last line.
  const ref = await until(page, 'the reference status bar item', () => {
    const item = [...document.querySelectorAll('.statusbar-item')].find((e) => e.textContent.includes('TIRx 0.'));
    return item ? item.textContent.trim() : null;
  });
  check(ref === 'TIRx 0.25 ✓ pinned', `reference status bar "${ref}"`);

  // The hover on the call, opened at the cursor ("Show or Focus Hover",
  // Ctrl+K Ctrl+I): the warning and the server's hover naming the
  // variant. (The mouse is not used: under headless chromium, Monaco
  // ignores the mouse for hovers in about half of the sessions.)
  const hoverText = (what, fn) =>
    until(page, what, (want) => {
      const h = [...document.querySelectorAll('.monaco-hover .monaco-hover-content')].find((e) => e.offsetParent !== null);
      if (!h || !want.every((w) => h.textContent.includes(w))) {
        return null;
      }
      // Settled: its fade-in is over.
      return h.closest('.monaco-hover').getAnimations({ subtree: true }).every((a) => a.playState === 'finished') ? h.innerText : null;
    }, fn);
  const closeHover = async () => {
    await page.keyboard.press('Escape');
    await until(page, 'the hover to close', () => ![...document.querySelectorAll('.monaco-hover')].some((e) => e.offsetParent !== null));
  };
  await runCommand(page, 'Show or Focus Hover');
  const hover = await hoverText('the hover on Tx.warp.copy', ['Tx.warp.copy', 'copy lowers only through fallback']);
  check(/Tx\.warp\.copy\s*→\s*fallback/.test(hover), 'the hover names the chosen variant (Tx.warp.copy → fallback)');
  check(/gmem_smem/.test(hover) && /region size 24 not divisible by thread_cnt=32/.test(hover), 'the hover lists the declined gmem_smem and why');
  check(/copy lowers only through fallback/.test(hover), 'the hover shows the warning');
  // On the callee the hover ends with the call's pictures, an SVG data:
  // image (tilels.hoverPicture "image"), loaded.
  const img = await until(page, 'the picture in the hover', () => {
    const h = [...document.querySelectorAll('.monaco-hover .monaco-hover-content')].find((e) => e.offsetParent !== null);
    const im = h && [...h.querySelectorAll('img')].find((i) => i.src.startsWith('data:image/svg+xml'));
    return im && im.complete && im.naturalWidth > 0 ? { w: im.naturalWidth, h: im.naturalHeight } : null;
  });
  check(img.w > 300 && img.h > 100, `the hover shows the call's pictures as an image (${img.w}x${img.h})`);
  await closeHover();

  // On the call's arguments (no diagnostic there) the hover is the
  // server's alone: the variant and the table of every variant tried.
  const line19 = 'Tx.warp.copy(A_smem[:, :]';
  await goTo(page, 19, 5 + line19.indexOf(':]'));
  await runCommand(page, 'Show or Focus Hover');
  const hover2 = await hoverText('the hover on the arguments', ['Tx.warp.copy', 'selected']);
  check(!/copy lowers only through fallback/.test(hover2) && /Tx\.warp\.copy\s*→\s*fallback/.test(hover2), 'on the arguments, the hover is the variant alone');
  check(/gmem_smem\s+10\s+rejected: region size 24/.test(hover2) && /fallback\s+0\s+selected/.test(hover2), 'the hover tables every variant tried with its outcome');
  if (opts.screenshots) {
    await page.screenshot({ path: path.join(opts.screenshots, 'vscode-hover.png') });
    log('wrote vscode-hover.png');
  }
  await closeHover();

  // "TIRx: Show Lowered CUDA" from the palette: a .cu tab beside the source.
  await runCommand(page, 'TIRx: Show Lowered CUDA');
  const cuTab = `${exampleName}.cu`;
  const groups = await until(page, `the ${cuTab} tab beside the source`, ([src, cu]) => {
    const gs = [...document.querySelectorAll('.editor-group-container')].map((g) =>
      [...g.querySelectorAll('.tabs-container .tab')].map((t) => t.getAttribute('aria-label') || t.textContent.trim()),
    );
    const gi = (name) => gs.findIndex((tabs) => tabs.some((t) => t.startsWith(name) && !t.startsWith(`${name}.`)));
    return gi(cu) >= 0 && gi(src) >= 0 && gi(cu) !== gi(src) ? gs : null;
  }, [exampleName, cuTab]);
  check(groups.length === 2, `${cuTab} opens in a second editor group beside ${exampleName}: ${JSON.stringify(groups)}`);
  const lowered = async () =>
    page.evaluate(() => {
      const gs = document.querySelectorAll('.editor-group-container');
      const ed = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines');
      return ed ? ed.innerText.replace(/\u00a0/g, ' ') : '';
    });
  await until(page, 'the lowered CUDA text', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    const ed = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines');
    return ed && ed.textContent.includes('__global__');
  });
  // The view opens at the tile call under the cursor (line 19, the first
  // copy; tilels/outputRanges), at the top: not at the stamp and the
  // #include lines.
  const cuda = await until(page, 'the view to open at the call under the cursor', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    const t = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines')?.innerText.replace(/\u00a0/g, ' ') ?? '';
    return /Tx\.warp\.copy\(A_smem\[0:4, 0:6\]/.test(t) && !t.includes('#include') ? t : null;
  });
  check(/extern "C" __global__ void __launch_bounds__\(32\) small_tile_kernel\(/.test(cuda) || /-> fallback/.test(cuda), 'the view shows the kernel');
  check(/Tx\.warp\.copy\(A_smem\[0:4, 0:6\], A\[0:4, 0:6\]\) -> fallback/.test(cuda) && !/#include|tilels: lowered from/.test(cuda),
    'the view opens at the fallback copy under the cursor, not at line 1 (the stamp and the #include lines are above it)');
  if (opts.screenshots) {
    await page.screenshot({ path: path.join(opts.screenshots, 'vscode-lowered.png') });
    log('wrote vscode-lowered.png');
  }
  await linkedViewChecks(page, lowered);

  // The view is live: 4x8 = 32 elements, one per lane, and gmem_smem applies.
  await goTo(page, 7, 'ROWS, COLS = 4, 6'.length + 1);
  await page.keyboard.press('Backspace');
  await page.keyboard.type('8');
  await until(page, 'the lowered view to follow the edit', () => {
    const gs = document.querySelectorAll('.editor-group-container');
    const ed = gs[gs.length - 1]?.querySelector('.monaco-editor .view-lines');
    return ed && ed.textContent.replace(/\u00a0/g, ' ').includes('A[0:4, 0:8]) -> gmem_smem');
  });
  check(/-> gmem_smem/.test(await lowered()) && !/-> fallback/.test(await lowered()), 'after the edit the view shows gmem_smem copies');
  await until(page, 'the squiggles to go', () => document.querySelectorAll('.monaco-editor .squiggly-warning').length === 0);
  log('ok the warnings are gone after the edit');
  // Outside the kernel the status bar item is hidden; back in it, it follows the edit.
  await until(page, 'the status bar item to hide outside the kernel', () =>
    ![...document.querySelectorAll('.statusbar-item')].some((e) => e.textContent.includes('small_tile') && e.offsetParent !== null));
  log('ok no kernel summary with the cursor outside the kernel');
  await goTo(page, 19, 15);
  const status2 = await until(page, 'the status bar to follow the edit', () => {
    const item = [...document.querySelectorAll('.statusbar-item')].find((e) => e.textContent.includes('small_tile'));
    return item && item.textContent.includes('gmem_smem') ? item.textContent.trim() : null;
  });
  check(status2 === 'small_tile · copy: gmem_smem ×2', `status bar after the edit "${status2}"`);

  // "TIRx: Show Picture" on the first copy: a webview beside the source
  // with the SVG the server drew (tilels.picture), equal to the golden
  // e2e/picture.svg and to tilels --lower --emit svg of the edited text.
  await runCommand(page, 'TIRx: Show Picture');
  const received = await (async () => {
    const deadline = Date.now() + 30000;
    for (;;) {
      for (const f of page.frames()) {
        const t = await f.evaluate(() => document.getElementById('tilels-svg')?.textContent ?? null).catch(() => null);
        if (t) {
          return t;
        }
      }
      if (Date.now() > deadline) {
        throw new Error('timed out waiting for the picture webview');
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const golden = path.join(path.dirname(new URL(import.meta.url).pathname), 'picture.svg');
  if (opts['update-golden']) {
    writeFileSync(golden, received);
    log(`wrote ${golden}`);
  }
  check(received === readFileSync(golden, 'utf8'), 'the picture webview received the SVG of e2e/picture.svg');
  const editedForPicture = path.join(tmp, `picture-${exampleName}`);
  writeFileSync(editedForPicture, readFileSync(opts.example, 'utf8').replace('ROWS, COLS = 4, 6', 'ROWS, COLS = 4, 8'));
  const svgCLI = spawnSync(opts.tilels, ['--lower', editedForPicture, '--emit', 'svg', '--call', '19'], { encoding: 'utf8' });
  check(svgCLI.status === 0 && svgCLI.stdout === received, 'it is tilels --lower --emit svg --call 19 of the edited text');
  check(/partition of A_smem\[0:4, 0:8\]/.test(received) && /bank map: /.test(received), 'it draws the partition and the bank map');
  if (opts.screenshots) {
    await page.screenshot({ path: path.join(opts.screenshots, 'vscode-picture.png') });
    log('wrote vscode-picture.png');
  }
  await page.locator('.tabs-container .tab', { hasText: 'TIRx picture' }).click();
  await runCommand(page, 'View: Close Editor');
  await page.locator('.tabs-container .tab', { hasText: 'TIRx picture' }).waitFor({ state: 'detached', timeout: 10000 });
  log('ok the picture tab closes');

  // The code lens above the def opens that kernel's view, beside too (a
  // second tab of the same name in the second group), at the copy under
  // the cursor (line 19): its stamp is above the window.
  const tabsBefore = await page.evaluate(() => document.querySelectorAll('.editor-group-container')[1]?.querySelectorAll('.tabs-container .tab').length ?? 0);
  // Back in the source, on the first copy (line 19), which the lens's
  // view opens at. The click gives the source the focus too: VS Code asks
  // for an editor's lenses only once it has held the focus for a debounce
  // (250-375 ms), a blur cancels the pending request (codelensController.ts,
  // onDidBlurEditorText), and the palette took the focus from the source
  // sooner than that after the edit's codeLens/refresh.
  const firstCopy = await textBox(page, 'Tx.warp.copy(A_smem[:, :], A[:, :])', 'copy(A_smem');
  check(firstCopy !== null, 'the first copy in the source is on screen');
  await page.mouse.click(firstCopy.x + 2, firstCopy.y + firstCopy.height / 2);
  await page.locator('.editor-group-container').first().locator('.codelens-decoration a', { hasText: 'show lowered CUDA' }).first().click();
  // Monaco renders a few lines beyond the window: what is on screen is
  // told by each line's box against the editor's.
  const kernelView = await until(page, "the kernel's view from the code lens", (n) => {
    const gs = document.querySelectorAll('.editor-group-container');
    // The group keeps the editor of its other tab, hidden (no box).
    const editor = [...(gs[gs.length - 1]?.querySelectorAll('.monaco-editor') ?? [])].find((e) => e.getBoundingClientRect().height > 0);
    const ed = editor?.querySelector('.view-lines');
    const tabs = gs[1]?.querySelectorAll('.tabs-container .tab').length ?? 0;
    if (!ed || gs.length !== 2 || tabs !== n + 1) {
      return null;
    }
    const box = editor.getBoundingClientRect();
    const shown = [...ed.querySelectorAll('.view-line')].filter((l) => {
      const r = l.getBoundingClientRect();
      return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    }).map((l) => l.textContent.replace(/\u00a0/g, ' '));
    // The view first shows its top (the copy is within the window there
    // too), then scrolls: wait for the stamp to leave the window.
    return shown.some((l) => l.includes('Tx.warp.copy(A_smem[0:4, 0:8], A[0:4, 0:8]) -> gmem_smem')) &&
      !shown.some((l) => /#include|tilels: lowered from/.test(l)) ? shown.join('\n') : null;
  }, tabsBefore);
  check(/-> gmem_smem/.test(kernelView) && !/#include|tilels: lowered from/.test(kernelView), `the code lens opens the kernel's view in the second group, at the copy under the cursor, the stamp and #include lines above the window (${tabsBefore + 1} tabs there)`);

  // "TIRx: Write CUDA File": copy_fallback.cu beside the source, saved,
  // the CLI's output for the edited text.
  await runCommand(page, 'TIRx: Write CUDA File');
  const written = path.join(workspace, exampleName.replace(/\.py$/, '.cu'));
  await page.locator('.notification-toast', { hasText: `TIRx: wrote ${path.basename(written)}` }).waitFor({ state: 'visible', timeout: 30000 });
  const edited = path.join(tmp, exampleName);
  writeFileSync(edited, readFileSync(opts.example, 'utf8').replace('ROWS, COLS = 4, 6', 'ROWS, COLS = 4, 8'));
  const cli = spawnSync(opts.tilels, ['--lower', edited, '--no-line-directives'], { encoding: 'utf8' });
  check(cli.status === 0 && cli.stdout.includes('-> gmem_smem'), 'tilels --lower on the edited text');
  check(existsSync(written) && readFileSync(written, 'utf8') === cli.stdout, `${path.basename(written)} is written, equal to tilels --lower of the edited text`);

  // "TIRx: Select Parameter Case" on a kernel with two cases: the pick
  // list, then the status bar and the case lens follow the choice.
  await quickOpen(page, 'cases.py', 'cases.py');
  await page.locator('.tabs-container .tab.active', { hasText: 'cases.py' }).waitFor({ state: 'visible', timeout: 15000 });
  await goTo(page, 14, 15);
  const statusItem = (want) =>
    until(page, `the status bar "${want}"`, (w) => {
      const item = [...document.querySelectorAll('.statusbar-item')].find((e) => e.textContent.includes(w));
      return item ? item.textContent.trim() : null;
    }, want);
  check((await statusItem('copy 1/2')) === 'copy 1/2 · copy: gmem_smem ×1', 'status bar of case 1 "copy 1/2 · copy: gmem_smem ×1"');
  await runCommand(page, 'TIRx: Select Parameter Case', true);
  const picks = await until(page, 'the case pick list', () => {
    const w = document.querySelector('.quick-input-widget');
    if (!w || w.offsetParent === null || !w.textContent.includes('parameter case of copy')) {
      return null;
    }
    const rows = [...w.querySelectorAll('.quick-input-list .monaco-list-row')].map((r) => r.textContent);
    return rows.length === 2 ? rows : null;
  });
  check(/1\/2: shape=\(32, 32\)/.test(picks[0]) && /selected/.test(picks[0]) && /2\/2: shape=\(4, 6\)/.test(picks[1]) && /pytest odd/.test(picks[1]),
    `the pick list names both cases, case 1 selected: ${JSON.stringify(picks)}`);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  check((await statusItem('copy 2/2')) === 'copy 2/2 · copy: fallback ×1', 'after picking case 2 the status bar says "copy 2/2 · copy: fallback ×1"');
  await until(page, 'the case lens to follow', () =>
    [...document.querySelectorAll('.codelens-decoration')].some((e) => e.textContent.includes('case 2/2: shape=(4, 6)')));
  log('ok the code lens shows case 2/2');

  // A quick fix (Ctrl+.): on the fallback warning of quickfix.py, the
  // verified change of the tile extents; applied, the text changes and the
  // warning goes.
  await quickOpen(page, 'quickfix.py', 'quickfix.py');
  await page.locator('.tabs-container .tab.active', { hasText: 'quickfix.py' }).waitFor({ state: 'visible', timeout: 15000 });
  // The editor of quickfix.py (each until() runs in the page, so each
  // looks it up itself).
  await until(page, 'the fallback warning in quickfix.py', () => {
    const ed = [...document.querySelectorAll('.editor-group-container .monaco-editor')].find((e) => e.querySelector('.view-lines')?.textContent.includes('tile30x10'));
    return ed && ed.querySelectorAll('.squiggly-warning').length > 0;
  });
  await goTo(page, 12, 5);
  await page.keyboard.press('Control+Period');
  const fixTitle = 'Change the tile extent 30 to 32 and 10 to 12: copy lowers through gmem_smem (verified)';
  const fixRow = page.locator('.action-widget .monaco-list-row', { hasText: fixTitle });
  await fixRow.first().waitFor({ state: 'visible', timeout: 30000 });
  log('ok Ctrl+. lists the verified quick fix');
  // The widget takes keys, not clicks (a pointer block covers it): move
  // the focus to the fix and accept it.
  for (let i = 0; i < 8 && !(await fixRow.first().getAttribute('class')).includes('focused'); i++) {
    await page.keyboard.press('ArrowDown');
  }
  check((await fixRow.first().getAttribute('class')).includes('focused'), 'the quick fix is focused in the widget');
  await page.keyboard.press('Enter');
  await until(page, 'the quick fix to change the text', () => {
    const ed = [...document.querySelectorAll('.editor-group-container .monaco-editor')].find((e) => e.querySelector('.view-lines')?.textContent.includes('tile30x10'));
    const t = ed ? ed.querySelector('.view-lines').textContent.replace(/\u00a0/g, ' ') : '';
    return t.includes('T.match_buffer(A_ptr, (32, 12), "float32")') && t.includes('T.alloc_buffer((32, 12), "float32"');
  });
  log('ok the quick fix changed the extents to 32x12');
  await until(page, 'the warning to go after the quick fix', () => {
    const ed = [...document.querySelectorAll('.editor-group-container .monaco-editor')].find((e) => e.querySelector('.view-lines')?.textContent.includes('tile30x10'));
    return ed && ed.querySelectorAll('.squiggly-warning').length === 0;
  });
  log('ok the fallback warning is gone after the quick fix');

  const ours = consoleErrors.filter((e) => /tilels|TIRx/i.test(e));
  check(ours.length === 0, `no console errors from the extension${ours.length ? `: ${ours.join(' | ')}` : ''}`);

  // Completion (issue 18): "Tx." typed in the kernel of cases.py opens
  // the suggestion list with the server's scopes and tile ops (each with
  // its signature); accepting copy_async inserts it.
  {
    await goTo(page, 14, 9);
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Tx.');
    // The widget is position: fixed (no offsetParent): "visible" says it is shown.
    const rowsOf = () => {
      const w = document.querySelector('.editor-widget.suggest-widget.visible');
      if (!w) {
        return null;
      }
      const rows = [...w.querySelectorAll('.monaco-list-row')].map((r) => r.textContent.replace(/\u00a0/g, ' '));
      return rows.length > 0 ? rows : null;
    };
    const first = await until(page, 'the suggestion list after "Tx."', rowsOf);
    check(first.some((r) => /^warp/.test(r)) && first.some((r) => /^cta/.test(r)), `the suggestions start with the scopes: ${JSON.stringify(first.slice(0, 8))}`);
    await page.keyboard.type('copy_as');
    const filtered = await until(page, 'the suggestion list to show copy_async', () => {
      const w = document.querySelector('.editor-widget.suggest-widget.visible');
      const rows = w ? [...w.querySelectorAll('.monaco-list-row')].map((r) => r.textContent) : [];
      return rows.some((r) => r.startsWith('copy_async')) ? rows : null;
    });
    check(filtered[0].startsWith('copy_async'), `copy_async is the first suggestion: ${JSON.stringify(filtered)}`);
    await page.keyboard.press('Enter');
    await until(page, 'the accepted suggestion in the line', () =>
      [...document.querySelectorAll('.editor-group-container .monaco-editor .view-line')].some((l) => l.textContent.replace(/\u00a0/g, ' ').trim() === 'Tx.copy_async'));
    log('ok accepting the suggestion inserts Tx.copy_async');
    await page.keyboard.press('Control+Shift+K');
    await until(page, 'the inserted line to go', () =>
      ![...document.querySelectorAll('.editor-group-container .monaco-editor .view-line')].some((l) => l.textContent.includes('Tx.copy_async')));
  }

  // The --version check: a tilels.serverPath that names nothing, then an
  // old tilels, each restart the server and say what is wrong.
  // (In the workspace settings: code-server notices a change there at once.)
  const setServerPath = (p) => {
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'tilels.serverPath': p }, null, 2));
  };
  const toast = async (text) => {
    await page.locator('.notification-toast', { hasText: text }).first().waitFor({ state: 'visible', timeout: 30000 });
    return page.locator('.notification-toast', { hasText: text }).first().innerText();
  };
  const missing = path.join(tmp, 'no-such-dir', 'tilels');
  setServerPath(missing);
  const notFound = await toast('was not found');
  check(notFound.includes(`looked for "${missing}"`) && notFound.includes('go install github.com/tilels/tilels/cmd/tilels@v0.1.0') && /Open Settings/.test(notFound),
    'a serverPath that names nothing: "not found", how to install, and a button to the setting');
  const old = path.join(tmp, 'old-tilels');
  writeFileSync(old, '#!/bin/sh\necho "tilels 0.0.9"\n', { mode: 0o755 });
  setServerPath(old);
  const tooOld = await toast('is too old');
  check(tooOld.includes('tilels 0.0.9') && tooOld.includes('needs 0.1.0 or newer'), 'an old tilels: "too old", and the version needed');

  // The two messages are errors in the console too; nothing else is.
  const unexpected = consoleErrors.filter((e) => /tilels|TIRx/i.test(e) && !/^TIRx: (the tilels language server was not found|tilels 0\.0\.9 )/.test(e));
  check(unexpected.length === 0, `no other console errors from the extension${unexpected.length ? `: ${unexpected.join(' | ')}` : ''}`);
}

let code = 0;
try {
  await main();
} catch (err) {
  failed = true;
  code = 1;
  console.error(`FAIL: ${err.message}`);
  if (page) {
    const hovers = await page
      .evaluate(() => [...document.querySelectorAll('.monaco-hover')].map((h) => `${h.className} visible=${h.offsetParent !== null}: ${h.textContent.slice(0, 120)}`))
      .catch(() => []);
    console.error(`hover widgets: ${JSON.stringify(hovers, null, 1)}`);
    // Kept after the run (tmp is removed): a name of its own per run.
    const shot = path.join(mkdtempSync(path.join(os.tmpdir(), 'tilels-e2e-vscode-failure-')), 'screen.png');
    await page.screenshot({ path: shot }).then(() => console.error(`screenshot of the failure: ${shot}`)).catch(() => {});
  }
} finally {
  await browser?.close().catch(() => {});
  if (server && server.exitCode === null) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => {
      const t = setTimeout(() => {
        try {
          process.kill(-server.pid, 'SIGKILL');
        } catch {
          // already gone
        }
        r();
      }, 5000);
      server.once('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  }
  if (failed) {
    const logFile = path.join(tmp, 'code-server.log');
    try {
      console.error('--- code-server log (tail) ---');
      console.error(readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n'));
    } catch {
      // no log
    }
    // The extension host log and the extension's output channel.
    const logs = spawnSync('sh', ['-c', `find '${userData}/logs' -name 'remoteexthost.log' -o -name '*TIRx*.log'`], { encoding: 'utf8' });
    for (const f of logs.stdout.split('\n').filter((x) => x)) {
      console.error(`--- ${path.basename(f)} (tail) ---`);
      console.error(readFileSync(f, 'utf8').split('\n').slice(-30).join('\n'));
    }
  }
  if (failed && process.env.E2E_KEEP) {
    console.error(`kept ${tmp}`);
  } else {
    rmSync(tmp, { recursive: true, force: true });
  }
}
log(code === 0 ? 'e2e ok' : 'e2e FAILED');
process.exit(code);
