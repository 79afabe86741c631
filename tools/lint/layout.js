/**
 * `layout/imports`: the Layout table of docs/development.md as a lint rule. Each top-level folder
 * is an area; an import is checked against what its file's area may touch, by the path it resolves
 * to (a relative specifier) or by the package or built-in it names.
 *
 * - core/ imports core files, the libraries it lists (CORE_LIBRARIES) and nothing else: no driver,
 *   no node:http, no other area; it must keep running on Bun, Deno and the Web.
 * - adapters/, stores/ and engine/ reach the core through its two entries only: the public one
 *   (core/index.ts) and core/internal.ts, which adds what the package's own parts need and users
 *   do not (it is not in package.json "exports"); adapters and stores never import engine/ or
 *   cli/, and the engine never imports adapters/, stores/ or cli/.
 * - client/ imports its own files at run time and the core as types only (`import type`): the
 *   client ships without the server, and runs in browsers, Bun and Deno, so no package or node:.
 * - cli/ composes the rest (it is the standalone server) and may import any of it.
 * - examples/ import what a user can: the package's public entry points (package.json exports).
 * - Shipped areas (core, adapters, stores, engine, cli, client) import only packages listed in
 *   package.json "dependencies" (a user's install has no devDependencies), and never test/,
 *   bench/, examples/ or tools/, which are not published.
 * - test/, bench/ and the files at the root may import anything.
 */
import { isBuiltin } from 'node:module';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noCyclesRule } from './no-cycles.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What core/ may import besides its own files: its listed libraries and built-ins Bun and Deno provide. */
const CORE_LIBRARIES = new Set([
  'itty-router',
  'valibot',
  '@valibot/to-json-schema',
  'ipaddr.js',
  'croner',
  'node:url',
]);

/** The core's entries, the core files adapters/, stores/ and engine/ may import: public, and the package's own. */
const CORE_ENTRIES = ['core/index.ts', 'core/internal.ts'];

/** Areas whose files are published (built to dist/), so only "dependencies" are installed for them. */
const SHIPPED = new Set(['core', 'adapters', 'stores', 'engine', 'cli', 'client']);

/** For each area with rules, the other areas it may import (its own is always allowed). */
const MAY_IMPORT = {
  core: [],
  adapters: ['core'],
  stores: ['core'],
  engine: ['core'],
  client: ['core'],
  cli: ['core', 'adapters', 'stores', 'engine'],
};

/**
 * What the rule needs from package.json, passed as the `layout` setting so that ESLint's cache,
 * keyed on the configuration, is invalidated when they change: the packages a user's install
 * provides (the package's "dependencies"), and the source file behind each public entry point
 * (./dist/x/index.js in "exports" is x/index.ts).
 */
export function layoutSettings(manifest) {
  const entries = Object.values(manifest.exports ?? {})
    .map((target) => (typeof target === 'object' && target !== null ? target.default : undefined))
    .filter((path) => typeof path === 'string' && path.startsWith('./dist/') && path.endsWith('.js'))
    .map((path) => path.slice('./dist/'.length, -'.js'.length) + '.ts');
  return { dependencies: Object.keys(manifest.dependencies ?? {}).sort(), publicEntries: entries.sort() };
}

/** 'pkg' of 'pkg/sub/path', '@scope/pkg' of '@scope/pkg/sub'. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A path relative to the repository root, with forward slashes. */
function fromRoot(path) {
  return relative(ROOT, path).split(sep).join('/');
}

/**
 * What is wrong with importing `specifier` from `file` (both relative to the root), or null.
 * `typeOnly`: the import is erased at build (`import type`, `export type`, `import('x').T`).
 */
function problem(file, specifier, typeOnly, { dependencies, publicEntries }) {
  const area = file.includes('/') ? file.slice(0, file.indexOf('/')) : '';
  const allowed = MAY_IMPORT[area];
  if (specifier.startsWith('.')) {
    const target = fromRoot(resolve(ROOT, dirname(file), specifier));
    if (target.startsWith('../')) return `${specifier} is outside the repository`;
    const targetArea = target.includes('/') ? target.slice(0, target.indexOf('/')) : '';
    if (area === 'examples') {
      return targetArea === 'examples' || publicEntries.includes(target)
        ? null
        : `examples/ import the package as a user does, through a public entry point (package.json exports), not ${target}`;
    }
    if (allowed === undefined || targetArea === area) return null;
    if (!allowed.includes(targetArea)) {
      return `${area}/ may not import ${targetArea === '' ? target : `${targetArea}/`} (docs/development.md, Layout)`;
    }
    if (targetArea === 'core' && area !== 'cli' && !CORE_ENTRIES.includes(target)) {
      return `${area}/ imports the core through ${CORE_ENTRIES.join(' or ')}, not ${target}: export what is missing there`;
    }
    if (area === 'client' && !typeOnly)
      return `client/ imports the core as types only (import type): ${target} would ship the server`;
    return null;
  }
  const builtin = isBuiltin(specifier);
  const name = builtin ? (specifier.startsWith('node:') ? specifier : `node:${specifier}`) : packageName(specifier);
  if (area === 'core') {
    return CORE_LIBRARIES.has(name)
      ? null
      : `core/ may import only ${[...CORE_LIBRARIES].join(', ')} and its own files, not ${name}`;
  }
  if (area === 'client')
    return `client/ runs in browsers, Bun and Deno with no dependencies: it may not import ${name}`;
  if (SHIPPED.has(area) && !builtin && !dependencies.includes(name)) {
    return `${name} is not in package.json "dependencies", so a user's install of ${area}/ would not have it`;
  }
  return null;
}

const importsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports follow the Layout table of docs/development.md' },
    schema: [],
  },
  create(context) {
    const file = fromRoot(context.filename);
    if (file.startsWith('../')) return {};
    const settings = context.settings.layout;
    if (settings === undefined)
      throw new Error('layout/imports needs the `layout` setting: layoutSettings(package.json)');
    function check(node, source, typeOnly) {
      if (typeof source !== 'string') return; // a computed specifier: nothing to check statically
      const message = problem(file, source, typeOnly, settings);
      if (message !== null) context.report({ node, message });
    }
    // typescript-eslint's nodes say `import type` / `export type` with importKind / exportKind.
    const kind = (node) => node.importKind ?? node.exportKind;
    return {
      ImportDeclaration: (node) => check(node, node.source.value, kind(node) === 'type'),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, kind(node) === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source.value, kind(node) === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
      // `import('x').T` in a type annotation (typescript-eslint 8 names its string `source`).
      TSImportType: (node) => check(node, node.source.value, true),
      TSExternalModuleReference: (node) =>
        node.expression.type === 'Literal' && check(node, node.expression.value, false),
    };
  },
};

export const layout = { meta: { name: 'layout' }, rules: { imports: importsRule, 'no-cycles': noCyclesRule } };
