/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1): the scheme is
 * case-insensitive, one or more spaces follow it, and the token is token68.
 * `undefined`: no credentials at all; `null`: credentials that are not a bearer token.
 */
export function bearerToken(header: string | null): string | null | undefined {
  if (header === null || header.trim() === '') return undefined;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1]! : null;
}
