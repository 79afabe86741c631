import { connect } from 'node:net';

/**
 * Whether a service of the machine (PostgreSQL, MariaDB) listens on 127.0.0.1:`port`. The probe
 * tests that need one are skipped with the returned reason when it does not, except on CI
 * (CI=true), where the test runs and fails instead: a missing service must not pass unseen.
 */
export async function localServiceSkip(name: string, port: number): Promise<string | false> {
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('close', () => resolve(false));
    socket.once('error', () => undefined);
  });
  if (reachable || process.env.CI === 'true') return false;
  return `${name} is not listening on 127.0.0.1:${port} (on CI this test fails instead)`;
}
