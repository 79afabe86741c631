import { readFileSync } from 'node:fs';

/** The package's version, from its package.json; `unknown` when it cannot be read. */
export function version(): string {
  // The same file sits one level deeper once compiled (dist/cli/main.js).
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'monitoring-api') return pkg.version ?? 'unknown';
    } catch {
      // not this one
    }
  }
  return 'unknown';
}
