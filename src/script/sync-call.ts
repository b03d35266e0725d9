import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/**
 * The worker side of a synchronous call to the main thread. QuickJS host
 * functions must return a value at once, but file access is asynchronous and
 * happens on the main thread (through the conversation sandbox). So the worker
 * posts a request, blocks on an Atomics counter the main thread bumps after it
 * posts the reply, then takes the reply off the port with receiveMessageOnPort.
 * The counter (not a 0/1 flag) means a wake-up can never be lost.
 */
export class SyncCaller<Request extends { id: number }, Reply extends { id: number }> {
  private nextId = 1;

  constructor(
    private readonly port: MessagePort,
    private readonly signal: Int32Array,
  ) {}

  /** Sends a request and waits for its reply until `deadline` (epoch ms); undefined on timeout. */
  call(request: Omit<Request, 'id'>, transfer: ArrayBuffer[], deadline: number): Reply | undefined {
    const id = this.nextId++;
    let seen = Atomics.load(this.signal, 0);
    this.port.postMessage({ ...request, id }, transfer);
    for (;;) {
      for (let received = receiveMessageOnPort(this.port); received !== undefined; received = receiveMessageOnPort(this.port)) {
        const reply = received.message as Reply;
        if (reply.id === id) return reply;
        // A reply to a request that already timed out: drop it.
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return undefined;
      Atomics.wait(this.signal, 0, seen, remaining);
      seen = Atomics.load(this.signal, 0);
    }
  }
}

/** The main-thread side: post the reply, then wake the worker. */
export function postSyncReply(port: MessagePort, signal: Int32Array, reply: { id: number }, transfer: ArrayBuffer[] = []): void {
  port.postMessage(reply, transfer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
