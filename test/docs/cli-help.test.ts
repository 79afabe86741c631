/**
 * docs/cli.md and `monitoring-api <command> --help` list the same flags, command by command, and
 * every flag they list is one the command's parser knows: the two cannot drift apart, nor from
 * what the commands take. The flags of `serve` and `worker` are also held to their tables in
 * cli.md. The commands run in this process (runCommand); none gets far enough to open anything.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SERVE_FLAGS } from '../../cli/commands/serve.ts';
import { WORKER_FLAGS } from '../../cli/commands/worker.ts';
import { ROOT } from '../support/built-cli.ts';
import { runCommand } from '../support/run-command.ts';

const CLI_MD = readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8');

/** The commands, as the synopsis names them; `ENGINE FLAGS` stands for the flags serve --worker and worker share. */
const COMMANDS = ['serve', 'worker', 'migrate', 'users create', 'keys create', 'keys list', 'keys revoke', 'openapi'];
const ENGINE = 'ENGINE FLAGS';

interface Flag {
  name: string;
  /** Whether the synopsis shows a value after it (`--port P`), rather than a switch (`--worker`). */
  takesValue: boolean;
}

/** The flags of a synopsis fragment, in order: `--name`, and whether a placeholder follows it. */
function flagsOf(text: string): Flag[] {
  const flags = new Map<string, Flag>();
  for (const match of text.matchAll(/--([a-z][a-z-]*)(?: (?![-[])(\S))?/g)) {
    if (match[1] === 'help') continue;
    flags.set(match[1]!, { name: match[1]!, takesValue: match[2] !== undefined });
  }
  return [...flags.values()];
}

const names = (flags: readonly Flag[]) => flags.map((flag) => flag.name).sort();

/**
 * A synopsis cut into its commands: a line that starts with a command (after `prefix`) opens its
 * section, and the more indented lines after it continue it; `ENGINE FLAGS:` opens the engine's.
 */
function sections(synopsis: string, prefix: string): Map<string, string> {
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const line of synopsis.split('\n')) {
    if (line.trim() === '') current = undefined;
    else if (line.startsWith(`${ENGINE}:`)) current = ENGINE;
    else if (line.startsWith(prefix) && line[prefix.length] !== ' ') {
      const rest = line.slice(prefix.length);
      current = COMMANDS.filter((command) => rest === command || rest.startsWith(`${command} `)).at(-1);
      assert.ok(current !== undefined, `a synopsis line names no known command: ${line}`);
    } else if (!/^\s/.test(line)) current = undefined;
    if (current !== undefined) found.set(current, `${found.get(current) ?? ''}${line}\n`);
  }
  return found;
}

/** The flags in the first column of the first table under a heading of docs/cli.md. */
function tableFlags(heading: string): string[] {
  const start = CLI_MD.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/cli.md has no heading ${heading}`);
  const lines = CLI_MD.slice(start + heading.length + 2).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const table = lines.slice(
    first + 2,
    lines.findIndex((line, i) => i > first && !line.startsWith('|')),
  );
  return table.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]!)).sort();
}

const docsSynopsis = sections(/^```\n([\s\S]*?)\n```$/m.exec(CLI_MD)![1]!, 'monitoring-api ');

/** What `<command> --help` prints, cut into sections as the synopsis of cli.md. */
async function helpSections(command: string): Promise<Map<string, string>> {
  const help = await runCommand([...command.split(' '), '--help']);
  assert.equal(help.code, 0, help.stderr);
  // The synopsis: the paragraphs of command lines (two spaces in, or a command's own usage line)
  // and the engine's flags; the prose after them names flags too, with their defaults.
  const synopsis = help.stdout
    .split('\n\n')
    .filter((paragraph) => /^( {2}[a-z]|ENGINE FLAGS:|usage: monitoring-api [a-z])/.test(paragraph))
    .join('\n')
    .replace(/^usage: monitoring-api /gm, '')
    .replace(/^ {2}(?=[a-z])/gm, '');
  return sections(synopsis, '');
}

/** A command's flags with the engine's when it takes them. */
function withEngine(section: Map<string, string>, command: string): Flag[] {
  const own = section.get(command) ?? '';
  return [...flagsOf(own), ...(own.includes(ENGINE) ? flagsOf(section.get(ENGINE) ?? '') : [])];
}

describe('docs/cli.md and --help list the same flags', () => {
  test('docs/cli.md has a synopsis line for every command', () => {
    assert.deepEqual([...docsSynopsis.keys()].filter((key) => key !== ENGINE).sort(), [...COMMANDS].sort());
    assert.ok(docsSynopsis.has(ENGINE));
  });

  for (const command of COMMANDS) {
    test(`${command} --help lists the flags docs/cli.md lists for it, and its parser knows each`, async () => {
      const help = await helpSections(command);
      const helped = withEngine(help, command);
      assert.ok(helped.length > 0, `${command} --help lists no flag for ${command}`);
      assert.deepEqual(names(helped), names(withEngine(docsSynopsis, command)));
      for (const flag of helped) {
        // A flag the parser does not know is "unknown flag"; one it knows is refused for its form:
        // a value left out, or one given to a switch. Either way the command stops at its flags.
        const args = [...command.split(' '), flag.takesValue ? `--${flag.name}` : `--${flag.name}=x`];
        const result = await runCommand(args);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
        const refusal = flag.takesValue
          ? new RegExp(`--${flag.name}( <value>'? argument missing| needs a value)`)
          : new RegExp(`--${flag.name}'? (takes no value|does not take an argument)`);
        assert.match(result.stderr, refusal, args.join(' '));
      }
      // The control: a flag no command takes is refused as unknown, by a message the above never matched.
      const unknown = await runCommand([...command.split(' '), '--no-such-flag']);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown (flag|option) '?--no-such-flag/i);
    });
  }

  test('serve and worker: the synopsis, the tables of docs/cli.md and the parser name the same flags', () => {
    const engineTable = tableFlags('### Engine flags');
    assert.deepEqual(names(flagsOf(docsSynopsis.get(ENGINE)!)), engineTable);
    for (const [command, heading, spec] of [
      ['serve', '## serve', SERVE_FLAGS],
      ['worker', '## worker', WORKER_FLAGS],
    ] as const) {
      assert.deepEqual(
        names(flagsOf(docsSynopsis.get(command)!)),
        tableFlags(heading),
        `${command}: synopsis and table`,
      );
      assert.deepEqual(names(withEngine(docsSynopsis, command)), Object.keys(spec).sort(), `${command}: the parser`);
    }
  });
});
