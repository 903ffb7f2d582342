// `node dist/test/bench/heap-retained.js SNAPSHOT [Class,...]`: what evidex's
// structures retain in a V8 heap snapshot (heap-snapshot.ts writes one of the
// daemon). Retained means dominated: every path from the roots to an object
// passes through the structure, so it would be freed with it, and nothing is
// counted twice. The dominator tree is computed with Cooper, Harvey and
// Kennedy's iterative algorithm over the snapshot's strong edges. Prints each
// class's instances and retained MB and, for a class with one or two
// instances, what each of its fields retains.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[]; edges: number[]; strings: string[];
}

const CLASSES = 'Store,MemoryIndex,SearchText,BlockSignatures,SymbolIndex,TrigramLineCounts,FileTable,Postings,Lru';
const [file, classArg = CLASSES] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-retained.js SNAPSHOT [Class,...]');
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const meta = snap.snapshot.meta;
const NF = meta.node_fields.length, EF = meta.edge_fields.length;
const [nType, nName, nSelf, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const { nodes, edges, strings } = snap;
const nodeTypes = meta.node_types[0], edgeTypes = meta.edge_types[0];
const N = nodes.length / NF;
const type = (v: number) => nodeTypes[nodes[v * NF + nType]];
const name = (v: number) => strings[nodes[v * NF + nName]];
const firstEdge = new Float64Array(N + 1);
for (let v = 0, e = 0; v < N; v++) { firstEdge[v] = e; e += nodes[v * NF + nEdges] * EF; firstEdge[v + 1] = e; }
const skipped = new Set([edgeTypes.indexOf('weak'), edgeTypes.indexOf('shortcut')]);
const strong = (e: number) => !skipped.has(edges[e + eType]);
const target = (e: number) => edges[e + eTo] / NF;

// Postorder from the root (node 0) over strong edges.
const post = new Int32Array(N).fill(-1), order: number[] = [];
const next = Float64Array.from(firstEdge.subarray(0, N));
const stack = [0];
post[0] = -2;
while (stack.length) {
  const v = stack[stack.length - 1];
  if (next[v] < firstEdge[v + 1]) {
    const e = next[v]; next[v] += EF;
    const w = target(e);
    if (strong(e) && post[w] === -1) { post[w] = -2; stack.push(w); }
  } else { stack.pop(); post[v] = order.length; order.push(v); }
}
const preds: number[][] = Array.from({ length: N }, () => []);
for (const v of order) for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) if (strong(e)) preds[target(e)].push(v);
const idom = new Int32Array(N).fill(-1);
idom[0] = 0;
const intersect = (a: number, b: number) => {
  while (a !== b) { while (post[a] < post[b]) a = idom[a]; while (post[b] < post[a]) b = idom[b]; }
  return a;
};
for (let changed = true; changed;) {
  changed = false;
  for (let k = order.length - 2; k >= 0; k--) {
    const v = order[k];
    let d = -1;
    for (const u of preds[v]) if (idom[u] >= 0) d = d < 0 ? u : intersect(u, d);
    if (d >= 0 && idom[v] !== d) { idom[v] = d; changed = true; }
  }
}
const retained = new Float64Array(N);
for (const v of order) { retained[v] += nodes[v * NF + nSelf]; if (v !== 0) retained[idom[v]] += retained[v]; }

const mb = (x: number) => (x / 1e6).toFixed(1);
console.log(`heap snapshot: ${mb(retained[0])} MB in ${N} nodes`);
for (const cls of classArg.split(',')) {
  const ids = order.filter((v) => type(v) === 'object' && name(v) === cls);
  if (!ids.length) continue;
  console.log(`${cls}: ${ids.length} instance(s), retained ${mb(ids.reduce((s, v) => s + retained[v], 0))} MB`);
  if (ids.length > 2) continue;
  for (const v of ids) {
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
      const w = target(e);
      if (idom[w] !== v || retained[w] < 1e5) continue;
      const t = edgeTypes[edges[e + eType]];
      const field = t === 'element' || t === 'hidden' ? String(edges[e + eName]) : strings[edges[e + eName]];
      console.log(`  .${field} (${name(w)}): ${mb(retained[w])} MB`);
    }
  }
}
