import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

// The tests run from editors/vscode (npm test).
const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const contributed: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command);

/** The executeCommand ids the server registers (lsp/*.go constants). */
function serverCommands(): Set<string> {
  const dir = join(root, '..', '..', 'lsp');
  const ids = new Set<string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\bcmd\w*\s*=\s*"([\w.]+)"/g)) {
      ids.add(m[1]);
    }
  }
  return ids;
}

test('one command namespace: tilels.*, none an id of a server command', () => {
  const server = serverCommands();
  assert.ok(server.has('tilels.showLowered') && server.has('tilels.selectCase'), `server commands found: ${[...server]}`);
  for (const id of contributed) {
    assert.match(id, /^tilels\.\w+$/);
    // vscode-languageclient registers every server command: the same id
    // registered by the extension makes activation fail.
    assert.ok(!server.has(id), `${id} is also a server command`);
  }
  assert.equal(new Set(contributed).size, contributed.length);
});

test('every contributed command is registered, titled and in the menus only once', () => {
  const src = readFileSync(join(root, 'src', 'extension.ts'), 'utf8');
  const registered = [...src.matchAll(/registerCommand\('([\w.]+)'/g)].map((m) => m[1]);
  assert.deepEqual([...registered].sort(), [...contributed].sort());
  for (const c of pkg.contributes.commands) {
    assert.ok(c.title && c.category === 'TIRx', c.command);
  }
  for (const m of pkg.contributes.menus.commandPalette) {
    assert.ok(contributed.includes(m.command), m.command);
    assert.match(m.when, /tilels\.tirxFile/);
  }
  // No id of the old namespace is left in the extension.
  assert.doesNotMatch(src, /'tirx\.\w+'/);
});

test('the extension activates on Python only, through the import check', () => {
  assert.deepEqual(pkg.activationEvents, ['onLanguage:python']);
});
