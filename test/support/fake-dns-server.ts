/**
 * A DNS server on 127.0.0.1 that a test controls (docs/development.md, "Tests never leave the
 * machine"): each name answers what the test says (A records, NXDOMAIN, NODATA, SERVFAIL,
 * REFUSED, or nothing at all), so DNSBL checks run through a real node:dns Resolver and never
 * ask a real server anything. Only what a resolver's A, AAAA and PTR queries need is spoken.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';

export type FakeReply =
  | { a: string[] }
  /** PTR records (the names of a reverse lookup, under in-addr.arpa or ip6.arpa); NODATA to an A query. */
  | { ptr: string[] }
  | 'nxdomain'
  | 'nodata'
  | 'servfail'
  | 'refused'
  /** No answer at all: the resolver times out. */
  | 'silent';

export interface FakeDnsServer {
  /** `127.0.0.1:PORT`, as `--dns-server` and `Resolver.setServers` take it. */
  address: string;
  port: number;
  /** What a name answers from now on (names are matched without case); unknown names answer NXDOMAIN. */
  set(name: string, reply: FakeReply): void;
  /** While true, nothing is answered: a server that stopped. */
  silence(silent: boolean): void;
  /** Every answer from now on is sent this long after its query came (0: at once): a slow server. */
  delay(ms: number): void;
  /**
   * Keeps the answers to names ending in `suffix` until the returned release is called, which
   * sends them all and stops holding: checks that hang for exactly as long as a test needs.
   */
  hold(suffix: string): () => void;
  /** Every name asked so far, lower-cased, in order. */
  readonly queries: string[];
  close(): Promise<void>;
}

const RCODE = { noerror: 0, servfail: 2, nxdomain: 3, refused: 5 } as const;
const TYPE_A = 1;
const TYPE_PTR = 12;

/** A name as DNS wire labels, ending in the root's empty label. */
function wireName(name: string): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .split('.')
    .filter((label) => label !== '');
  return Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')])),
    Buffer.from([0]),
  ]);
}

/** The records of a reply to a question of `type`: its A records, its PTR names, or none (NODATA). */
function recordsFor(reply: { a: string[] } | { ptr: string[] }, type: number): { type: number; data: Buffer }[] {
  if ('a' in reply)
    return type === TYPE_A
      ? reply.a.map((address) => ({ type: TYPE_A, data: Buffer.from(address.split('.').map(Number)) }))
      : [];
  return type === TYPE_PTR ? reply.ptr.map((name) => ({ type: TYPE_PTR, data: wireName(name) })) : [];
}

/** Reads the question's name; returns it and the offset just past the question (type and class). */
function readQuestion(message: Buffer): { name: string; type: number; end: number } | null {
  let offset = 12;
  const labels: string[] = [];
  for (;;) {
    const length = message[offset];
    if (length === undefined || length > 63) return null;
    offset++;
    if (length === 0) break;
    labels.push(message.subarray(offset, offset + length).toString('latin1'));
    offset += length;
  }
  if (offset + 4 > message.length) return null;
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(offset), end: offset + 4 };
}

function answer(
  query: Buffer,
  questionEnd: number,
  rcode: number,
  records: readonly { type: number; data: Buffer }[],
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's opcode and RD, AA and RA, then the code.
  const rd = query.readUInt16BE(2) & 0x0100;
  header.writeUInt16BE(0x8000 | 0x0400 | 0x0080 | rd | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const encoded = records.map(({ type, data }) => {
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...encoded]);
}

export async function startFakeDnsServer(
  replies: Record<string, FakeReply> = {},
  bindPort = 0,
): Promise<FakeDnsServer> {
  const table = new Map<string, FakeReply>(Object.entries(replies).map(([name, reply]) => [name.toLowerCase(), reply]));
  const queries: string[] = [];
  let silent = false;
  let delayMs = 0;
  let closed = false;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const held = new Map<string, (() => void)[]>();
  const socket = createSocket('udp4');
  const send = (out: Buffer, to: RemoteInfo) => {
    if (!closed) socket.send(out, to.port, to.address);
  };
  socket.on('message', (message: Buffer, from: RemoteInfo) => {
    const question = readQuestion(message);
    if (question === null) return;
    queries.push(question.name);
    const reply = table.get(question.name) ?? 'nxdomain';
    if (silent || reply === 'silent') return;
    let out: Buffer;
    if (typeof reply === 'object') out = answer(message, question.end, RCODE.noerror, recordsFor(reply, question.type));
    else if (reply === 'nodata') out = answer(message, question.end, RCODE.noerror, []);
    else out = answer(message, question.end, RCODE[reply], []);
    for (const [suffix, waiting] of held) {
      if (question.name.endsWith(suffix)) return void waiting.push(() => send(out, from));
    }
    if (delayMs === 0) return send(out, from);
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(out, from);
    }, delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(bindPort, '127.0.0.1', () => resolve());
  });
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    port,
    set: (name, reply) => void table.set(name.toLowerCase(), reply),
    silence: (value) => void (silent = value),
    delay: (ms) => void (delayMs = ms),
    hold(suffix) {
      const key = suffix.toLowerCase();
      const waiting: (() => void)[] = [];
      held.set(key, waiting);
      return () => {
        if (held.get(key) === waiting) held.delete(key);
        for (const release of waiting.splice(0)) release();
      };
    },
    queries,
    close: () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      held.clear();
      return new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}
