// What the engine benchmarks point at, in a process of its own so its CPU is not the worker's:
// the fake DNS server (every name NXDOMAIN, as most DNSBL answers are), a TCP listener that
// accepts and closes, an HTTP server answering 200 to GET and a webhook receiver answering 204
// to POST once it has the body, and the fake Slack of the tests (test/support/fakes/slack.ts), which
// checks each message against Slack's documented shape. Prints one JSON line with their addresses; SIGTERM ends it.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { startFakeDnsServer } from '../test/support/fake-dns-server.ts';
import { startFakeSlack } from '../test/support/fakes/slack.ts';

const dns = await startFakeDnsServer();
const slack = await startFakeSlack();
// The fake keeps every request it accepted, for a test to read; nothing here reads them.
setInterval(() => {
  if (slack.refused.length > 0)
    process.stderr.write(`fake Slack refused: ${JSON.stringify(slack.refused[0]!.answer)}\n`);
  slack.accepted.length = 0;
  slack.refused.length = 0;
}, 1000).unref();
const tcp = createTcpServer((socket) => socket.destroy());
const http = createHttpServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
});
const receiver = createHttpServer((req, res) => {
  req.resume();
  req.once('end', () => {
    res.writeHead(204);
    res.end();
  });
});
// The probes and the bare loops open thousands of connections a second: a short accept backlog
// would turn a burst into SYN retries of a second each, for both sides alike, and measure the kernel.
const listen = (server: Server | ReturnType<typeof createTcpServer>) =>
  new Promise<number>((resolve) => {
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () =>
      resolve((server.address() as { port: number }).port),
    );
  });
const ports = { tcp: await listen(tcp), http: await listen(http), receiver: await listen(receiver) };
process.stdout.write(`${JSON.stringify({ dns: dns.address, slack: slack.port, ...ports })}\n`);
process.on('SIGTERM', () => {
  void dns.close();
  void slack.close();
  for (const server of [tcp, http, receiver]) server.close();
  process.exit(0);
});
