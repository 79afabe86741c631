/**
 * The lockfile of a new project that depends on the packed tarball alone: the tarball, and each
 * package the tarball's `dependencies` reach, as this repository's lockfile resolved it (version,
 * registry URL, integrity). `npm ci --offline` installs from it out of npm's cache, which the
 * repository's own `npm ci` filled with exactly those tarballs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface LockedPackage {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

export interface Lockfile {
  name?: string;
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
  [field: string]: unknown;
}

/** Where Node would find `name` from the package at `from` ('' is the root): its folder or any above. */
function resolve(packages: Lockfile['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const path = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[path] !== undefined) return path;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

export function consumerLockfile(repository: Lockfile, tarball: string): Lockfile {
  const root = repository.packages[''];
  if (root?.dependencies === undefined) throw new Error('the lockfile names no dependencies');
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const name = repository.name ?? 'monitoring-api';
  const packages: Lockfile['packages'] = {
    '': { name: 'consumer', version: '1.0.0', private: true, dependencies: { [name]: `file:${tarball}` } },
    [`node_modules/${name}`]: {
      version: root.version,
      resolved: `file:${tarball}`,
      integrity,
      dependencies: root.dependencies,
    },
  };
  const pending: Array<readonly [string, string]> = Object.keys(root.dependencies).map((dependency) => [
    '',
    dependency,
  ]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [from, dependency] = next;
    const path = resolve(repository.packages, from, dependency);
    // An optional dependency this platform did not install is absent from the lockfile too.
    if (path === undefined || packages[path] !== undefined) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...locked } = repository.packages[path]!;
    packages[path] = locked;
    for (const child of Object.keys({ ...locked.dependencies, ...locked.optionalDependencies }))
      pending.push([path, child]);
  }
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}
