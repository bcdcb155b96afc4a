import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServerQueue } from '../../src/serverQueue';

/**
 * A fake LanguageClient whose start and stop finish only when the test says so, in a world that, like VS Code,
 * refuses a second registration of the server's commands while another client holds them.
 */
class World {
  readonly pending: { what: 'start' | 'stop'; client: FakeClient; finish: (ok: boolean) => void }[] = [];
  readonly registered = new Set<string>();
  readonly clients: FakeClient[] = [];
  readonly log: string[] = [];
  live = 0;
  maxLive = 0;
  /** the next start fails (the interpreter lacks memlens, the server exits during initialize) */
  failNextStart = false;
  /** the next stop rejects ("Client is not running and can't be stopped") */
  failNextStop = false;

  wait(what: 'start' | 'stop', client: FakeClient): Promise<boolean> {
    return new Promise((resolve) => this.pending.push({ what, client, finish: resolve }));
  }

  /** Let the queue run until it waits on a start or stop; return which. */
  async next(): Promise<string> {
    for (let i = 0; i < 50 && this.pending.length === 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const p = this.pending[0];
    return p ? `${p.what} #${p.client.id}` : 'idle';
  }

  /** Finish the start or stop the queue waits on. */
  async finish(ok = true): Promise<string> {
    const waiting = await this.next();
    const p = this.pending.shift();
    assert.ok(p, 'something to finish');
    p.finish(ok);
    return waiting;
  }
}

class FakeClient {
  state: 'initial' | 'starting' | 'running' | 'stopped' = 'initial';
  readonly id: number;

  constructor(private readonly world: World) {
    world.clients.push(this);
    this.id = world.clients.length;
  }

  async start(): Promise<void> {
    this.state = 'starting';
    this.world.live++;
    this.world.maxLive = Math.max(this.world.maxLive, this.world.live);
    if (this.world.registered.has('memlens.search')) {
      throw new Error("command 'memlens.search' already exists");
    }
    this.world.registered.add('memlens.search');
    const fail = this.world.failNextStart;
    this.world.failNextStart = false;
    if (!(await this.world.wait('start', this)) || fail) {
      throw new Error('the server exited during initialize');
    }
    this.state = 'running';
    this.world.log.push(`running #${this.id}`);
  }

  async dispose(): Promise<void> {
    const fail = this.world.failNextStop;
    this.world.failNextStop = false;
    await this.world.wait('stop', this);
    if (this.state !== 'stopped') {
      this.world.live--;
      this.world.registered.delete('memlens.search');
    }
    this.state = 'stopped';
    this.world.log.push(`stopped #${this.id}`);
    if (fail) {
      throw new Error("Client is not running and can't be stopped. It's current state is: starting");
    }
  }
}

function makeQueue(world: World): { queue: ServerQueue<FakeClient>; errors: string[] } {
  const errors: string[] = [];
  const queue = new ServerQueue<FakeClient>({
    // like ServerManager.launch: a client that did not start is disposed and reported, not returned
    start: async () => {
      const client = new FakeClient(world);
      try {
        await client.start();
        return client;
      } catch (err) {
        world.log.push(`failed #${client.id}: ${(err as Error).message}`);
        await client.dispose().catch(() => undefined);
        return undefined;
      }
    },
    stop: (client) => client.dispose(),
    onError: (what, err) => errors.push(`${what}: ${(err as Error).message}`),
  });
  return { queue, errors };
}

describe('server start/stop/restart queue', () => {
  it('a restart asked for while one runs (a settings change during Restart Server) is one more restart after it', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    const first = queue.start();
    assert.equal(await world.finish(), 'start #1');
    assert.equal((await first)?.id, 1);

    const byCommand = queue.restart();
    assert.equal(await world.next(), 'stop #1');
    // the settings change (twice: VS Code fires one event per edited file) while the first restart still stops
    const bySettings = queue.restart();
    const bySettingsAgain = queue.restart();
    assert.equal(await world.finish(), 'stop #1');
    assert.equal(await world.finish(), 'start #2');
    assert.equal((await byCommand)?.id, 2);
    // then exactly one more restart, which both settings changes share
    assert.equal(await world.finish(), 'stop #2');
    assert.equal(await world.finish(), 'start #3');
    assert.equal(await bySettings, await bySettingsAgain);
    assert.equal((await bySettings)?.id, 3);
    assert.equal(await world.next(), 'idle');
    assert.equal(world.maxLive, 1, 'never two clients at once');
    assert.equal(world.clients.length, 3);
    assert.equal(queue.current?.id, 3);
    assert.equal(queue.current?.state, 'running');
    assert.ok(!world.log.some((l) => l.includes('already exists')), world.log.join('\n'));
  });

  it('a start asked for while a stop runs starts a new client after it, not beside it', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    void queue.start();
    await world.finish();
    const stopped = queue.stop();
    assert.equal(await world.next(), 'stop #1');
    const started = queue.start();
    assert.equal(await world.finish(), 'stop #1');
    await stopped;
    assert.equal(await world.finish(), 'start #2');
    assert.equal((await started)?.state, 'running');
    assert.equal(world.maxLive, 1);
  });

  it('starts asked for together share one client', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    const a = queue.start();
    const b = queue.start();
    await world.finish();
    assert.equal(await a, await b);
    assert.equal(await queue.start(), await a, 'a running client is returned, not restarted');
    assert.equal(world.clients.length, 1);
  });

  it('a restart that joins a waiting start makes it a restart (the new settings apply)', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    void queue.start();
    await world.finish();
    void queue.restart();
    assert.equal(await world.next(), 'stop #1');
    const started = queue.start(); // e.g. a search asks for the server while the restart runs
    const restarted = queue.restart();
    assert.equal(started, restarted);
    await world.finish(); // stop #1
    await world.finish(); // start #2
    assert.equal(await world.finish(), 'stop #2');
    assert.equal(await world.finish(), 'start #3');
    assert.equal((await restarted)?.id, 3);
  });

  it('Restart Server recovers from a failed start', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    world.failNextStart = true;
    const first = queue.start();
    await world.finish(); // start #1 fails
    await world.finish(); // its dispose
    assert.equal(await first, undefined);
    assert.equal(queue.current, undefined);
    const again = queue.restart();
    assert.equal(await world.finish(), 'start #2');
    assert.equal((await again)?.state, 'running');
    assert.equal(world.registered.size, 1);
  });

  it('Restart Server recovers when stopping the old client rejects (it crashed, or was still starting)', async () => {
    const world = new World();
    const { queue, errors } = makeQueue(world);
    void queue.start();
    await world.finish();
    world.failNextStop = true;
    const restarted = queue.restart();
    assert.equal(await world.finish(), 'stop #1');
    assert.equal(await world.finish(), 'start #2');
    assert.equal((await restarted)?.state, 'running');
    assert.deepEqual(errors, ["stop: Client is not running and can't be stopped. It's current state is: starting"]);
  });

  it('a start after the client died (killed before anyone noticed) starts a new one', async () => {
    const world = new World();
    const queue = new ServerQueue<FakeClient>({
      start: async () => {
        const client = new FakeClient(world);
        await client.start();
        return client;
      },
      stop: (client) => client.dispose(),
      isAlive: (client) => client.state === 'running',
    });
    const first = queue.start();
    await world.finish();
    const dead = await first;
    assert.ok(dead && queue.current === dead);
    dead.state = 'stopped';
    world.live--;
    world.registered.delete('memlens.search');
    const again = queue.start();
    assert.equal(await world.finish(), 'stop #1', 'the dead client is disposed first');
    assert.equal(await world.finish(), 'start #2');
    assert.equal((await again)?.state, 'running');
  });

  it('a start that rejects leaves no client and the queue goes on', async () => {
    const world = new World();
    const errors: string[] = [];
    let calls = 0;
    const queue = new ServerQueue<FakeClient>({
      start: async () => {
        calls++;
        if (calls === 1) {
          throw new Error('spawn python3 ENOENT');
        }
        const client = new FakeClient(world);
        await client.start();
        return client;
      },
      stop: (client) => client.dispose(),
      onError: (what, err) => errors.push(`${what}: ${(err as Error).message}`),
    });
    assert.equal(await queue.start(), undefined);
    const restarted = queue.restart();
    await world.finish();
    assert.equal((await restarted)?.state, 'running');
    assert.deepEqual(errors, ['start: spawn python3 ENOENT']);
  });

  it('a stop queued after a restart wins: the server ends stopped', async () => {
    const world = new World();
    const { queue } = makeQueue(world);
    void queue.start();
    await world.finish();
    const restarted = queue.restart();
    const stopped = queue.stop();
    await world.finish(); // stop #1
    await world.finish(); // start #2
    assert.equal(await world.finish(), 'stop #2');
    await Promise.all([restarted, stopped]);
    assert.equal(queue.current, undefined);
    assert.equal(world.live, 0);
    assert.equal(world.registered.size, 0);
  });
});
