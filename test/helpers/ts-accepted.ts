// The disagreements between evidex and the TypeScript oracle that the tests
// accept, each with the reason it is not evidex's to fix (the differential test
// and the held-out script list them apart). The contract and the compiler
// decide every other one: a difference not matched here fails.
import type { Accepted } from './ts-compare.js';

export const ACCEPTED: Accepted[] = [
  {
    reason: 'the rules name the reasons an unresolved statement is kept with (an external package, a missing file, a config that could not be read) '
      + 'but not which one a bare specifier gets when it names a workspace package or matches a `paths` alias that no package.json above declares, and still resolves nowhere: '
      + 'evidex says a missing file, the oracle counts every bare specifier as a package (the totals are compared exactly)',
    test: (d) => d.category === 'index/status reasons',
  },
];
