import { SpillwayError } from '../errors.js';

/**
 * A resource an embedder offers every session beside the conversation's own
 * outputs (a product's handbook, a schema, a status page): listed by
 * resources/list, served by resources/read, and announced to subscribers
 * when the embedder calls `host.resources.touch(uri)`.
 */
export interface HostResource {
  /** Any absolute URI outside spillway's own `spillway://` scheme, e.g. "docs://handbook/exports". */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  read(): Promise<{ text: string } | { blob: Buffer }> | { text: string } | { blob: Buffer };
}

const uriShape = /^[a-z][a-z0-9+.-]*:\S+$/i;

/** The embedder's resources by URI; `onUpdated` announces one that changed. */
export class HostResources {
  private readonly resources = new Map<string, HostResource>();

  constructor(private readonly onUpdated: (uri: string) => void) {}

  register(resource: HostResource): void {
    if (!uriShape.test(resource.uri) || resource.uri.toLowerCase().startsWith('spillway:')) {
      throw new SpillwayError('CONFIG_INVALID', `Resource URI ${JSON.stringify(resource.uri)} must be an absolute URI outside the spillway: scheme.`);
    }
    this.resources.set(resource.uri, resource);
  }

  unregister(uri: string): boolean {
    const removed = this.resources.delete(uri);
    if (removed) this.onUpdated(uri);
    return removed;
  }

  get(uri: string): HostResource | undefined {
    return this.resources.get(uri);
  }

  list(): HostResource[] {
    return [...this.resources.values()];
  }

  /** Tells the sessions subscribed to `uri` that it changed (notifications/resources/updated). */
  touch(uri: string): void {
    if (this.resources.has(uri)) this.onUpdated(uri);
  }
}
