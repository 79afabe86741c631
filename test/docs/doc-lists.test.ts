/**
 * The lists the docs keep of things the code defines, held to the code so that they cannot
 * drift: the event types (docs/contract.md §6.7, docs/webhooks.md "Events"), the device statuses
 * (docs/engine.md), the migrations (docs/operations.md "Upgrades") and the routes (docs/contract.md
 * §1, docs/webhooks.md "Webhooks"). Each list must name exactly what the code has: no entry missing,
 * none unknown.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEVICE_STATUSES, EVENT_TYPES } from '../../core/index.ts';
import { ROUTES } from '../../core/internal.ts';
import { migrations } from '../../stores/kysely/migrations.ts';
import { ROOT } from '../support/root.ts';
import { doc, quoted, section, sorted, tableRows } from './markdown.ts';

const contract = doc('contract.md');
const engine = doc('engine.md');
const webhooks = doc('webhooks.md');
const operations = doc('operations.md');

const EVENT_NAME = /^[a-z_]+\.[a-z_]+$/;
const MIGRATION_NAME = /^\d{4}_[a-z0-9_]+$/;

test('docs/contract.md §6.7 lists every event type a webhook may subscribe to, and no other', () => {
  const events = tableRows(section(contract, '6.7 Webhooks')).find((row) => row[0] === '`events`');
  assert.ok(events, 'the webhook fields table has an `events` row');
  assert.deepEqual(sorted(quoted(events[3]!).filter((name) => EVENT_NAME.test(name))), sorted(EVENT_TYPES));
});

test('docs/webhooks.md "Events" has a row for every event type the engine emits, and no other', () => {
  const rows = tableRows(section(webhooks, 'Events'));
  assert.deepEqual(sorted(rows.flatMap((row) => quoted(row[0]!))), sorted(EVENT_TYPES));
});

test('docs/engine.md names every device status, in "Statuses and transitions" and in "What the API shows"', () => {
  const table = tableRows(section(engine, 'Statuses and transitions'), '**Devices.**');
  assert.deepEqual(sorted(table.flatMap((row) => quoted(row[0]!))), sorted(DEVICE_STATUSES));
  const field = tableRows(section(engine, 'What the API shows'), '**Devices**').find((row) => row[0] === '`status`');
  assert.ok(field, 'the devices table of "What the API shows" has a `status` row');
  assert.deepEqual(sorted(quoted(field[1]!)), sorted(DEVICE_STATUSES));
});

test('docs/operations.md "Upgrades" describes every migration, and no other', () => {
  const registered = Object.keys(migrations('sqlite'));
  // Every migration file is registered under its own name (0006-manage.ts as 0006_manage).
  const files = readdirSync(join(ROOT, 'stores', 'kysely', 'migrations'))
    .filter((file) => /^\d{4}-.*\.ts$/.test(file))
    .map((file) => file.replace(/\.ts$/, '').replaceAll('-', '_'));
  assert.deepEqual(sorted(files), sorted(registered));
  assert.deepEqual(sorted(Object.keys(migrations('postgres'))), sorted(registered));
  const listed = quoted(section(operations, 'Upgrades')).filter((name) => MIGRATION_NAME.test(name));
  assert.deepEqual(sorted(listed), sorted(registered));
});

/** `METHOD /path` of each route a table lists: its method cell, and every path in its path cell. */
function listedRoutes(rows: string[][]): string[] {
  return rows.flatMap((row) => {
    const paths = quoted(row[1]!)
      .filter((text) => text.startsWith('/'))
      .map((path) => path.replace(/\?.*$/, ''));
    return row[0]!.split(/,\s*/).flatMap((method) => paths.map((path) => `${method} ${path}`));
  });
}

test('docs/webhooks.md "Webhooks" has a row for every route under /webhooks, and no other', () => {
  const served = ROUTES.filter((route) => route.path.split('/')[1] === 'webhooks');
  assert.deepEqual(
    sorted(listedRoutes(tableRows(section(webhooks, 'Webhooks')))),
    sorted(served.map((route) => `${route.method} ${route.path}`)),
  );
});

test('docs/contract.md §1 lists every route the router serves, and no other', () => {
  assert.deepEqual(
    sorted(listedRoutes(tableRows(section(contract, '1. Mounting and paths'), 'The routes:'))),
    sorted(ROUTES.map((route) => `${route.method} ${route.path}`)),
  );
});
