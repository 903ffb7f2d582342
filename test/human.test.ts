// The one rendering rule for what a person reads (local/human.ts), and the
// check that nothing else writes to a stream. The rule is judged against its
// own definition read independently: Unicode's general category Cc, the
// Bidi_Control property and the line/paragraph separators, through the
// regular-expression engine's property tables; the source check asks the
// TypeScript compiler which calls reach a Node stream's write.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import {
  human, join as joinShown, jsonText, line, paint, padEnd, path, Screen, Shown, text, thousands,
} from '../local/human.js';
import { PROJECT_ROOT, sourceFiles } from './helpers/fs.js';
import { EVIL_SEQUENCES, strayControls } from './helpers/hostile.js';

/** Every character the rule must escape, by its definition. */
const MUST_ESCAPE = /[\p{Cc}\p{Bidi_Control}\p{Zl}\p{Zp}]/u;

/** Every code point of the BMP, a few astral ones, and the unpaired surrogates' neighbours. */
const ALL: string[] = [];
for (let c = 0; c < 0x10000; c++) if (c < 0xd800 || c > 0xdfff) ALL.push(String.fromCodePoint(c));
ALL.push('\u{1F600}', '\u{E0001}', '\u{10FFFF}');

test('every character the rule names is escaped, and nothing else changes (each of the 63k BMP code points)', () => {
  for (const c of ALL) {
    const shown = line(c).plain;
    if (c === '\t') { assert.is(shown, '\t'); continue; }
    if (!MUST_ESCAPE.test(c)) { assert.is(shown, c, `U+${c.codePointAt(0)!.toString(16)} must stay as it is`); continue; }
    const n = c.codePointAt(0)!;
    assert.is(shown, n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`);
    assert.not.match(shown, MUST_ESCAPE);
  }
  // The forms the docs print, spelled out.
  assert.is(line('\x1b\x07\x7f\x9b\u202e\u2066\u061c\u200f\u2028\r\n\0').plain, '\\x1b\\x07\\x7f\\x9b\\u202e\\u2066\\u061c\\u200f\\u2028\\x0d\\x0a\\x00');
});

test('the three forms: text keeps TAB and the line break, line keeps TAB, a path keeps neither and doubles backslashes', () => {
  const s = 'a\tb\nc\\x1b\x1bd';
  assert.is(text(s).plain, 'a\tb\nc\\x1b\\x1bd');
  assert.is(line(s).plain, 'a\tb\\x0ac\\x1b\\x1bd');
  assert.is(path(s).plain, 'a\\x09b\\x0ac\\\\x1b\\x1bd');
});

/** Reads a path back from its shown form: the form is reversible, so a printed name stands for one name. */
function unshowPath(shown: string): string {
  return shown.replace(/\\(\\|x([0-9a-f]{2})|u([0-9a-f]{4}))/g, (_, all: string, x?: string, u?: string) => (all === '\\' ? '\\' : String.fromCharCode(parseInt(x ?? u!, 16))));
}

test('a shown path reads back as exactly the name it shows (20,000 random names over the characters that matter)', () => {
  const pool = ['a', '/', '.', '\\', 'x', '1', 'b', 'u', '2', '0', '\x1b', '\n', '\r', '\t', '\x9b', '\u202e', '\u2028', '\x7f', '\0', 'é'];
  let seed = 7;
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) >>> 0; return seed % n; };
  for (let i = 0; i < 20_000; i++) {
    let name = '';
    for (let k = rnd(12); k >= 0; k--) name += pool[rnd(pool.length)];
    const shown = path(name).plain;
    assert.not.match(shown, MUST_ESCAPE, JSON.stringify(name));
    assert.is(unshowPath(shown), name, JSON.stringify(name));
  }
});

test('streamed text: a sequence split across pieces comes out exactly as the whole does, at every cut', () => {
  for (const [name, seq] of Object.entries(EVIL_SEQUENCES)) {
    const whole = `before ${seq} after\n`;
    for (let cut = 0; cut <= whole.length; cut++) {
      const pieces = text(whole.slice(0, cut)).plain + text(whole.slice(cut)).plain;
      assert.is(pieces, text(whole).plain, `${name} cut at ${cut}`);
      assert.equal(strayControls(pieces), [], `${name} cut at ${cut}`);
    }
  }
});

test('on a colour terminal each escape is in reverse video, so it cannot pass for the same characters in the file', () => {
  const s = line('literal \\x1b and real \x1b');
  assert.is(s.plain, 'literal \\x1b and real \\x1b');
  assert.is(s.rich, 'literal \\x1b and real \x1b[7m\\x1b\x1b[27m');
  // evidex's own colours wrap it, and are the only control sequences written.
  assert.is(paint('35', path('a\nb')).rich, '\x1b[35ma\x1b[7m\\x0a\x1b[27mb\x1b[0m');
  assert.equal(strayControls(paint('35', path('a\nb')).rich), []);
});

test('human`…`: outside strings are shown as lines, Shown and numbers as they are; widths count what is shown', () => {
  const name = 'x\x1b]0;t\x07';
  const s = human`file ${path('a\nb')} has ${3} hits in ${name}\n`;
  assert.is(s.plain, 'file a\\x0ab has 3 hits in x\\x1b]0;t\\x07\n');
  assert.is(joinShown([line('a\n'), 'b\x1b'], ', ').plain, 'a\\x0a, b\\x1b');
  assert.is(padEnd(path('a\tb'), 8).plain, 'a\\x09b  ');
  assert.throws(() => new (Shown as unknown as new (...a: unknown[]) => Shown)(Symbol('Shown'), 'x', 'x'), /only by local\/human/);
});

test('jsonText is the exact value (JSON.parse gives it back) with nothing a terminal obeys left raw', () => {
  const v = { snippet: Object.values(EVIL_SEQUENCES).join('|'), path: 'a\nb\u202e', n: 1 };
  const j = jsonText(v);
  assert.equal(JSON.parse(j), v);
  assert.not.match(j, MUST_ESCAPE);
  assert.match(j, '\\u009b');
  assert.match(j, '\\u202e');
});

test('a Screen writes rich text only where colours are on; anything but a Shown is shown as outside text', () => {
  const got: string[] = [];
  const sink = { write: (c: string) => { got.push(c); return true; }, isTTY: true } as unknown as NodeJS.WritableStream;
  new Screen(sink, { colour: true }).line(line('\x1b'));
  new Screen(sink, { colour: false }).line(line('\x1b'));
  new Screen(sink, { colour: false }).write('raw \x1b[2J\n' as unknown as Shown);
  assert.equal(got, ['\x1b[7m\\x1b\x1b[27m\n', '\\x1b\n', 'raw \\x1b[2J\n']);
});

// ---- nothing writes to a stream but local/human.ts ----------------------------

const SOURCE_DIRS = ['local', 'indexer', 'protocol', 'daemon', 'client'];
const SINK = 'local/human.ts';

/**
 * Where a Node stream is written directly on purpose, and why: these streams
 * carry a protocol to a program, not text to a person.
 */
const PROTOCOL_STREAMS: ReadonlyMap<string, string> = new Map([
  ['protocol/ws-client.ts', 'the WebSocket handshake and frames, to the daemon'],
  ['daemon/listener.ts', 'the HTTP answer refusing an upgrade, to a client program'],
  ['client/mcp/server.ts', 'hands stdout to the MCP transport'],
  ['client/mcp/stdio.ts', 'MCP messages on stdout, to the host (JSON)'],
  ['client/mcp/http.ts', 'MCP answers in HTTP responses, to the host (JSON)'],
]);

const rel = (f: string): string => relative(PROJECT_ROOT, f).split(sep).join('/');

/** Every way a file reaches a person's stream other than through local/human.ts. */
function bypasses(files: readonly string[], extra: Record<string, string> = {}): string[] {
  const options: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, types: ['node'], skipLibCheck: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const extraAbs = new Map(Object.entries(extra).map(([k, v]) => [join(PROJECT_ROOT, k), v]));
  host.readFile = (f) => extraAbs.get(f) ?? read(f);
  host.fileExists = (f) => extraAbs.has(f) || exists(f);
  const program = ts.createProgram([...files, ...extraAbs.keys()], options, host);
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const sf of program.getSourceFiles()) {
    const file = rel(sf.fileName);
    if (!SOURCE_DIRS.some((d) => file.startsWith(`${d}/`)) || file === SINK) continue;
    const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    if (/\\x1b|\\u001b|\\u\{1b\}|\\033|\\x9b|\\u009b|\x1b|\x9b/i.test(sf.text)) found.push(`${file}: a control sequence written in the source (evidex's own are made in ${SINK})`);
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyAccessExpression(n)) {
        const whole = n.getText(sf);
        if (/^process\.(stdout|stderr)$/.test(whole) && !PROTOCOL_STREAMS.has(file)) found.push(`${at(n)}: ${whole} (write through a Screen of ${SINK})`);
        if (ts.isIdentifier(n.expression) && n.expression.text === 'console') found.push(`${at(n)}: ${whole}`);
      }
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ['write', 'end'].includes(n.expression.name.text)) {
        const decl = checker.getResolvedSignature(n)?.getDeclaration();
        const declFile = decl?.getSourceFile().fileName ?? '';
        // A Buffer's write fills memory, not a stream.
        const owner = decl?.parent;
        const onBuffer = owner !== undefined && ts.isInterfaceDeclaration(owner) && owner.name.text === 'Buffer';
        if (/node_modules\/@types\/node\//.test(declFile) && !onBuffer && !PROTOCOL_STREAMS.has(file)) found.push(`${at(n)}: ${n.expression.getText(sf)}() writes a Node stream (write through a Screen of ${SINK})`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return found;
}

const ALL_SOURCES = SOURCE_DIRS.flatMap((d) => sourceFiles(join(PROJECT_ROOT, d)));

/** A file of planted faults, checked in the same program as the source (one type-check for both tests). */
const PLANTED = [
  "import { Writable } from 'node:stream';",
  'export function a(w: Writable, s: NodeJS.WriteStream): void {',
  "  w.write('x');",                      // 3
  "  s.write('y');",                      // 4
  "  process.stderr.write('z');",         // 5 (twice: the access and the write)
  "  console.log('q');",                  // 6
  "  const red = '\\x1b[31m';",         // an escape in the source
  '  void red;',
  "  Buffer.alloc(1).write('b');",       // a Buffer's write fills memory: not found
  '}',
].join('\n');
let found: string[] | undefined;
const foundAll = (): string[] => (found ??= bypasses(ALL_SOURCES, { 'client/planted-for-test.ts': PLANTED }));
const planted = (f: string): boolean => f.startsWith('client/planted-for-test.ts');

test('the check finds each way around the rule: a stream written, process.stdout, console, an escape in the source', () => {
  const p = 'client/planted-for-test.ts';
  assert.equal(foundAll().filter(planted).sort(), [
    `${p}: a control sequence written in the source (evidex's own are made in local/human.ts)`,
    `${p}:3: w.write() writes a Node stream (write through a Screen of local/human.ts)`,
    `${p}:4: s.write() writes a Node stream (write through a Screen of local/human.ts)`,
    `${p}:5: process.stderr (write through a Screen of local/human.ts)`,
    `${p}:5: process.stderr.write() writes a Node stream (write through a Screen of local/human.ts)`,
    `${p}:6: console.log`,
  ].sort());
});

test('nothing in the source writes to a stream a person reads except through local/human.ts', () => {
  const found = foundAll().filter((f) => !planted(f));
  assert.equal(found, [], found.join('\n'));
  for (const f of PROTOCOL_STREAMS.keys()) assert.ok(ALL_SOURCES.some((s) => rel(s) === f), `${f} is listed but does not exist`);
  assert.ok(readFileSync(join(PROJECT_ROOT, SINK), 'utf8').includes('class Screen'));
});

test.run();

test('thousands writes a number as toLocaleString("en") does (without loading ICU\'s number formats)', () => {
  for (const n of [0, 7, 999, 1000, 4000, 12345, 999999, 1000000, 123456789, -1, -1234, -1234567, Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, 1234.5678]) {
    assert.is(thousands(n), n.toLocaleString('en'), String(n));
  }
});
