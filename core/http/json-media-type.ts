/**
 * Whether a Content-Type names JSON in UTF-8 (docs/contract.md §4): `application/json`, parameters
 * allowed, but a declared charset must be UTF-8. RFC 8259 §8.1 has JSON exchanged in UTF-8 only,
 * and the body is decoded as UTF-8 whatever the header says; a client that declares ISO-8859-1 and
 * sends `é` as one byte would otherwise get `invalid_json`, or worse, its bytes read as something
 * it did not mean.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const [type = '', ...parameters] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    const name = (equals < 0 ? parameter : parameter.slice(0, equals)).trim().toLowerCase();
    if (name !== 'charset') continue;
    let value = equals < 0 ? '' : parameter.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    // `utf8` is no registered charset name, but it is how many clients spell UTF-8.
    const charset = value.toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}
