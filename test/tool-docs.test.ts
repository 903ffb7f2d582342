// docs/tools.md against the schemas the tools validate with and describe
// their answers by (written by hand, so checked here): every value of every
// enum in an inputSchema or the outputSchema is named in the docs, and the
// optional fields an item may carry are in the outputSchema a host checks
// answers against (not let through by additionalProperties alone).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolDescriptors } from '../indexer/query/schemas.js';
import { PROJECT_ROOT } from './helpers/fs.js';

const docs = readFileSync(join(PROJECT_ROOT, 'docs', 'tools.md'), 'utf8');

/** Every enum in a JSON Schema, as [where, values]. */
function enums(schema: unknown, where: string, out: Array<[string, unknown[]]> = []): Array<[string, unknown[]]> {
  if (Array.isArray(schema)) schema.forEach((s, i) => enums(s, `${where}[${i}]`, out));
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'enum' && Array.isArray(v)) out.push([where, v]);
      else enums(v, `${where}.${k}`, out);
    }
  }
  return out;
}

test('docs/tools.md names every value of every enum of the tools\' arguments and answers', () => {
  const ds = toolDescriptors();
  const all = [...ds.flatMap((d) => enums(d.inputSchema, `${d.name}.input`)), ...enums(ds[0].outputSchema, 'output')];
  const reason = all.find(([where]) => /left_out_folder.*reason/.test(where));
  assert.ok(reason && reason[1].includes('state'), 'the walk reaches left_out_folder.reason, state included');
  const unnamed = all.flatMap(([where, values]) => values.filter((v) => !docs.includes(`\`${String(v)}\``)).map((v) => `${where}: ${String(v)}`));
  assert.equal(unnamed, []);
});

test('the outputSchema describes every optional field an item may carry: via, excerpt, truncated, next_start_line', () => {
  const item = ((toolDescriptors()[0].outputSchema.properties as Record<string, { items: { properties: Record<string, { type?: string; items?: unknown }> } }>).evidence).items.properties;
  for (const f of ['via', 'excerpt', 'truncated', 'next_start_line']) assert.ok(item[f], f);
  assert.equal([item.via.type, item.via.items], ['array', { type: 'string' }]);
});

test.run();
