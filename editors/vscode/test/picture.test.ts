import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PictureResult, escapeHtml, pictureHtml, pictureTitle } from '../src/picture';

const pic: PictureResult = {
  title: 'k · line 3 · Tx.warp.copy → reg vec 4',
  kernel: 'k<1>',
  line: 3,
  svg: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>a &amp; b</text></svg>\n',
  text: 'partition ...',
};

test('pictureHtml: the SVG inline and as an inert copy, under a policy without scripts', () => {
  const html = pictureHtml(pic);
  assert.ok(html.includes(`<div id="picture">${pic.svg}</div>`));
  assert.ok(html.includes(`<script type="image/svg+xml" id="tilels-svg">${pic.svg}</script>`));
  assert.match(html, /Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline';"/);
  assert.ok(html.includes('<title>TIRx picture: k&lt;1&gt;:3</title>'));
  // A closing script tag in the data block is neutralised.
  const evil = pictureHtml({ ...pic, svg: '<svg></script><script>alert(1)</script></svg>' });
  assert.ok(!/<\/script><script>alert/.test(evil.split('id="tilels-svg">')[1].split('</script>\n</body>')[0]));
});

test('pictureTitle and escapeHtml', () => {
  assert.equal(pictureTitle(pic), 'TIRx picture: k<1>:3');
  assert.equal(escapeHtml('<a href="x">&</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
});
