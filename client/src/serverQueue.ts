/**
 * One queue for the language server's starts, stops and restarts, so that two of them never overlap: a second
 * client started while the first one still stops (or still starts) races it for the same server commands and the
 * same index writer, and leaves neither working. A start or restart asked for while another waits in the queue joins
 * it (it reads the settings when it runs, so it sees the newest ones); asked for while one runs, it becomes one more
 * restart after it. Pure (no `vscode` import): unit-tested against a fake client; `serverLauncher.ts` supplies the
 * real start and stop.
 */

export interface ServerQueueOps<C> {
  /** Make and start a client; undefined when it cannot start (the caller has said why). May reject. */
  start(): Promise<C | undefined>;
  /** Stop and dispose a client in whatever state it is (starting, running, crashed, half-started). May reject. */
  stop(client: C): Promise<void>;
  /** Whether a client still serves (a start returns it rather than starting another); default: yes. */
  isAlive?(client: C): boolean;
  /** A start or stop rejected: the queue goes on without that client. */
  onError?(what: 'start' | 'stop', err: unknown): void;
}

interface WaitingLaunch<C> {
  /** a restart (stop the client first), not only a start */
  fresh: boolean;
  promise: Promise<C | undefined>;
}

export class ServerQueue<C> {
  private tail: Promise<void> = Promise.resolve();
  private client: C | undefined;
  /** the start or restart that waits in the queue and has not begun: later starts and restarts join it */
  private waitingLaunch: WaitingLaunch<C> | undefined;

  constructor(private readonly ops: ServerQueueOps<C>) {}

  /** The client the last finished start made, until a stop or restart takes it away. */
  get current(): C | undefined {
    return this.client;
  }

  /** The running client, or start one after what is queued (also when the current one died). */
  start(): Promise<C | undefined> {
    return this.launch(false);
  }

  /** Stop the client (if any) and start a new one, after what is queued; joins a launch that has not begun. */
  restart(): Promise<C | undefined> {
    return this.launch(true);
  }

  /** Stop the client after what is queued. A start queued before it runs first; one asked for later comes after. */
  stop(): Promise<void> {
    this.waitingLaunch = undefined;
    return this.enqueue(() => this.stopCurrent());
  }

  private launch(fresh: boolean): Promise<C | undefined> {
    const waiting = this.waitingLaunch;
    if (waiting) {
      // a restart that joins a waiting start makes it a restart: the settings it was asked for must apply
      waiting.fresh ||= fresh;
      return waiting.promise;
    }
    const entry: WaitingLaunch<C> = { fresh, promise: Promise.resolve(undefined) };
    entry.promise = this.enqueue(async () => {
      if (this.waitingLaunch === entry) {
        this.waitingLaunch = undefined;
      }
      if (this.client !== undefined && !entry.fresh && (this.ops.isAlive?.(this.client) ?? true)) {
        return this.client;
      }
      await this.stopCurrent();
      try {
        this.client = await this.ops.start();
      } catch (err) {
        this.client = undefined;
        this.ops.onError?.('start', err);
      }
      return this.client;
    });
    this.waitingLaunch = entry;
    return entry.promise;
  }

  private async stopCurrent(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      await this.ops.stop(client);
    } catch (err) {
      this.ops.onError?.('stop', err);
    }
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.tail.then(op);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}
