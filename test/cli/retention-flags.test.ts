/**
 * docs/cli.md, `--result-retention` and `--report-retention`: hours or days, a bare number being
 * days; what the engine is then given, and its defaults when neither flag is given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readEngineFlags, ENGINE_FLAGS } from '../../cli/commands/engine-flags.ts';
import { readFlags } from '../../cli/flags.ts';
import { MemoryStore } from '../../core/index.ts';
import { resolveEngineOptions } from '../../engine/options.ts';

function engineOptions(args: string[]) {
  const { flags } = readFlags(args, ENGINE_FLAGS, 'worker');
  return readEngineFlags(flags, false);
}

describe('retention flags', () => {
  const cases: [string, number][] = [
    ['48h', 48],
    ['7d', 168],
    ['7', 168],
    ['1h', 1],
    ['0400d', 9600],
    ['36500d', 876_000],
  ];
  for (const [value, hours] of cases) {
    it(`--result-retention ${value} is ${hours} hours, and so is --report-retention ${value}`, () => {
      const options = engineOptions(['--result-retention', value, '--report-retention', value]);
      assert.equal(options.resultRetentionHours, hours);
      assert.equal(options.reportRetentionHours, hours);
    });
  }

  it('without the flags the engine keeps results 7 days and reports 400 days', () => {
    const options = engineOptions([]);
    assert.equal(options.resultRetentionHours, undefined);
    assert.equal(options.reportRetentionHours, undefined);
    const resolved = resolveEngineOptions({ ...options, store: new MemoryStore() });
    assert.equal(resolved.resultRetentionHours, 7 * 24);
    assert.equal(resolved.reportRetentionHours, 400 * 24);
  });
});
