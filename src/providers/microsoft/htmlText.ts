/**
 * Plain text from an Outlook HTML body: enough structure (line breaks for blocks, breaks and
 * list items) to read, no markup. Not a sanitizer — the result is text, never HTML.
 */

const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const hex = name[1] === 'x' || name[1] === 'X';
      const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return named[name.toLowerCase()] ?? entity;
  });
}

// Block edges become one line break however many meet; paragraph edges leave a blank line.
// (Private-use markers, removed from the input first so that it cannot fake them.)
const blockEdge = '\ue000';
const paragraphEdge = '\ue001';

export function htmlToText(html: string): string {
  const text = html
    .replace(/[\ue000\ue001]/g, '')
    // Line breaks in the source are white space; only markup breaks lines.
    .replace(/\s+/g, ' ')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(head|style|script|title)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\b[^>]*>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, `${blockEdge}• `)
    .replace(/<\/t[dh]\s*>/gi, ' ')
    .replace(/<\/?(p|h[1-6]|blockquote|hr)\b[^>]*>/gi, paragraphEdge)
    .replace(/<\/?(div|li|tr|table|ul|ol|pre)\b[^>]*>/gi, blockEdge)
    .replace(/<[^>]*>/g, '')
    .replace(/[\ue000\ue001]+/g, (edges) => (edges.includes(paragraphEdge) ? '\n\n' : '\n'));
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
