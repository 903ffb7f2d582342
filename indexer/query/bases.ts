// The base classes a class definition names, read from its header as written
// (`class Flask(App):`, `class Server<T> extends Base<T> implements I {`), so
// a near miss such as `Flask.route` can be followed to `Scaffold.route`
// (suggest.ts). Only names are read here — dotted identifiers, without type
// arguments, keyword arguments (`metaclass=…`) or starred ones; which
// definitions they stand for is the caller's to resolve.
import { isPythonPath } from '../python/modules.js';

const DOTTED = /^[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*/;

/** The base names of class (or interface) `name` whose definition starts `header`, in the order written. */
export function baseNames(path: string, header: string, name: string): string[] {
  return isPythonPath(path) ? pythonBases(header, name) : scriptBases(header, name);
}

/** `(… , …)` balanced from `open`, the index of an opening bracket; null when it does not close in `text`. */
function balanced(text: string, open: number): { inner: string; end: number } | null {
  const pairs: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c in pairs) stack.push(pairs[c]);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return { inner: text.slice(open + 1, i), end: i + 1 };
    }
  }
  return null;
}

/** Splits at commas outside any bracket. */
function topLevelParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0, from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '}' || c === '>') depth--;
    else if (c === ',' && depth === 0) { parts.push(text.slice(from, i)); from = i + 1; }
  }
  parts.push(text.slice(from));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

function dottedName(expr: string): string | null {
  const m = DOTTED.exec(expr);
  return m ? m[0].replace(/\s+/g, '') : null;
}

function afterKeyword(text: string, keyword: string, name: string): number {
  const re = new RegExp(`\\b${keyword}\\s+${name.replace(/[$]/g, '\\$')}(?![\\w$])`);
  const m = re.exec(text);
  return m ? m.index + m[0].length : -1;
}

function pythonBases(header: string, name: string): string[] {
  const text = header.replace(/#[^\n]*/g, '');
  let at = afterKeyword(text, 'class', name);
  if (at < 0) return [];
  while (/\s/.test(text[at] ?? '')) at++;
  if (text[at] === '[') at = balanced(text, at)?.end ?? at; // PEP 695 type parameters
  while (/\s/.test(text[at] ?? '')) at++;
  if (text[at] !== '(') return [];
  const args = balanced(text, at);
  if (!args) return [];
  const out: string[] = [];
  for (const part of topLevelParts(args.inner)) {
    if (part.startsWith('*') || /^[A-Za-z_]\w*\s*=[^=]/.test(part)) continue;
    const n = dottedName(part);
    if (n) out.push(n);
  }
  return out;
}

function scriptBases(header: string, name: string): string[] {
  const text = header.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '');
  let at = afterKeyword(text, 'class', name);
  if (at < 0) at = afterKeyword(text, 'interface', name);
  if (at < 0) return [];
  while (/\s/.test(text[at] ?? '')) at++;
  if (text[at] === '<') at = balanced(text, at)?.end ?? at;
  const body = text.indexOf('{', at);
  const heritage = text.slice(at, body < 0 ? undefined : body);
  const m = /^\s*extends\s+([\s\S]*?)(?:\bimplements\b|$)/.exec(heritage);
  if (!m) return [];
  return topLevelParts(m[1]).map(dottedName).filter((n): n is string => n !== null);
}
