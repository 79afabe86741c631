// The fair create baseline on PostgreSQL: the hand-written server of create-handler.ts sending
// the API's INSERT, prepared once per connection as the API prepares it, through a `pg` pool of
// the API's size (10). BENCH_DATABASE and BENCH_USER name the database and the owning user.
import pg from 'pg';
import { serveCreates } from './create-handler.ts';
import { deviceInsert } from './device-insert.ts';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE!, max: 10 });
const statement = deviceInsert('postgres', Number(process.env.BENCH_USER));
serveCreates(
  async (type, value, at) => {
    const result = await pool.query({
      name: 'bench_create_device',
      text: statement.sql,
      values: statement.values(type, value, at),
    });
    return result.rows[0] as unknown;
  },
  () => pool.end(),
);
