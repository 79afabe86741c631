import type { IncidentAcknowledgement, Timestamp } from '../../../core/index.ts';
import { queueAcknowledgements } from '../channels/incident-notifications.ts';
import { stampText } from '../rows.ts';
import type { StoreContext } from '../store-context.ts';
import { incidentFromRow } from './report-reads.ts';

/**
 * `acknowledgeIncident` of KyselyStore (core/store/report-store.ts): a conditional update, so of
 * two acknowledgements at once the first to commit is kept, with PagerDuty's acknowledgements
 * queued in the same transaction while the incident is open. A write to what `GET /incidents`
 * shows (on PostgreSQL the incidents' trigger counts it too).
 */
export function acknowledgeIncident(
  ctx: StoreContext,
  userId: number,
  incidentId: number,
  keyId: number,
  at: Timestamp,
): Promise<IncidentAcknowledgement | undefined> {
  return ctx.write((db) =>
    db.transaction().execute(async (trx) => {
      const set = await trx
        .updateTable('incidents')
        .set({ acknowledged_at: stampText(at), acknowledged_by: keyId })
        .where('id', '=', incidentId)
        .where('user_id', '=', userId)
        .where('acknowledged_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (set !== undefined) {
        if (set.resolved_at === null) await queueAcknowledgements(trx, set, at);
        return { incident: incidentFromRow(set), acknowledged: true };
      }
      const row = await trx
        .selectFrom('incidents')
        .selectAll()
        .where('id', '=', incidentId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row === undefined ? undefined : { incident: incidentFromRow(row), acknowledged: false };
    }),
  );
}
