import { randomBytes } from 'node:crypto';
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How much the stores of one HTTP front keep, together and per session. */
export interface EventStoreLimits {
  /** Bytes (serialized messages) kept over all sessions; the oldest events anywhere go first. */
  maxBytes: number;
  /** Bytes kept for one session. */
  maxBytesPerSession: number;
  /** Events kept for one session. */
  maxEventsPerSession: number;
}

export const defaultEventStoreLimits: EventStoreLimits = { maxBytes: 64 * 1024 * 1024, maxBytesPerSession: 4 * 1024 * 1024, maxEventsPerSession: 1000 };

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * The event budget of one HTTP front: every session's store draws from it,
 * and when the total passes `maxBytes` the oldest event of any session is
 * forgotten. Events are always forgotten oldest first, so what a stream keeps
 * is a contiguous tail: a client never resumes across a gap (an id older than
 * the tail is unknown, and the SDK answers 400).
 */
export class EventBudget {
  private bytes = 0;
  /** Every kept event in the order stored, by a key unique across stores. */
  private readonly order = new Map<number, { store: SessionEventStore; eventId: EventId; bytes: number }>();
  private nextKey = 0;

  constructor(readonly limits: EventStoreLimits = defaultEventStoreLimits) {}

  /** Bytes kept now, over all sessions (for /healthz). */
  keptBytes(): number {
    return this.bytes;
  }

  add(store: SessionEventStore, eventId: EventId, bytes: number): number {
    const key = this.nextKey++;
    this.order.set(key, { store, eventId, bytes });
    this.bytes += bytes;
    while (this.bytes > this.limits.maxBytes) {
      const oldest = this.order.entries().next().value;
      if (oldest === undefined) break;
      const [oldestKey, entry] = oldest;
      entry.store.forgetThrough(entry.eventId);
      // The store may not hold it (the event being added, not yet given its key): release it here.
      this.release(oldestKey);
    }
    return key;
  }

  release(key: number): void {
    const entry = this.order.get(key);
    if (entry === undefined) return;
    this.order.delete(key);
    this.bytes -= entry.bytes;
  }
}

/**
 * Whether the strings in `value` hold more than `limit` characters in all: each is at
 * least that many bytes of its JSON, so the message is over `limit` bytes. Walks at most
 * a few thousand values (an answer past that is measured by serializing it).
 */
function stringCharsAtLeast(value: unknown, limit: number): boolean {
  let chars = 0;
  const pending: unknown[] = [value];
  for (let visited = 0; pending.length > 0 && visited < 4096; visited += 1) {
    const next = pending.pop();
    if (typeof next === 'string') {
      chars += next.length;
      if (chars > limit) return true;
    } else if (typeof next === 'object' && next !== null) {
      pending.push(...(Array.isArray(next) ? next : Object.values(next)).slice(0, 4096));
    }
  }
  return false;
}

/**
 * The SDK's EventStore for one MCP session (resumable streams: SSE event ids,
 * replay after `Last-Event-ID`), in memory and bounded. One store per
 * session: the SDK names every session's standalone GET stream the same, so
 * a shared store would replay one session's messages to another. Event ids
 * are a random per-session prefix and a sequence number, so another session's
 * id is simply unknown here (the SDK answers 400); stream ids are the SDK's.
 */
export class SessionEventStore implements EventStore {
  /** Kept events in the order stored (ids only grow). */
  private readonly events = new Map<EventId, StoredEvent & { budgetKey: number }>();
  private bytes = 0;
  private sequence = 0;
  private readonly prefix = randomBytes(9).toString('base64url');

  constructor(private readonly budget: EventBudget) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const eventId = `${this.prefix}.${++this.sequence}`;
    const { maxBytesPerSession, maxEventsPerSession } = this.budget.limits;
    // A message whose strings alone are over the budget (a 15 MiB resources/read) is not serialized just to be measured.
    const bytes = stringCharsAtLeast(message, maxBytesPerSession) ? maxBytesPerSession + 1 : Buffer.byteLength(JSON.stringify(message)) + streamId.length + 32;
    if (bytes > maxBytesPerSession) {
      // Too large to keep: forget this stream's earlier events too, so no resume skips over it.
      this.forgetStream(streamId);
      return eventId;
    }
    const event = { streamId, message, bytes, budgetKey: -1 };
    this.events.set(eventId, event);
    this.bytes += bytes;
    event.budgetKey = this.budget.add(this, eventId, bytes);
    while (this.bytes > maxBytesPerSession || this.events.size > maxEventsPerSession) {
      const oldest = this.events.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.events.get(lastEventId);
    if (last === undefined) return '';
    let after = false;
    // The live map, not a copy: an event stored while the replay awaits a send is replayed too.
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      // Priming events (an empty message that only carries an id) are not messages to replay.
      if (!after || event.streamId !== last.streamId || Object.keys(event.message).length === 0) continue;
      await send(eventId, event.message);
    }
    return last.streamId;
  }

  /** Events kept for this session (tests, health). */
  size(): number {
    return this.events.size;
  }

  /** Forgets every event (the session closed). */
  clear(): void {
    for (const eventId of [...this.events.keys()]) this.forget(eventId);
  }

  /** Forgets `eventId` and every event stored before it in its stream (so nothing is replayed across a gap). */
  forgetThrough(eventId: EventId): void {
    const target = this.events.get(eventId);
    if (target === undefined) return;
    for (const [id, event] of [...this.events]) {
      if (event.streamId === target.streamId) this.forget(id);
      if (id === eventId) break;
    }
  }

  private forgetStream(streamId: StreamId): void {
    for (const [id, event] of [...this.events]) if (event.streamId === streamId) this.forget(id);
  }

  private forget(eventId: EventId): void {
    const event = this.events.get(eventId);
    if (event === undefined) return;
    this.events.delete(eventId);
    this.bytes -= event.bytes;
    this.budget.release(event.budgetKey);
  }
}
