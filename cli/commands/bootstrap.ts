import { sql } from 'kysely';
import { KeyAdmin, type CreatedApiKey, type User } from '../../core/index.ts';
import { KyselyStore, type OpenedKyselyStore } from '../../stores/kysely/index.ts';

/** Names the bootstrap among PostgreSQL advisory locks ("mapi" in ASCII); any constant would do. */
const BOOTSTRAP_LOCK = 0x6d617069;

export interface Bootstrapped {
  user: User;
  created: CreatedApiKey;
}

/**
 * On a database without any user, creates a first user and a read+write key; otherwise nothing.
 *
 * Several instances started together on one empty database (a deployment scaled to three, say)
 * must not each mint an admin key nobody knows about, so the check and the creation run in one
 * transaction under a lock every instance takes: SQLite's write lock (BEGIN IMMEDIATE, waited for
 * through busy_timeout) or a PostgreSQL advisory lock. The losers then find the user and skip.
 */
export async function bootstrapFirstKey(opened: OpenedKyselyStore): Promise<Bootstrapped | undefined> {
  return opened.db.connection().execute(async (conn) => {
    if (opened.dialect === 'postgres') {
      await sql`begin`.execute(conn);
    } else {
      await sql`begin immediate`.execute(conn);
    }
    try {
      if (opened.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`.execute(conn);
      const anyUser = await sql`select 1 from users limit 1`.execute(conn);
      let result: Bootstrapped | undefined;
      if (anyUser.rows.length === 0) {
        // A store on this one connection, so its writes belong to the transaction.
        const admin = new KeyAdmin(new KyselyStore(conn, opened.dialect, { destroyOnClose: false }));
        const user = await admin.createUser({ name: 'admin' });
        const created = await admin.createApiKey({ userId: user.id, scopes: ['read', 'write'], name: 'bootstrap' });
        result = { user, created };
      }
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
  });
}
