/** Tokens read `mapi_` followed by 256 random bits in base64url: recognisable in logs and leak scanners. */
export const TOKEN_PREFIX = 'mapi_';
const TOKEN_SHAPE = /^mapi_[A-Za-z0-9_-]{43}$/;

export function generateToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return TOKEN_PREFIX + btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Whether a string can be one of our tokens at all; anything else is refused without a look-up. */
export function hasTokenShape(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The SHA-256 of a token, hex: the only form in which a token is ever stored. */
export async function hashToken(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let hex = '';
  for (const byte of digest) hex += HEX[byte];
  return hex;
}
