// The picture webview's page (no vscode imports; unit-tested): the SVG
// the server drew for a tile call (tilels.picture), inline so that its
// tooltips show, under a policy that allows no script and no fetch. A
// copy of the exact text is kept in an inert data block (a script element
// of a non-script type never runs) for the end-to-end test to compare.

/** What tilels.picture answers for a call (null outside every call). */
export interface PictureResult {
  title: string;
  kernel: string;
  line: number;
  svg: string;
  text: string;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The webview's tab title for a picture. */
export function pictureTitle(p: PictureResult): string {
  return `TIRx picture: ${p.kernel}:${p.line}`;
}

/**
 * The page of a picture. The SVG comes from the server and is placed as
 * it is: it holds no script (tilels draws rects, text and titles only) and
 * the page's Content-Security-Policy would block one anyway.
 */
export function pictureHtml(p: PictureResult): string {
  const svg = p.svg.replace(/<\/script/gi, '<\\/script');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline';">
<title>${escapeHtml(pictureTitle(p))}</title>
<style>body { background: #ffffff; margin: 8px; } #picture svg { display: block; max-width: 100%; height: auto; }</style>
</head>
<body>
<div id="picture">${p.svg}</div>
<script type="image/svg+xml" id="tilels-svg">${svg}</script>
</body>
</html>
`;
}
