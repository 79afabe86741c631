/**
 * ESLint: typescript-eslint's recommended rules (syntax only: no type-aware rule, so `npm run lint`
 * stays fast), the Layout table of docs/development.md as `layout/imports` (tools/lint/layout.js),
 * and the line length of comments (@stylistic/max-len). Prettier formats the code (`npm run format`;
 * `npm run lint` checks it).
 */
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'eslint/config';
import { layout, layoutSettings, tseslint } from '@monitoring-api/lint';

/** Node's globals the client must not use: it runs in browsers, Bun and Deno as well. */
const NODE_GLOBALS = ['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate'];

export default defineConfig(
  { ignores: ['dist/', '.bench/', '.test-build/', 'data/', '**/node_modules/'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { layout },
    settings: { layout: layoutSettings(JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'))) },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'layout/imports': 'error',
      'layout/no-cycles': 'error',
      // tsc reports unused locals and parameters (noUnusedLocals, noUnusedParameters) in the
      // TypeScript; linting them again costs a tenth of the lint time. JavaScript keeps the rule.
      '@typescript-eslint/no-unused-vars': 'off',
      // `let x; ... later: x = ...` read by a closure defined in between cannot be a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { '@stylistic': stylistic },
    rules: {
      // Prettier wraps code at 120 columns but leaves comments and strings as written: comments are
      // held to the same width here; a long string or template stays whole, so a search finds it.
      '@stylistic/max-len': [
        'error',
        {
          code: 120,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
    },
  },
  {
    files: ['client/**/*.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...NODE_GLOBALS.map((name) => ({
          name,
          message: 'client/ runs in browsers, Bun and Deno as well: no Node globals.',
        })),
      ],
    },
  },
  {
    // The toolchain's own JavaScript runs on Node, and tsc does not check it.
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
    languageOptions: {
      globals: Object.fromEntries(
        ['URL', 'TextDecoder', 'TextEncoder', 'process', 'console'].map((name) => [name, 'readonly']),
      ),
    },
  },
);
