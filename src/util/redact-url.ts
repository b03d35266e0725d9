/** The URL without its password, for messages and logs; `unparsable` stands for a URL that does not parse. */
export function redactUrl(url: string, unparsable = '(unparsable URL)'): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return unparsable;
  }
}
