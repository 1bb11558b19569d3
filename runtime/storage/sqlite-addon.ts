// better-sqlite3, required on first use. The server bundle (esbuild.config.mjs) puts a plain
// require of it in this module's place, so its JavaScript is bundled and comes from V8's code
// cache instead of a dozen files resolved and compiled at every start.

import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

export const requireSqlite = (): typeof Database => createRequire(import.meta.url)('better-sqlite3') as typeof Database;
