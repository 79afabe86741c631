/** ntfy messages through the fake server, which checks the topic, the headers, the token and the size. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { decodedHeader, startFakeNtfy } from '../support/fakes/ntfy.ts';
import { kindScenarios } from './kind-scenarios.ts';
import { downItem, notification, T5, upItem } from './message-fixtures.ts';

const { fake, send } = kindScenarios({
  type: 'ntfy',
  start: () => startFakeNtfy('alerts', 'tk_secret'),
  config: (f) => ({ server_url: `${f.url('ntfy.example.com')}/`, topic: 'alerts', token: 'tk_secret' }),
  read: (request) => `${decodedHeader(request.headers.title)}\n${request.body}`,
});

it('ntfy: priority 5 with a siren for a down, 3 with a check mark for a recovery; a link to click', async () => {
  await send(notification([downItem(1, { name: 'Zürich shop' })]));
  const down = fake().accepted[0]!.headers;
  assert.deepEqual(
    [down.priority, down.tags, down.click],
    ['5', 'rotating_light', 'https://monitoring.example.com/v1/devices/get?id=1'],
  );
  assert.match(String(down.title), /^=\?UTF-8\?B\?/, 'a title that is not ASCII is RFC 2047 encoded');
  assert.equal(decodedHeader(down.title), 'Zürich shop is down');
  assert.equal(down.authorization, 'Bearer tk_secret');
  fake().accepted.length = 0;
  await send(notification([upItem(1)], T5));
  const up = fake().accepted[0]!.headers;
  assert.deepEqual([up.priority, up.tags], ['3', 'white_check_mark']);
});
