/**
 * Reading the docs' own structure for the tests that hold them to the code: a section by its
 * heading, the rows of its tables, the backquoted names in a piece of text, its JSON blocks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/root.ts';

export function doc(name: string): string {
  return readFileSync(join(ROOT, 'docs', name), 'utf8');
}

/**
 * The text under `heading` (exact, without its `#`s), up to the next heading of its level or a
 * higher one. Throws when the heading is not there, so a renamed section fails the test that reads it.
 */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === heading);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((line, i) => i > start && /^#{1,6} /.test(line) && /^#+/.exec(line)![0].length <= level);
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/**
 * The rows of the first table in `text` that comes after the line containing `after` (the first
 * table at all without it), as cells, without the header and separator rows.
 */
export function tableRows(text: string, after?: string): string[][] {
  const lines = text.split('\n');
  let i = after === undefined ? 0 : lines.findIndex((line) => line.includes(after));
  if (i === -1) throw new Error(`no line containing "${after}"`);
  while (i < lines.length && !lines[i]!.startsWith('|')) i++;
  const rows: string[][] = [];
  for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push(
      lines[i]!.replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  if (rows.length < 2) throw new Error(`no table${after === undefined ? '' : ` after "${after}"`}`);
  return rows.slice(2);
}

/** Every `backquoted` name in `text`, in order. */
export function quoted(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}

/** The parsed contents of every ```json block in `text`, in order; a block that is not JSON throws. */
export function jsonBlocks(text: string): unknown[] {
  return [...text.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match, i) => {
    try {
      return JSON.parse(match[1]!) as unknown;
    } catch (error) {
      throw new Error(`json block ${i + 1} is not JSON: ${(error as Error).message}\n${match[1]}`, { cause: error });
    }
  });
}

/** Sorted, without repeats: lists compared as sets, with a readable difference when they are not equal. */
export function sorted(names: Iterable<string>): string[] {
  return [...new Set(names)].sort();
}
