import assert from 'node:assert/strict';
import { test } from 'node:test';

import { OutputMap, OutputRange, atOutputLine, atSource, contains, openingRange, outputLines } from '../src/outmap';

function rng(l1: number, c1: number, l2: number, c2: number) {
  return { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } };
}

function range(kind: 'kernel' | 'call', kernel: string, src: [number, number, number, number], out: [number, number]): OutputRange {
  return { kind, kernel, source: rng(...src), output: rng(out[0], 0, out[1], 0) };
}

// Two kernels as the server lists them: each kernel, then its calls.
const map: OutputMap = {
  source: 'file:///k.py',
  version: 3,
  ranges: [
    range('kernel', 'scale', [5, 0, 16, 34], [21, 55]),
    range('call', 'scale', [13, 4, 13, 34], [25, 30]),
    range('call', 'scale', [15, 4, 15, 34], [32, 48]),
    range('kernel', 'rows', [19, 0, 30, 34], [57, 72]),
    range('call', 'rows', [28, 8, 28, 34], [62, 65]),
  ],
};

test('the cursor in the source finds its call, else its kernel', () => {
  assert.equal(atSource(map, { line: 13, character: 4 }), map.ranges[1]);
  assert.equal(atSource(map, { line: 13, character: 33 }), map.ranges[1]);
  assert.equal(atSource(map, { line: 13, character: 34 }), map.ranges[0], 'the end is exclusive');
  assert.equal(atSource(map, { line: 14, character: 0 }), map.ranges[0]);
  assert.equal(atSource(map, { line: 28, character: 10 }), map.ranges[4]);
  assert.equal(atSource(map, { line: 2, character: 0 }), undefined);
  assert.equal(atSource(undefined, { line: 13, character: 4 }), undefined);
});

test('a line of the view finds its call, else its kernel', () => {
  assert.equal(atOutputLine(map, 25), map.ranges[1]);
  assert.equal(atOutputLine(map, 29), map.ranges[1]);
  assert.equal(atOutputLine(map, 30), map.ranges[0], 'a line between calls is the kernel');
  assert.equal(atOutputLine(map, 62), map.ranges[4]);
  assert.equal(atOutputLine(map, 3), undefined, 'the #include lines');
});

test('round trip: every call line leads back to its call', () => {
  for (const r of map.ranges.filter((x) => x.kind === 'call')) {
    assert.equal(atSource(map, r.source.start), r);
    for (let l = r.output.start.line; l < r.output.end.line; l++) {
      assert.equal(atOutputLine(map, l), r, `line ${l}`);
    }
    assert.ok(outputLines(r) >= 1);
  }
});

test('a view opens at the kernel under the cursor, never at the #includes', () => {
  assert.equal(openingRange(map, { line: 14, character: 0 }), map.ranges[0]);
  assert.equal(openingRange(map, { line: 28, character: 9 }), map.ranges[4]);
  assert.equal(openingRange(map, { line: 18, character: 0 }), map.ranges[0], 'between kernels: the one above');
  assert.equal(openingRange(map, { line: 40, character: 0 }), map.ranges[3], 'below: the last kernel');
  assert.equal(openingRange(map, { line: 0, character: 0 }), map.ranges[0], 'above: the first kernel');
  assert.equal(openingRange({ source: '', version: 1, ranges: [] }, { line: 0, character: 0 }), undefined);
});

test('contains is start-inclusive, end-exclusive', () => {
  const r = rng(1, 2, 3, 4);
  assert.equal(contains(r, { line: 1, character: 2 }), true);
  assert.equal(contains(r, { line: 1, character: 1 }), false);
  assert.equal(contains(r, { line: 3, character: 3 }), true);
  assert.equal(contains(r, { line: 3, character: 4 }), false);
});
