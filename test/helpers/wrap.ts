/** `fold -b -w width`: every line cut into pieces of `width` bytes, as a terminal or a ticket's text box does. */
export function wrap(text: string, width: number): string {
  return text.split('\n').map((l) => {
    const parts: string[] = [];
    for (let i = 0; i < l.length; i += width) parts.push(l.slice(i, i + width));
    return parts.length ? parts.join('\n') : l;
  }).join('\n');
}
