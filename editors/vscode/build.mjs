// Bundles the extension (out/extension.js) with esbuild; with --tests
// also the unit tests (out/test/*.test.js, run by node --test).
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };

await build({
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'out/extension.js',
  external: ['vscode'],
  minify: true,
  sourcemap: false,
});

if (process.argv.includes('--tests')) {
  const tests = readdirSync('test').filter((f) => f.endsWith('.test.ts'));
  await build({
    ...common,
    entryPoints: tests.map((f) => `test/${f}`),
    outdir: 'out/test',
    sourcemap: 'inline',
  });
}
