import type { ColumnDataType, ColumnDefinitionBuilder } from 'kysely';
import type { StoreDialect } from '../schema.ts';

/** The column types every migration uses, by dialect. */
export interface ColumnTypes {
  id: ColumnDataType;
  ref: ColumnDataType;
  flag: ColumnDataType;
  stamp: ColumnDataType;
}

// Ids are int8 on PostgreSQL because a delete accepts any id up to 2^53-1: an int4 column would
// turn a large but valid id into an "out of range" error instead of "not found".
export const TYPES: Record<StoreDialect, ColumnTypes> = {
  postgres: { id: 'bigint', ref: 'bigint', flag: 'boolean', stamp: 'timestamptz' },
  // ISO 8601 text in one fixed format (the store normalises it) sorts in time order.
  sqlite: { id: 'integer', ref: 'integer', flag: 'integer', stamp: 'text' },
};

export function primaryKey(dialect: StoreDialect, c: ColumnDefinitionBuilder): ColumnDefinitionBuilder {
  // SQLite's AUTOINCREMENT keeps the ids of deleted newest rows from being handed out again;
  // an identity column never reuses ids anyway.
  return dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
}
