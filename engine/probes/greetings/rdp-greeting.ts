import { MORE, type Greeting, type Verdict } from './greeting.ts';

/**
 * RDP waits for the client: an X.224 Connection Request in a TPKT (RFC 1006), here with an
 * RDP Negotiation Request for TLS and CredSSP ([MS-RDPBCGR] 2.2.1.1), as a current client sends
 * it. A server answers with a TPKT holding an X.224 Connection Confirm (code 0xD0), whether it
 * accepts those protocols or says which it wants instead: either way RDP is there.
 */
const CONNECTION_REQUEST = Uint8Array.from([
  0x03,
  0x00,
  0x00,
  0x13, // TPKT: version 3, length 19
  0x0e,
  0xe0,
  0x00,
  0x00,
  0x00,
  0x00,
  0x00, // X.224 CR: length 14, code 0xE0, dst/src ref, class 0
  0x01,
  0x00,
  0x08,
  0x00,
  0x03,
  0x00,
  0x00,
  0x00, // RDP_NEG_REQ: TLS | CredSSP
]);

const TPKT_VERSION = 0x03;
const CONNECTION_CONFIRM = 0xd0;

export function rdpGreeting(): Greeting {
  return {
    hello: CONNECTION_REQUEST,
    judge(received: Buffer): Verdict {
      if (received[0] !== undefined && received[0] !== TPKT_VERSION) return { kind: 'bad', banner: null };
      if (received.length < 6) return MORE;
      const ok =
        received[1] === 0 && received.readUInt16BE(2) >= 7 && ((received[5] ?? 0) & 0xf0) === CONNECTION_CONFIRM;
      return { kind: ok ? 'ok' : 'bad', banner: null };
    },
  };
}
