import assert from 'node:assert/strict';
import { test } from 'node:test';

import { importsTirx } from '../src/tirx';

test('imports of the TIRx DSL attach the file', () => {
  for (const src of [
    'from tvm.script import tirx as T\n',
    'from tvm.script import tirx\n',
    'from tvm.script.tirx import tile as Tx\n',
    'import tvm.tirx\n',
    'import tvm.tirx as tirx\n',
    'import tvm.script.tirx as T\n',
    'import numpy as np, tvm.tirx\n',
    'from tvm.tirx.layout import S, TileLayout\n',
    'from tvm.tirx import layout\n',
    'from tvm import tirx\n',
    'from tvm.script import tir, tirx as T  # both\n',
    'from tvm.script import (\n    tir,\n    tirx as T,  # the DSL\n)\n',
    '"""A kernel."""\nimport os\n\n\ndef f():\n    from tvm.script import tirx as T\n',
    'if True:\n\tfrom tvm.script.tirx import tile as Tx\n',
    '# -*- coding: utf-8 -*-\r\nfrom tvm.script import tirx as T\r\n',
  ]) {
    assert.equal(importsTirx(src), true, src);
  }
});

test('other Python files are left alone', () => {
  for (const src of [
    '',
    'import tvm\n',
    'from tvm.script import tir as T\n',
    'from tvm.script import tirxx\n',
    'from tvm.script import tir  # not tirx\n',
    'import tvm.tirxy\n',
    'from tvm.tirxy import a\n',
    'from mytvm.tirx import a\n',
    '# from tvm.script import tirx as T\n',
    'x = "import tvm.tirx"\n',
    'from tvm.script import (\n    tir,\n    relax,\n)\nx = tirx\n',
  ]) {
    assert.equal(importsTirx(src), false, src);
  }
});

test('the bundled examples import the DSL', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = '../../testdata/examples';
  const files = readdirSync(dir).filter((f) => f.endsWith('.py'));
  assert.ok(files.length > 0);
  for (const f of files) {
    assert.equal(importsTirx(readFileSync(`${dir}/${f}`, 'utf8')), true, f);
  }
});

test('the server starts for Python files on disk or untitled that import the DSL', async () => {
  const { startsServer } = await import('../src/tirx');
  const dsl = 'from tvm.script import tirx as T\n';
  assert.equal(startsServer('python', 'file', dsl), true);
  assert.equal(startsServer('python', 'untitled', dsl), true);
  assert.equal(startsServer('python', 'file', 'import numpy as np\n'), false);
  assert.equal(startsServer('python', 'git', dsl), false, 'a diff view of a TIRx file');
  assert.equal(startsServer('python', 'tilels-lowered', dsl), false, 'the TIRx view itself');
  assert.equal(startsServer('cuda-cpp', 'file', dsl), false);
});
