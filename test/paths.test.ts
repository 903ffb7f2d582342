// normalizeCallerPath against a real temp tree with real symlinks: each refusal
// is checked by code AND message, each accepted form by its exact result.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '../indexer/errors.js';
import { normalizeCallerPath, type CallerPathOptions } from '../indexer/query/caller-paths.js';
import { RepoRules } from '../indexer/discover/rules.js';
import { cleanupTemp, tempDir } from './helpers/fs.js';

const root = tempDir('paths');
const outside = tempDir('paths-out');
mkdirSync(join(root, 'src/sub'), { recursive: true });
mkdirSync(join(root, 'config'), { recursive: true });
writeFileSync(join(root, 'src/x.py'), 'x = 1\n');
writeFileSync(join(root, '.env'), 'TOKEN=1\n');
writeFileSync(join(root, 'config/.env.local'), 'TOKEN=2\n');
writeFileSync(join(outside, 'o.py'), 'outside\n');
symlinkSync(outside, join(root, 'out'));                     // folder outside
symlinkSync(join(outside, 'o.py'), join(root, 'out.py'));    // file outside
symlinkSync('src', join(root, 'alias'));                     // folder inside
symlinkSync('.env', join(root, 'notes.txt'));                // innocent name, secret target
symlinkSync('../../..', join(root, 'src/sub/up'));           // escapes by a relative link

/** The checks without secrets: the root's real path alone (the index passes its RepoRules, which add the secret rule). */
const plain = { realRoot: root };

type Opts = CallerPathOptions & { rules?: RepoRules };

function refusal(input: unknown, opts: Opts = {}): ToolError {
  try {
    const got = normalizeCallerPath(opts.rules ?? plain, input as string, opts);
    assert.unreachable(`${JSON.stringify(input)} was accepted as ${JSON.stringify(got)}`);
  } catch (err) {
    if (!(err instanceof ToolError)) throw err;
    assert.not.match(err.message, /\n/, 'one line');
    return err;
  }
  throw new Error('unreachable');
}

function refused(input: unknown, code: string, message: RegExp, opts: Opts = {}): void {
  const err = refusal(input, opts);
  assert.is(err.code, code, `code for ${JSON.stringify(input)}`);
  assert.match(err.message, message, `message for ${JSON.stringify(input)}: ${err.message}`);
}

test('absolute paths are refused (POSIX, Windows drive, UNC)', () => {
  refused('/etc/passwd', 'path_denied', /^path "\/etc\/passwd" refused: it is absolute/);
  refused(join(root, 'src/x.py'), 'path_denied', /it is absolute/);
  refused('C:\\Windows\\win.ini', 'path_denied', /absolute Windows path \(drive letter\)/);
  refused('c:/x', 'path_denied', /drive letter/);
  refused('\\\\server\\share\\x', 'path_denied', /UNC network path/);
});

test('NUL bytes are refused; a backslash is a literal name character unless it makes an escape', () => {
  refused('src/x.py\0.txt', 'path_denied', /contains a NUL byte/);
  refused('src/x.py\0.txt', 'path_denied', /\\u0000/); // shown escaped in the message
  refused('..\\..\\etc', 'path_denied', /read with "\\" as "\/" \(as Windows reads it\) it is "\.\.\/\.\.\/etc", which escapes the repository root/);
  refused('src\\..\\..\\x', 'path_denied', /read with "\\" as "\/"/);
  // On POSIX "src\x.py" is one file name: allowed literally (it may be indexed), never turned into "src/x.py".
  assert.is(normalizeCallerPath(plain, 'src\\x.py'), 'src\\x.py');
});

test('.. that leaves the root is refused; .. that stays inside is normalised', () => {
  for (const p of ['..', '../x', 'a/../../x', './..', 'src/../..', 'src/sub/../../../etc/passwd']) {
    refused(p, 'path_denied', /escapes the repository root through "\.\."/);
  }
  assert.is(normalizeCallerPath(plain, 'src/sub/../x.py'), 'src/x.py');
  assert.is(normalizeCallerPath(plain, 'a/../src/x.py'), 'src/x.py');
});

test('encoded forms that escape the root, and overlong escapes, are refused; other escapes stay literal', () => {
  for (const p of ['%2e%2e/etc', '%2E%2E/etc', '..%2fetc', '%2e%2e%2f%2e%2e%2fetc', '%252e%252e/x', '%2fetc/passwd', 'C%3a%5cwin.ini', '%2e%2e%5cx']) {
    refused(p, 'path_denied', /(percent-decoded|read with "\\" as "\/").* it is ".*", which (escapes the repository root|is absolute|is an absolute Windows path)/);
  }
  for (const [p, seq] of [['%c0%ae%c0%ae/x', '%c0'], ['%e0%80%ae', '%e0%80'], ['a%C1%9C', '%C1']]) {
    refused(p, 'path_denied', new RegExp(`overlong UTF-8 escape ${seq}; give the path literally`));
  }
  refused('x%00y', 'path_denied', /encodes a NUL byte/);
  // Names that merely contain escapes are literal, as on disk (URL-encoded file names exist).
  for (const p of ['docs/100%20done.md', '50%.txt', 'a%2e.txt', 'src%2fx.py', 'caf%c3%a9.md', 'a:2.txt']) {
    assert.is(normalizeCallerPath(plain, p), p, p);
  }
});

test('symlinks that lead outside the root are refused, even to paths that do not exist', () => {
  refused('out/o.py', 'path_denied', /resolves through a symbolic link to outside the repository root/);
  refused('out/not-there.py', 'path_denied', /symbolic link to outside/);
  refused('out', 'path_denied', /symbolic link to outside/, { allowRoot: true });
  refused('out.py', 'path_denied', /symbolic link to outside/);
  refused('src/sub/up/etc/passwd', 'path_denied', /symbolic link to outside/);
  assert.is(normalizeCallerPath(plain, 'alias/x.py'), 'alias/x.py', 'a link inside the root is fine');
});

test('the root itself only where allowed', () => {
  for (const p of ['', '.', './', 'src/..', './/.']) {
    refused(p, 'path_denied', /names the repository root, not a file/);
    assert.is(normalizeCallerPath(plain, p, { allowRoot: true }), '');
  }
});

test('legit forms normalise to a clean POSIX relative path', () => {
  const cases: Array<[string, string]> = [
    ['src/x.py', 'src/x.py'], ['./src/x.py', 'src/x.py'], ['src//x.py', 'src/x.py'], ['src/./x.py', 'src/x.py'],
    ['src/x.py/', 'src/x.py'], ['src/', 'src'], ['new/file.py', 'new/file.py'], ['ünï cödé/ß.py', 'ünï cödé/ß.py'],
    ['~/x', '~/x'], ['...', '...'], ['.hidden/..x', '.hidden/..x'],
  ];
  for (const [input, want] of cases) assert.is(normalizeCallerPath(plain, input), want, input);
});

test('secrets are refused with secret_denied when rules are given (by name and by symlink target)', async () => {
  const rules = await RepoRules.load(root, { extraSecrets: ['*.secret'] });
  refused('.env', 'secret_denied', /^path "\.env" refused: it is a secret file/, { rules });
  refused('./config//.env.local', 'secret_denied', /^path "config\/\.env\.local" refused: it is a secret file/, { rules });
  refused('notes.txt', 'secret_denied', /secret file/, { rules });
  refused('a/b.secret', 'secret_denied', /secret file/, { rules });
  // path refusals come first: an escaping secret is a path problem
  refused('../.env', 'path_denied', /escapes/, { rules });
  assert.is(normalizeCallerPath(rules, 'src/x.py'), 'src/x.py');
  assert.is(normalizeCallerPath(plain, 'notes.txt'), 'notes.txt', 'without rules no secret check (documented)');
});

test('a non-string is refused, not coerced', () => {
  refused(42, 'path_denied', /path must be a string, got number/);
  refused(undefined, 'path_denied', /got undefined/);
});

test.after(() => cleanupTemp());
test.run();
