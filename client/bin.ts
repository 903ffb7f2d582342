#!/usr/bin/env node
// The `evidex` executable. It turns the compile cache on (code-cache.ts), then
// loads the CLI (run.ts): nothing else is imported here, because a module
// loaded before the cache is on is compiled from its source at every call.
import { enableCodeCache } from './code-cache.js';

enableCodeCache();
await import('./run.js');
