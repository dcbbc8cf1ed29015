import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

import {
  MIN_VERSION,
  classify,
  compareVersions,
  formatVersion,
  parseVersion,
  probe,
  problemMessage,
  resolveServerPath,
} from '../src/server';

test('parseVersion reads "tilels X.Y.Z"', () => {
  assert.deepEqual(parseVersion('tilels 0.1.0\n'), [0, 1, 0, '']);
  assert.deepEqual(parseVersion('tilels 12.3.45'), [12, 3, 45, '']);
  assert.deepEqual(parseVersion('tilels 0.2.0-dev+abc\n'), [0, 2, 0, '-dev+abc']);
  for (const bad of ['', 'tilels', 'tilels 0.1', 'tilels v0.1.0', 'Python 3.11.2', 'tilels 0.1.0 extra', 'usage: tilels ...']) {
    assert.equal(parseVersion(bad), undefined, bad);
  }
});

test('compareVersions orders releases and pre-releases', () => {
  const v = (s: string) => parseVersion(`tilels ${s}`)!;
  const ordered = ['0.0.9', '0.1.0-alpha', '0.1.0-beta', '0.1.0', '0.1.1', '0.2.0', '0.10.0', '1.0.0'];
  for (let i = 0; i < ordered.length; i++) {
    for (let j = 0; j < ordered.length; j++) {
      const c = compareVersions(v(ordered[i]), v(ordered[j]));
      assert.equal(Math.sign(c), Math.sign(i - j), `${ordered[i]} vs ${ordered[j]}`);
    }
  }
  assert.equal(compareVersions(v('0.1.0+build'), v('0.1.0')), 0);
  assert.equal(formatVersion(v('0.2.0-dev')), '0.2.0-dev');
});

test('resolveServerPath: empty is PATH, ~ and ${workspaceFolder} expand, relative paths follow the workspace', () => {
  assert.equal(resolveServerPath(undefined, '/ws'), 'tilels');
  assert.equal(resolveServerPath('  ', '/ws'), 'tilels');
  assert.equal(resolveServerPath('tilels-dev', '/ws'), 'tilels-dev');
  assert.equal(resolveServerPath('/opt/tilels/bin/tilels', '/ws'), '/opt/tilels/bin/tilels');
  assert.equal(resolveServerPath('~/go/bin/tilels', '/ws', '/home/u'), '/home/u/go/bin/tilels');
  assert.equal(resolveServerPath('${workspaceFolder}/bin/tilels', '/ws'), '/ws/bin/tilels');
  assert.equal(resolveServerPath('bin/tilels', '/ws'), '/ws/bin/tilels');
  assert.equal(resolveServerPath('./bin/tilels', '/ws'), '/ws/bin/tilels');
  assert.equal(resolveServerPath('bin/tilels', undefined), 'bin/tilels');
});

const dir = mkdtempSync(path.join(os.tmpdir(), 'tilels-vscode-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

test('probe runs --version and classifies what it finds', async () => {
  const ok = await probe(script('ok', `[ "$1" = --version ] && echo "tilels ${MIN_VERSION}" || exit 3`));
  assert.equal(ok.kind, 'ok');
  assert.equal(problemMessage(ok), undefined);

  const newer = await probe(script('newer', 'echo "tilels 9.0.0-dev"'));
  assert.equal(newer.kind, 'ok');

  const old = await probe(script('old', 'echo "tilels 0.0.9"'));
  assert.equal(old.kind, 'too-old');
  assert.match(problemMessage(old)!, /tilels 0\.0\.9 .* is too old; this extension needs 0\.1\.0 or newer/);
  assert.match(problemMessage(old)!, /go install github\.com\/tilels\/tilels\/cmd\/tilels@v0\.1\.0/);

  const missing = await probe(path.join(dir, 'nope', 'tilels'));
  assert.equal(missing.kind, 'not-found');
  assert.match(problemMessage(missing)!, /was not found \(looked for ".*nope\/tilels"\)/);
  assert.match(problemMessage(missing)!, /go build -o bin\/tilels \.\/cmd\/tilels/);
  assert.match(problemMessage(missing)!, /tilels\.serverPath/);

  const plain = path.join(dir, 'plain');
  writeFileSync(plain, 'not a program');
  chmodSync(plain, 0o644);
  assert.equal((await probe(plain)).kind, 'not-executable');
  mkdirSync(path.join(dir, 'adir'));
  assert.equal((await probe(path.join(dir, 'adir'))).kind, 'not-executable');

  const other = await probe(script('python', 'echo "Python 3.11.2"'));
  assert.equal(other.kind, 'unrecognized');
  assert.match(problemMessage(other)!, /printed "Python 3\.11\.2", not "tilels X\.Y\.Z"/);

  const crash = await probe(script('crash', 'echo "panic: boom" >&2; exit 2'));
  assert.equal(crash.kind, 'failed');
  assert.match(problemMessage(crash)!, /--version" failed: panic: boom/);

  const hang = await probe(script('hang', 'sleep 5'), 200);
  assert.equal(hang.kind, 'failed');
});

test('a missing tilels on PATH says so', () => {
  const p = classify('tilels', { code: 'ENOENT', message: 'spawn tilels ENOENT' }, '', '');
  assert.equal(p.kind, 'not-found');
  assert.match(problemMessage(p)!, /looked for "tilels" on PATH/);
});
