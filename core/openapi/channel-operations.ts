/** The channel routes beyond those every resource has (docs/notifications.md): its deliveries and its test. */
import { errors } from '../http/errors.ts';
import { DEFAULT_RESULTS_LIMIT } from '../validation/results-query.ts';
import { AFTER_RATE_LIMIT } from './headers.ts';
import { pagedRecordOperation, refusedForRecord, type Draft } from './operations.ts';
import { RESOURCES } from './resources.ts';
import { badRequest, errorResponseObject, everyOperation, responseRef, success } from './response-objects.ts';

export function channelDrafts(): Map<string, Draft> {
  const r = RESOURCES.find((resource) => resource.path === 'channels')!;
  const map = new Map<string, Draft>();
  map.set(
    'GET /channels/deliveries',
    pagedRecordOperation(r, {
      operationId: 'listChannelDeliveries',
      summary: 'The delivery attempts of one channel, newest first',
      description: `Every attempt to send a message to one channel of the key's user: what the message was (events, a reminder, an acknowledgement), the events it told of, which attempt it was, when it ended, the HTTP status answered, why it failed and how long it took; newest first, one page at a time (\`limit\`, default ${DEFAULT_RESULTS_LIMIT}), paged as results are (\`before_id\`, \`Link: <...>; rel="next"\`). A channel that does not exist and one of another user get the same 404.`,
      answered: 'The attempts, newest first.',
      envelope: 'ChannelAttemptListEnvelope',
    }),
  );
  map.set('POST /channels/test', {
    operationId: 'testChannel',
    summary: 'Send a channel a test message now',
    description:
      "Sends one test message to one channel of the key's user at once, under the target policy of deliveries, and answers how that one attempt went: a failed attempt is a 200 whose `delivered` is false. Nothing is retried or stored. Takes no body. A channel that does not exist and one of another user get the same 404.",
    tags: [r.tag],
    parameters: [{ $ref: '#/components/parameters/Id' }],
    responses: {
      200: success("The attempt's outcome.", 'WebhookTestResultEnvelope'),
      400: badRequest(
        'id is missing, repeated or not a positive integer (invalid_id), or another query parameter was given (validation_failed), or the channel is an email channel and this server cannot send mail (email_unavailable).',
        [
          errors.invalidId(),
          errors.validationFailed([
            { field: 'x', code: 'unknown_field', message: 'x is not a field of this request.' },
          ]),
          errors.emailUnavailable(),
        ],
      ),
      ...refusedForRecord(r),
      429: responseRef('RateLimited'),
      500: responseRef('ServerError'),
      503: errorResponseObject(
        'This server sends no test messages (an embedding host gave no channelSender).',
        [errors.channelTestUnavailable()],
        AFTER_RATE_LIMIT(),
      ),
      ...everyOperation(),
    },
  });
  return map;
}
