/**
 * What a heap snapshot holds, by constructor, and what grew between two (docs/operations.md,
 * "A worker's memory"):
 *
 *   node bench/heap-summary.ts A.heapsnapshot [B.heapsnapshot] [--top 25]
 *
 * One file: its objects grouped by constructor (an object's class, or the node's type for
 * strings, code, arrays and the like), largest self size first. Two files: the groups whose count
 * or self size changed most from A to B. A snapshot is taken after a full collection, so what it
 * holds is what is reachable, not garbage not yet collected.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** Count and self size per group: `type` for most nodes, the constructor's name for objects. */
export function summarise(path: string): Map<string, Group> {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + typeAt]!]!;
    const key =
      type === 'object' || type === 'closure' ? `${type} ${heap.strings[heap.nodes[i + nameAt]!]}` : `(${type})`;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += heap.nodes[i + sizeAt]!;
    groups.set(key, group);
  }
  return groups;
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  const top = Number(values.top);
  if (positionals.length === 0 || positionals.length > 2) {
    console.error('usage: node bench/heap-summary.ts A.heapsnapshot [B.heapsnapshot] [--top N]');
    process.exit(2);
  }
  const a = summarise(positionals[0]!);
  const total = (groups: Map<string, Group>) => [...groups.values()].reduce((sum, g) => sum + g.bytes, 0);
  if (positionals.length === 1) {
    console.log(`${positionals[0]}: ${kib(total(a))} in ${a.size} groups`);
    const rows = [...a].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top);
    for (const [key, g] of rows) console.log(`${kib(g.bytes).padStart(12)} ${String(g.count).padStart(9)}  ${key}`);
    return;
  }
  const b = summarise(positionals[1]!);
  console.log(`self size ${kib(total(a))} -> ${kib(total(b))}`);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys].map((key) => {
    const x = a.get(key) ?? { count: 0, bytes: 0 };
    const y = b.get(key) ?? { count: 0, bytes: 0 };
    return { key, x, y, bytes: y.bytes - x.bytes, count: y.count - x.count };
  });
  rows.sort((p, q) => Math.abs(q.bytes) - Math.abs(p.bytes));
  console.log(`${'Δ size'.padStart(12)} ${'Δ count'.padStart(9)} ${'count A -> B'.padStart(22)}  group`);
  for (const row of rows.slice(0, top)) {
    const counts = `${row.x.count} -> ${row.y.count}`;
    console.log(`${kib(row.bytes).padStart(12)} ${String(row.count).padStart(9)} ${counts.padStart(22)}  ${row.key}`);
  }
}

main();
