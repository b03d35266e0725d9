/** Where downloads are served, beside the MCP endpoint. */
export const downloadPrefix = '/files/';

/** What a download URL's path names: a file under the caller's own conversation's outputs/. */
export interface DownloadTarget {
  conversationId: string;
  /** Relative to the conversation folder: "outputs/…". */
  relative: string;
}

/**
 * Reads `/files/<conversation>/outputs/<name…>` (each segment percent-decoded
 * once); undefined for anything else under /files/, which the route answers
 * with its one 404. The sandbox checks the names again (`..`, NUL, symlinks).
 */
export function parseDownloadPath(pathname: string): DownloadTarget | undefined {
  if (!pathname.startsWith(downloadPrefix)) return undefined;
  const segments: string[] = [];
  for (const raw of pathname.slice(downloadPrefix.length).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    // An encoded "/" would make one URL segment two path segments.
    if (segment === '' || segment.includes('/')) return undefined;
    segments.push(segment);
  }
  const [conversationId, folder, ...name] = segments;
  if (conversationId === undefined || folder !== 'outputs' || name.length === 0) return undefined;
  return { conversationId, relative: ['outputs', ...name].join('/') };
}

/** The URL path of a download (no base, no query). */
export function downloadPath(target: DownloadTarget): string {
  return `${downloadPrefix}${[target.conversationId, ...target.relative.split('/')].map(encodeURIComponent).join('/')}`;
}
