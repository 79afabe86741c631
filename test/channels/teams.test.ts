/** Teams messages through the fake Workflows webhook, which holds them to an Adaptive Card within 28 KB. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startFakeTeams, teamsTexts } from '../support/fakes/teams.ts';
import { kindScenarios } from './kind-scenarios.ts';
import { downItem, notification } from './message-fixtures.ts';

const read = (text: string) =>
  text
    .replace(/(?<!\\)\*\*/g, '')
    .replaceAll('\n\n', '\n')
    .replace(/\\(.)/g, '$1');

const { fake, send } = kindScenarios({
  type: 'teams',
  start: startFakeTeams,
  config: (f) => ({
    webhook_url: `${f.url('prod.westeurope.logic.example.com')}/workflows/abc/triggers/manual/paths/invoke`,
  }),
  read: (request) => read(teamsTexts(request.body).join('\n')),
  raw: (request) => {
    assert.ok(!teamsTexts(request.body).some((text) => /(?<!\\)\[link\]/.test(text)), 'no live link');
  },
});

it('teams: one Adaptive Card 1.4, with an action to the record', async () => {
  await send(notification([downItem(1)]));
  const message = JSON.parse(fake().accepted[0]!.body) as {
    attachments: { contentType: string; content: { version: string; actions: { type: string; url: string }[] } }[];
  };
  assert.equal(message.attachments.length, 1);
  assert.equal(message.attachments[0]!.content.version, '1.4');
  assert.deepEqual(
    message.attachments[0]!.content.actions.map((a) => [a.type, a.url]),
    [['Action.OpenUrl', 'https://monitoring.example.com/v1/devices/get?id=1']],
  );
});
