// Compression of the public answers (docs/status-pages.md, "The page"): 1,800 labelled bars do not
// fit 60 KB as text, so an answer goes compressed to every client that accepts it. Web APIs only
// (CompressionStream), as the core runs on Bun and Deno too: gzip everywhere, Brotli where the
// runtime's CompressionStream has it (Node 24 does).

export type Encoding = 'br' | 'gzip';

function supported(format: string): boolean {
  try {
    new CompressionStream(format as CompressionFormat);
    return true;
  } catch {
    return false;
  }
}

/** Brotli's name in CompressionStream, when this runtime has it. */
const BROTLI: string | null = supported('brotli') ? 'brotli' : null;

/**
 * The encoding to answer in for an `Accept-Encoding` field (RFC 9110 §12.5.3): Brotli, then gzip,
 * among those the client accepts with a q-value above 0 (`*` accepts both); none: the text itself.
 */
export function chooseEncoding(accept: string | null): Encoding | null {
  if (accept === null || accept === '') return null;
  const q = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [token = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const weight = params.find((p) => p.startsWith('q='));
    const value = weight === undefined ? 1 : Number(weight.slice(2));
    q.set(token, Number.isFinite(value) ? value : 0);
  }
  const accepts = (token: string) => (q.get(token) ?? q.get('*') ?? 0) > 0;
  if (BROTLI !== null && accepts('br')) return 'br';
  if (accepts('gzip') || accepts('x-gzip')) return 'gzip';
  return null;
}

/** `bytes` compressed as `encoding`. */
export async function compress(bytes: Uint8Array<ArrayBuffer>, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  const format = (encoding === 'br' ? BROTLI! : 'gzip') as CompressionFormat;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
