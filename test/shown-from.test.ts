// Repository paths as read from a folder of it (local/shown-from.ts): the
// rule the CLI prints its own paths by and the daemon writes its notes' and
// refusals' paths by, for a client in a subfolder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shownFrom, withPathsShown } from '../local/shown-from.js';

test('a path from a folder: relative to it, a folder keeps its "/", the folder itself is "."; from the root, as is', () => {
  assert.is(shownFrom('apps/web/', 'packages/ui/src/index.ts'), '../../packages/ui/src/index.ts');
  assert.is(shownFrom('apps/web/', 'apps/web/src/main.tsx'), 'src/main.tsx');
  assert.is(shownFrom('apps/web/', 'packages/core/'), '../../packages/core/');
  assert.is(shownFrom('apps/web/', 'apps/web/'), '.');
  assert.is(shownFrom('', 'packages/ui'), 'packages/ui');
});

test('only the paths named, where the text names them whole, in one pass: a path shown from here is never taken for another', () => {
  const from = (p: string): string => shownFrom('apps/', p);
  const text = '"apps/x/y.ts" resolves to apps/x/y.ts, which 2 statements import: find_importers apps/x/y.ts; x/y.ts (x/y.ts); apps/x/y.tsx and myapps/x/y.ts stay';
  assert.is(withPathsShown(text, ['apps/x/y.ts', 'x/y.ts'], from),
    '"x/y.ts" resolves to x/y.ts, which 2 statements import: find_importers x/y.ts; ../x/y.ts (../x/y.ts); apps/x/y.tsx and myapps/x/y.ts stay');
  // A folder and a file inside it: each where it is named whole.
  assert.is(withPathsShown('package "@a/ui" (packages/ui): packages/ui/src/index.ts', ['packages/ui', 'packages/ui/src/index.ts'], (p) => shownFrom('apps/web/', p)),
    'package "@a/ui" (../../packages/ui): ../../packages/ui/src/index.ts');
  assert.is(withPathsShown('nothing named', [], from), 'nothing named');
  assert.is(withPathsShown('a.b+c(d) a.bxc', ['a.b+c(d)', 'a.b'], (p) => `./${p}`), './a.b+c(d) a.bxc');
});

test('a name with a control character, quoted as JSON (escaped), is shown from here escaped as well', () => {
  const evil = 'versions/ev\x1b[31mil/x/e.py';
  const text = `${JSON.stringify(evil)} is in a folder the index leaves out`;
  assert.is(withPathsShown(text, [evil], (p) => shownFrom('versions/ev\x1b[31mil/', p)), '"x/e.py" is in a folder the index leaves out');
  assert.is(withPathsShown(text, [evil], (p) => shownFrom('other/', p)), '"../versions/ev\\u001b[31mil/x/e.py" is in a folder the index leaves out');
  assert.is(withPathsShown(`raw ${evil}`, [evil], (p) => shownFrom('versions/', p)), 'raw ev\x1b[31mil/x/e.py');
});

test.run();
