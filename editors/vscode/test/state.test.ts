import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { Attachments, KernelSummary, SummaryCache, caseItems, inRange, referenceStatus, SERVER_SETTINGS, serverSection, serverSettings, statusText } from '../src/state';

const tirx = 'from tvm.script import tirx as T\n';

test('Attachments: TIRx files are opened on the server, others never reach it', () => {
  const a = new Attachments();
  assert.equal(a.open('file:///k.py', tirx), true);
  assert.equal(a.open('file:///plain.py', 'import os\n'), false);
  assert.equal(a.change('file:///k.py', () => assert.fail('an attached file is not read again')), 'forward');
  assert.equal(a.change('file:///plain.py', () => 'import os\nx = 1\n'), 'skip');
  // The import typed later opens the file on the server, once.
  assert.equal(a.change('file:///plain.py', () => 'import os\n' + tirx), 'open');
  assert.equal(a.change('file:///plain.py', () => 'import os\n'), 'forward');
  assert.equal(a.has('file:///plain.py'), true);
  assert.equal(a.close('file:///plain.py'), true);
  assert.equal(a.close('file:///plain.py'), false);
  assert.equal(a.close('file:///never.py'), false);
  a.clear();
  assert.equal(a.has('file:///k.py'), false);
});

const summary: KernelSummary = {
  kernel: 'copy',
  case: 2,
  count: 4,
  label: "shape=(4, 6), dtype='float16'",
  calls: 3,
  summary: 'copy: gmem_smem ×2 · fallback ×1',
  text: 'copy 2/4 · copy: gmem_smem ×2 · fallback ×1',
  tooltip: 'kernel copy',
  range: { start: { line: 6, character: 0 }, end: { line: 20, character: 0 } },
};

test('inRange: start inclusive, end exclusive', () => {
  const r = summary.range;
  assert.equal(inRange(r, { line: 6, character: 0 }), true);
  assert.equal(inRange(r, { line: 12, character: 40 }), true);
  assert.equal(inRange(r, { line: 19, character: 99 }), true);
  assert.equal(inRange(r, { line: 20, character: 0 }), false);
  assert.equal(inRange(r, { line: 5, character: 80 }), false);
});

test('SummaryCache: holds within the def of the same version only', () => {
  const c = new SummaryCache();
  assert.equal(c.lookup('u', 1, { line: 7, character: 0 }), undefined);
  c.store('u', 1, summary);
  assert.equal(c.lookup('u', 1, { line: 7, character: 3 }), summary);
  assert.equal(c.lookup('u', 2, { line: 7, character: 3 }), undefined, 'a new version');
  assert.equal(c.lookup('v', 1, { line: 7, character: 3 }), undefined, 'another document');
  assert.equal(c.lookup('u', 1, { line: 30, character: 0 }), undefined, 'outside the def');
  c.invalidate();
  assert.equal(c.lookup('u', 1, { line: 7, character: 3 }), undefined);
  c.store('u', 1, summary);
  c.store('u', 1, null);
  assert.equal(c.lookup('u', 1, { line: 7, character: 3 }), undefined, 'null is not cached');
});

test('statusText shows the server text', () => {
  assert.equal(statusText(summary), '$(circuit-board) copy 2/4 · copy: gmem_smem ×2 · fallback ×1');
});

test('caseItems: one item per case, the selected one marked', () => {
  const items = caseItems({
    kernel: 'copy',
    selected: 2,
    cases: [
      { case: 1, label: "shape=(32, 32), dtype='float16'", id: 'float16-square', source: 'pytest' },
      { case: 2, label: "shape=(4, 6), dtype='float16'", id: 'float16-odd', source: 'pytest' },
      { case: 3, label: '', source: 'directive' },
    ],
  });
  assert.deepEqual(items, [
    { label: "1/3: shape=(32, 32), dtype='float16'", description: 'from pytest float16-square', index: 1, picked: false },
    { label: "2/3: shape=(4, 6), dtype='float16'", description: 'selected · from pytest float16-odd', index: 2, picked: true },
    { label: '3/3: (no parameters)', description: 'from directive', index: 3, picked: false },
  ]);
});

test('referenceStatus: the server\'s text, the hover line and why in the tooltip', () => {
  const s = referenceStatus({
    release: '0.27.0.post1',
    short: '0.27',
    source: 'environment',
    why: 'apache-tvm 0.27.0.post1 installed in /ws/.venv',
    text: 'TIRx 0.27 ✓ auto',
    tooltip: 'reference: apache-tvm 0.27.0.post1 (auto: installed in /ws/.venv)',
  });
  assert.equal(s.text, '$(versions) TIRx 0.27 ✓ auto');
  assert.equal(
    s.tooltip,
    'reference: apache-tvm 0.27.0.post1 (auto: installed in /ws/.venv)\n\napache-tvm 0.27.0.post1 installed in /ws/.venv\n\nChosen automatically; click to set tilels.reference or tilels.python.',
  );
  const set = referenceStatus({ release: '0.25.0.post1', short: '0.25', source: 'setting', why: 'set: reference 0.25', text: 'TIRx 0.25 ✓ set', tooltip: 't' });
  assert.match(set.tooltip, /Click to change the tilels.reference setting/);
});

test('serverSection: python expanded, the rest unchanged, empty left alone', () => {
  const expand = (p: string) => p.replace('${workspaceFolder}', '/ws');
  assert.deepEqual(serverSection({ arch: 'sm_80', reference: '0.26', python: '${workspaceFolder}/.venv/bin/python' }, expand), {
    arch: 'sm_80',
    reference: '0.26',
    python: '/ws/.venv/bin/python',
  });
  assert.deepEqual(serverSection({ python: '' }, () => assert.fail('empty is not expanded')), { python: '' });
  assert.deepEqual(serverSection({ reference: 'auto' }, expand), { reference: 'auto' });
  assert.deepEqual(serverSection({ nvcc: '${workspaceFolder}/cuda/bin/nvcc', arch: '' }, expand), { nvcc: '/ws/cuda/bin/nvcc', arch: '' });
});

test('SERVER_SETTINGS: every server setting (lsp/settings.go) and every tilels.* configuration but serverPath and trace.server', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
  const configured = Object.keys(pkg.contributes.configuration.properties)
    .map((k) => k.replace(/^tilels\./, ''))
    .filter((k) => k !== 'serverPath' && k !== 'trace.server') // the client's own
    .sort();
  assert.deepEqual([...SERVER_SETTINGS].sort(), configured);
  const goSrc = readFileSync(path.join(__dirname, '..', '..', '..', '..', 'lsp', 'settings.go'), 'utf8');
  const tags = [...goSrc.matchAll(/`json:"(\w+)"`/g)].map((m) => m[1]).sort();
  assert.deepEqual([...SERVER_SETTINGS].sort(), tags);
  for (const k of ['inlayHintStyle', 'hoverFormat']) {
    assert.ok(SERVER_SETTINGS.includes(k as (typeof SERVER_SETTINGS)[number]), k);
  }
});

test('serverSettings reads each setting, unset ones undefined', () => {
  const got = serverSettings((k) => ({ inlayHintStyle: 'terse', hoverFormat: 'plaintext', arch: 'sm_80' })[k as string]);
  assert.equal(got.inlayHintStyle, 'terse');
  assert.equal(got.hoverFormat, 'plaintext');
  assert.equal(got.arch, 'sm_80');
  assert.ok('nvcc' in got && got.nvcc === undefined);
  assert.deepEqual(Object.keys(got), [...SERVER_SETTINGS]);
});
