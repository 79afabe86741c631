import type { Socket } from 'node:net';
import type { Device, NewDeviceProbeResult } from '../../core/index.ts';
import { publicEndpoint, publicName } from './device-endpoints.ts';
import { dialogFor } from './greetings/greeting-for.ts';
import { MAX_GREETING_BYTES, type Greeting, type Verdict } from './greetings/greeting.ts';
import type { ProbeOptions } from './probe-options.ts';
import { ProbeSession } from './probe-session.ts';
import { startTls } from './start-tls.ts';

export type NewServiceProbeResult = Extract<NewDeviceProbeResult, { probe: 'service' }>;

type Decided = Exclude<Verdict, { kind: 'more' }>;

/**
 * Sends the greeting's hello, then reads until the judge decides. A server that closes first has
 * not greeted (`connection_closed`); one that keeps talking without a verdict is not this protocol.
 */
function converse(session: ProbeSession, socket: Socket, greeting: Greeting): Promise<Decided> {
  return session.guard(
    new Promise<Decided>((resolve, reject) => {
      let received = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const verdict = greeting.judge(received);
        if (verdict.kind !== 'more') finish(() => resolve(verdict));
        else if (received.length > MAX_GREETING_BYTES) finish(() => resolve({ kind: 'bad', banner: null }));
      };
      const onError = (error: Error) => finish(() => reject(error));
      const onClose = () =>
        finish(() => reject(Object.assign(new Error('closed before a greeting'), { code: 'connection_closed' })));
      const finish = (settle: () => void) => {
        socket.off('data', onData).off('error', onError).off('close', onClose);
        settle();
      };
      socket.on('data', onData).once('error', onError).once('close', onClose);
      if (greeting.hello !== null) socket.write(greeting.hello);
    }),
  );
}

/**
 * `service`: a TCP connection to the target's port and the protocol's greeting
 * (docs/engine.md, "Device probes"). The TLS services are greeted over TLS; their certificate is
 * `public_tls`'s to judge.
 */
export async function probeService(device: Device, options: ProbeOptions): Promise<NewServiceProbeResult> {
  const session = new ProbeSession(options);
  try {
    if (device.service_type === 'web')
      throw Object.assign(new Error('web devices are probed over HTTP'), { code: 'not_a_service' });
    const dialog = dialogFor(device.service_type);
    const endpoint = publicEndpoint(device, 'https');
    let socket: Socket = await session.connect(endpoint.host, endpoint.port);
    if (dialog.tls) {
      const name = publicName(device);
      socket = await startTls(session, socket, { servername: name.servername, identity: name.name });
    }
    const verdict =
      dialog.greeting === null
        ? { kind: 'ok' as const, banner: null }
        : await converse(session, socket, dialog.greeting);
    const ok = verdict.kind === 'ok';
    return {
      probe: 'service',
      checked_at: session.checkedAt(),
      ok,
      response_ms: session.responseMs(),
      error: ok ? null : 'bad_greeting',
      banner: verdict.banner,
    };
  } catch (error) {
    return {
      probe: 'service',
      checked_at: session.checkedAt(),
      ok: false,
      response_ms: session.responseMs(),
      error: session.failureCode(error),
      banner: null,
    };
  } finally {
    session.close();
  }
}
