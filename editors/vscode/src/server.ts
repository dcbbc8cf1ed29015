// Finding and checking the tilels binary: the tilels.serverPath setting
// or PATH, then `tilels --version`. No vscode import: unit-tested with
// node's test runner.

import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';

/** The oldest tilels this extension works with. */
export const MIN_VERSION = '0.1.0';

/** The module path users install the server from. */
export const GO_PACKAGE = 'github.com/tilels/tilels/cmd/tilels';

export type Version = [number, number, number, string];

/**
 * Parses the output of `tilels --version`, "tilels X.Y.Z" (a pre-release
 * or build suffix such as "-dev" is kept as the fourth element).
 */
export function parseVersion(output: string): Version | undefined {
  const m = /^tilels (\d+)\.(\d+)\.(\d+)((?:[-+][0-9A-Za-z.+-]*)?)\s*$/m.exec(output.trim());
  if (!m) {
    return undefined;
  }
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4]];
}

/**
 * Compares two versions: negative when a is older than b. A pre-release
 * ("0.2.0-dev") is older than its release; build metadata ("+abc") is
 * ignored.
 */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) {
      return d;
    }
  }
  const pa = a[3].startsWith('-') ? a[3].replace(/\+.*$/, '') : '';
  const pb = b[3].startsWith('-') ? b[3].replace(/\+.*$/, '') : '';
  if (pa === pb) {
    return 0;
  }
  if (pa === '') {
    return 1;
  }
  if (pb === '') {
    return -1;
  }
  return pa < pb ? -1 : 1;
}

export function formatVersion(v: Version): string {
  return `${v[0]}.${v[1]}.${v[2]}${v[3]}`;
}

/**
 * The command that starts the server: the setting, expanded (`~`,
 * `${workspaceFolder}`, a relative path with a separator taken relative
 * to the first workspace folder), or `tilels` to look up on PATH.
 */
export function resolveServerPath(setting: string | undefined, workspaceFolder: string | undefined, home: string = os.homedir()): string {
  let p = (setting ?? '').trim();
  if (p === '') {
    return 'tilels';
  }
  if (workspaceFolder !== undefined) {
    p = p.split('${workspaceFolder}').join(workspaceFolder);
  }
  if (p === '~' || p.startsWith('~/')) {
    p = path.join(home, p.slice(1));
  }
  if (!path.isAbsolute(p) && p.includes('/') && workspaceFolder !== undefined) {
    p = path.resolve(workspaceFolder, p);
  }
  return p;
}

/** What running `<command> --version` found. */
export type Probe =
  | { kind: 'ok'; command: string; version: Version }
  | { kind: 'not-found'; command: string }
  | { kind: 'not-executable'; command: string }
  | { kind: 'failed'; command: string; detail: string }
  | { kind: 'unrecognized'; command: string; output: string }
  | { kind: 'too-old'; command: string; version: Version };

/** Classifies the result of running `<command> --version`. */
export function classify(command: string, err: { code?: string | number | null; message: string } | null, stdout: string, stderr: string): Probe {
  if (err) {
    if (err.code === 'ENOENT') {
      return { kind: 'not-found', command };
    }
    if (err.code === 'EACCES' || err.code === 'EISDIR') {
      return { kind: 'not-executable', command };
    }
    const detail = (stderr.trim() || err.message).split('\n')[0];
    return { kind: 'failed', command, detail };
  }
  const version = parseVersion(stdout);
  if (!version) {
    return { kind: 'unrecognized', command, output: (stdout.trim() || stderr.trim()).split('\n')[0] ?? '' };
  }
  if (compareVersions(version, parseVersion(`tilels ${MIN_VERSION}`)!) < 0) {
    return { kind: 'too-old', command, version };
  }
  return { kind: 'ok', command, version };
}

/** Runs `<command> --version` (at most timeoutMs) and classifies it. */
export function probe(command: string, timeoutMs = 10000): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(command, ['--version'], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      resolve(classify(command, err, String(stdout), String(stderr)));
    });
  });
}

const install =
  `Install it with "go install ${GO_PACKAGE}@v${MIN_VERSION}" (or build it in a checkout with ` +
  '"go build -o bin/tilels ./cmd/tilels"), then put it on PATH or set "tilels.serverPath" to its absolute path.';

/** The message to show for a probe that is not ok (undefined when ok). */
export function problemMessage(p: Probe): string | undefined {
  const where = p.command === 'tilels' ? '"tilels" on PATH' : `"${p.command}"`;
  switch (p.kind) {
    case 'ok':
      return undefined;
    case 'not-found':
      return `TIRx: the tilels language server was not found (looked for ${where}). ${install}`;
    case 'not-executable':
      return `TIRx: ${where} is not an executable file. Set "tilels.serverPath" to the tilels binary.`;
    case 'failed':
      return `TIRx: "${p.command} --version" failed: ${p.detail}. Set "tilels.serverPath" to a working tilels binary.`;
    case 'unrecognized':
      return `TIRx: "${p.command} --version" printed "${p.output}", not "tilels X.Y.Z". Is "tilels.serverPath" the tilels binary?`;
    case 'too-old':
      return (
        `TIRx: tilels ${formatVersion(p.version)} (${where}) is too old; this extension needs ${MIN_VERSION} or newer. ` +
        `Update it with "go install ${GO_PACKAGE}@v${MIN_VERSION}" or rebuild it in a current checkout.`
      );
  }
}
