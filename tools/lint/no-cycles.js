/**
 * `layout/no-cycles`: no file imports, through any chain of relative imports, a file that imports
 * it back. A cycle makes module order matter at load time (a value read before its module has
 * run) and knots concepts that should stand apart; type-only imports count too, since they knot
 * the same concepts. A dynamic `import()` does not count: it loads on demand, once both modules
 * have run. Each relative import of the linted file is followed on disk, file by file, and
 * reported when the chain comes back to the linted file.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** Static imports and re-exports, type-only ones included: `from './x.ts'`, `import './x.ts'`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** Comments and string literals, found together so that a `//` inside a string is no comment. */
const COMMENT_OR_STRING = /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

/** What comes right before an import's specifier. */
const BEFORE_SPECIFIER = /(?:\bfrom\s*|\bimport\s+)$/;

/**
 * The text with only its import specifiers left of its comments and strings: an import named in a
 * comment, or in a string that is not a specifier, is not an import.
 */
function withoutComments(text) {
  return text.replace(COMMENT_OR_STRING, (match, literal, offset) => {
    if (literal === undefined) return '';
    return BEFORE_SPECIFIER.test(text.slice(Math.max(0, offset - 16), offset)) ? literal : "''";
  });
}

/** The relative imports of each file read so far, by absolute path; one lint run reads each once. */
const importsOf = new Map();

function relativeImports(file) {
  let found = importsOf.get(file);
  if (found === undefined) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // A specifier that names no file is for tsc to report, not a cycle.
    }
    found = [...withoutComments(text).matchAll(SPECIFIER)].map((match) => resolve(dirname(file), match[2]));
    importsOf.set(file, found);
  }
  return found;
}

/** The chain of files from `start` back to `file`, or null when `start` never reaches it. */
function chainBack(start, file) {
  const seen = new Set();
  const path = [];
  const visit = (current) => {
    if (current === file) return true;
    if (seen.has(current)) return false;
    seen.add(current);
    path.push(current);
    if (relativeImports(current).some(visit)) return true;
    path.pop();
    return false;
  };
  return visit(start) ? path : null;
}

export const noCyclesRule = {
  meta: {
    type: 'problem',
    docs: { description: "No import cycles between the repository's files" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const chain = chainBack(resolve(dirname(file), source), file);
      if (chain === null) return;
      const names = [...chain, file].map((path) => relative(context.cwd, path));
      context.report({ node, message: `import cycle: ${names.join(' -> ')}` });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
    };
  },
};
