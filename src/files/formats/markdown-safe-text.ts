/**
 * Text safe inside a GFM table cell that a chat client renders: a value from
 * a tool result must read as text, never act. Pipes and backslashes are
 * escaped (the table stays whole); `&`, `<` and `>` become entities (no raw
 * HTML such as `<img src=…>` or `<a href>`, no `<https://…>` autolink);
 * `[` and `]` are escaped (no `[text](url)` link and no `![](url)` image,
 * which a client would fetch, leaking data in its URL); `://` and `www.` are
 * broken with an escape so a bare URL is not linkified; line breaks become
 * `<br>` (the only HTML spillway writes itself).
 */
export function neutralizeMarkdown(text: string): string {
  return text
    .replace(/[\\|[\]&<>]/g, (character) => replacements[character] ?? character)
    .replace(/:\/\//g, '\\://')
    .replace(/\bwww\./gi, (match) => `${match.slice(0, 3)}\\.`)
    .replace(/\r\n|\r|\n/g, '<br>')
    .trim();
}

const replacements: Record<string, string> = {
  '\\': '\\\\',
  '|': '\\|',
  '[': '\\[',
  ']': '\\]',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
};
