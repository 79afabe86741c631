// The INSERT the API sends for a device create, compiled by Kysely from the store's own row
// conversion once at start-up, so the hand-written baselines send exactly the API's statement
// (same columns, same parameters, same ON CONFLICT and RETURNING) and do no per-request work for
// it beyond filling in four values.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { parseDeviceInput } from '../../core/validation/device-input.ts';
import { deviceToRow } from '../../stores/kysely/rows.ts';
import type { Database, StoreDialect } from '../../stores/kysely/schema.ts';

export interface DeviceInsert {
  sql: string;
  /** The parameters for one create: the template with the per-request values in place. */
  values(targetType: string, targetValue: string, createdAt: string): unknown[];
}

export function deviceInsert(dialect: StoreDialect, userId: number): DeviceInsert {
  const db = new Kysely<Database>({
    dialect:
      dialect === 'postgres'
        ? {
            createAdapter: () => new PostgresAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (k) => new PostgresIntrospector(k),
            createQueryCompiler: () => new PostgresQueryCompiler(),
          }
        : {
            createAdapter: () => new SqliteAdapter(),
            createDriver: () => new DummyDriver(),
            createIntrospector: (k) => new SqliteIntrospector(k),
            createQueryCompiler: () => new SqliteQueryCompiler(),
          },
  });
  const createdAt = new Date().toISOString();
  const row = deviceToRow(
    dialect,
    userId,
    parseDeviceInput(
      { target_type: 'domain', target_value: 'template.example.com' },
      { allowPrivateTargets: false },
      createdAt,
    ),
  );
  const compiled = db
    .insertInto('devices')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .compile();
  const columns = Object.keys(row);
  if (compiled.parameters.length !== columns.length)
    throw new Error('the device INSERT does not take one parameter per column');
  const at = (name: string) => columns.indexOf(name);
  const [type, value, created, due] = [at('target_type'), at('target_value'), at('created_at'), at('next_check_at')];
  const template = [...compiled.parameters];
  return {
    sql: compiled.sql,
    values(targetType, targetValue, stamp) {
      const values = template.slice();
      values[type] = targetType;
      values[value] = targetValue;
      values[created] = stamp;
      values[due] = stamp;
      return values;
    },
  };
}
