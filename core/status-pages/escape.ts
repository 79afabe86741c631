// Owner-written text goes into HTML, Atom and SVG only through these (docs/status-pages.md,
// "The page"): each of `& < > " '` becomes a character reference, in text and in attribute values
// alike, so no text can open a tag, close an attribute or start an entity.

const REFERENCES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/g;
/** The same, without the global flag, whose `test` would keep a position between calls. */
const ANY_SPECIAL = /[&<>"']/;

/** `text` safe in HTML or XML text and in a quoted attribute value. */
export function escapeMarkup(text: string): string {
  return ANY_SPECIAL.test(text) ? text.replace(SPECIAL, (c) => REFERENCES[c]!) : text;
}

/** Plain text with its line feeds as HTML line breaks, escaped. */
export function escapeLines(text: string): string {
  return text.split('\n').map(escapeMarkup).join('<br>');
}
