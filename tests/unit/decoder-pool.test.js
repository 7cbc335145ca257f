import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIRECT_MAX_BYTES, directStarted, pageThread } from '../../web/src/decoder/direct.js';
import { createDecoderHost } from '../../web/src/decoder/loader-host.js';
import { compiledDecoders } from '../../web/src/decoder/node.js';
import { DEFAULT_WORKER_LIMIT, DecoderPool } from '../../web/src/decoder/pool.js';

/** A worker that answers each call when told to (the test decides when a worker has "started"). */
class HeldWorker {
  constructor() {
    this.onmessage = null;
    this.onerror = null;
    this.calls = [];
  }

  postMessage(data) {
    if (data?.id) this.calls.push(data);
  }

  answerAll() {
    for (const { id, op } of this.calls.splice(0)) this.onmessage?.({ data: { id, ok: true, result: { op } } });
  }

  terminate() {}
}

describe('the decoder pool', () => {
  it('starts no second worker while the first still starts (it compiles the module the others share)', async () => {
    const workers = [];
    const pool = new DecoderPool({ workerLimit: 3, createWorker: () => workers[workers.push(new HeldWorker()) - 1] });
    const first = [pool.call('detectFormats', []), pool.call('decodePsk', []), pool.call('decodePsa', [])];
    expect(pool.workerCount).toBe(1);
    expect(workers[0].calls.map((c) => c.op)).toEqual(['detectFormats', 'decodePsk', 'decodePsa']);
    workers[0].answerAll();
    expect((await Promise.all(first)).map((r) => r.op)).toEqual(['detectFormats', 'decodePsk', 'decodePsa']);
    // Once it has answered, busy calls start a second worker, and a third only once the second
    // has answered too.
    const busy = [pool.call('decodePmd', []), pool.call('decodePmd', []), pool.call('decodePmd', [])];
    expect(pool.workerCount).toBe(2);
    expect(workers.map((w) => w.calls.length)).toEqual([2, 1]);
    workers.forEach((w) => w.answerAll());
    await Promise.all(busy);
    const more = [1, 2, 3, 4].map(() => pool.call('decodeUe1', []));
    expect(pool.workerCount).toBe(3);
    workers.forEach((w) => w.answerAll());
    await Promise.all(more);
    pool.dispose();
  });

  it("ends idle workers at once and busy ones when their last call ends, unless a call comes first (the page's last element gone)", async () => {
    const workers = [];
    const ended = [];
    const pool = new DecoderPool({
      createWorker: () => {
        const w = new HeldWorker();
        w.terminate = () => ended.push(w);
        return workers[workers.push(w) - 1];
      },
    });
    // A decode still running when the last element goes (its result is dropped): whether it ends
    // before or after the element does depends on the machine; its worker ends either way.
    const dropped = pool.call('decodePsk', []);
    pool.endIdleWorkers();
    expect(pool.workerCount).toBe(1);
    workers[0].answerAll();
    await dropped;
    expect(pool.workerCount).toBe(0);
    expect(ended).toEqual([workers[0]]);
    // A call after the last element went (a new element): the worker that answers it stays.
    const busy = pool.call('decodePmd', []);
    pool.endIdleWorkers();
    const next = pool.call('decodePmd', []);
    workers[1].answerAll();
    await Promise.all([busy, next]);
    expect(pool.workerCount).toBe(1);
    expect(ended).toEqual([workers[0]]);
    pool.endIdleWorkers();
    expect(pool.workerCount).toBe(0);
    expect(ended).toEqual([workers[0], workers[1]]);
  });
});

/**
 * The browser's Worker, counted: each call is answered in a later task, as a worker's reply is.
 * Loaders' pools start workers by URL (DecoderPool._workerFactory), so this is what they make.
 */
class CountedWorker {
  static made = [];
  constructor(url) {
    this.url = url;
    this.onmessage = null;
    this.onerror = null;
    this.terminated = false;
    this.requests = 0;
    CountedWorker.made.push(this);
  }

  postMessage(data) {
    if (!data?.id) return;
    this.requests++;
    this.pending = setTimeout(() => this.onmessage?.({ data: { id: data.id, ok: true, result: { op: data.op } } }));
  }

  terminate() {
    this.terminated = true;
    clearTimeout(this.pending);
  }
}

describe('pools of a worker script share their idle workers', () => {
  // A script of each test's own: workers a test leaves spare are not the next test's.
  let url = '';
  let tests = 0;
  const withWorker = async (run) => {
    url = `https://rigscope.example/decoder-${++tests}/worker.js`;
    const before = globalThis.Worker;
    globalThis.Worker = CountedWorker;
    CountedWorker.made = [];
    try {
      await run();
    } finally {
      globalThis.Worker = before;
    }
  };

  it('a new pool per file, each disposed after its file, starts one worker in all', () =>
    withWorker(async () => {
      for (let file = 0; file < 5; file++) {
        const pool = new DecoderPool({ workerLimit: 2, workerUrl: url });
        expect((await pool.call('decodePsk', [new ArrayBuffer(8), `f${file}.psk`])).op).toBe('decodePsk');
        pool.dispose();
      }
      expect(CountedWorker.made).toHaveLength(1);
      expect(CountedWorker.made[0].requests).toBe(5);
      expect(CountedWorker.made[0].terminated).toBe(false);
      // Taken by the next pool, as the first pool of a page takes none.
      const next = new DecoderPool({ workerUrl: url });
      await next.call('detectFormats', []);
      expect(CountedWorker.made).toHaveLength(1);
      next.dispose();
    }));

  it('a worker still decoding when its pool is disposed is ended, not kept; pools at once each start their own', () =>
    withWorker(async () => {
      const a = new DecoderPool({ workerLimit: 1, workerUrl: url });
      const b = new DecoderPool({ workerLimit: 1, workerUrl: url });
      const calls = [a.call('decodePsk', []), b.call('decodePsk', [])];
      expect(CountedWorker.made).toHaveLength(2);
      a.dispose(); // a's call is still running
      await expect(calls[0]).rejects.toThrow('Decoder disposed');
      expect(CountedWorker.made[0].terminated).toBe(true);
      await calls[1];
      b.dispose();
      const c = new DecoderPool({ workerUrl: url });
      await c.call('decodePmd', []);
      // c took b's idle worker; a's was ended.
      expect(CountedWorker.made).toHaveLength(2);
      expect(CountedWorker.made[1].requests).toBe(2);
      c.dispose();
    }));

  it("a loader's pool lends a worker back as soon as it has nothing to decode: loaders never disposed hold none", () =>
    withWorker(async () => {
      const pools = [];
      for (let file = 0; file < 4; file++) {
        const pool = createDecoderHost({ workerUrl: url });
        pools.push(pool);
        await pool.call('detectFormats', []);
        await pool.call('decodePsk', []);
        expect(pool.workerCount).toBe(0);
      }
      expect(CountedWorker.made).toHaveLength(1);
      expect(CountedWorker.made[0].requests).toBe(8);
      // Two files at once: a second worker, both lent back once done.
      const [a, b] = pools;
      await Promise.all([a.call('decodePsk', []), b.call('decodePsk', [])]);
      expect(CountedWorker.made).toHaveLength(2);
      expect([a.workerCount, b.workerCount]).toEqual([0, 0]);
      expect(CountedWorker.made.some((w) => w.terminated)).toBe(false);
    }));

  it('at most one spare worker per core waits: past that the oldest ends', () =>
    withWorker(async () => {
      const scripts = Array.from({ length: DEFAULT_WORKER_LIMIT + 1 }, (_, i) => `${url}?build=${i}`);
      for (const workerUrl of scripts) {
        const pool = new DecoderPool({ workerUrl });
        await pool.call('decodePsk', []);
        pool.dispose();
      }
      expect(CountedWorker.made.map((w) => w.terminated)).toEqual([true, ...scripts.slice(1).map(() => false)]);
      // The newest are still there for their scripts.
      const last = new DecoderPool({ workerUrl: scripts.at(-1) });
      await last.call('decodePsk', []);
      expect(CountedWorker.made).toHaveLength(scripts.length);
      last.dispose();
    }));

  it("a pool given its own createWorker (Node's threads, the standalone page) neither leaves nor takes spare workers", () =>
    withWorker(async () => {
      const own = [];
      const createWorker = () => own[own.push(new CountedWorker('own')) - 1];
      const first = new DecoderPool({ createWorker });
      await first.call('decodePsk', []);
      first.dispose();
      expect(own[0].terminated).toBe(true);
      const byUrl = new DecoderPool({ workerUrl: url });
      await byUrl.call('decodePsk', []);
      expect(CountedWorker.made.map((w) => w.url)).toEqual(['own', url]);
      byUrl.dispose();
      const second = new DecoderPool({ createWorker });
      await second.call('decodePsk', []);
      expect(own).toHaveLength(2);
      second.dispose();
    }));
});

/**
 * The bundled worker, stood in for: it hands the page the module it compiled (a real one, as the
 * worker's first message does) and answers each request with its op, in a later task.
 */
class CompilingWorker {
  static made = [];
  static module = null;
  constructor() {
    this.onmessage = null;
    this.onerror = null;
    this.requests = [];
    CompilingWorker.made.push(this);
  }

  postMessage(data) {
    if (!data?.id) return;
    this.requests.push(data);
    setTimeout(() => {
      if (this.requests.length === 1) this.onmessage?.({ data: { wasmModule: CompilingWorker.module, wasmKey: 'bundled-test' } });
      this.onmessage?.({ data: { id: data.id, ok: true, result: { op: data.op, fromWorker: true } } });
    });
  }

  terminate() {}
}

describe("a loader's pool decodes small files on the page's thread", () => {
  it('once the bundled worker has compiled the module: small calls here, large ones in a worker, the caller’s buffers kept', async () => {
    const before = globalThis.Worker;
    globalThis.Worker = CompilingWorker;
    CompilingWorker.module = await compiledDecoders();
    try {
      const psk = readFileSync(new URL('../../build/fixtures/two_bone.psk', import.meta.url));
      const small = () => psk.buffer.slice(psk.byteOffset, psk.byteOffset + psk.byteLength);
      const pool = createDecoderHost();
      expect(pool.transfersInput).toBe(false);
      // The first call goes to the worker, which compiles the module.
      expect(await pool.call('decodePsk', [small(), 'two_bone.psk'])).toEqual({ op: 'decodePsk', fromWorker: true });
      await directStarted();
      // A new loader's pool, as a new loader per file makes: decoded here, by the real decoder.
      const next = createDecoderHost();
      const given = small();
      const model = await next.call('decodePsk', [given, 'two_bone.psk']);
      expect(model.fromWorker).toBeUndefined();
      expect(model.counts).toMatchObject({ bones: 2, faces: expect.any(Number) });
      expect(model.meshes[0].positions).toBeInstanceOf(Float32Array);
      expect(given.byteLength).toBe(psk.byteLength);
      await expect(next.call('decodePsk', [new ArrayBuffer(16), 'bad.psk'])).rejects.toThrow(/bad\.psk/);
      expect(CompilingWorker.made.flatMap((w) => w.requests)).toHaveLength(1);
      // Past DIRECT_MAX_BYTES, a worker: given a copy, the caller's buffer stays whole.
      const large = new ArrayBuffer(DIRECT_MAX_BYTES + 1);
      expect(await next.call('decodePsk', [large, 'large.psk'])).toEqual({ op: 'decodePsk', fromWorker: true });
      expect(large.byteLength).toBe(DIRECT_MAX_BYTES + 1);
      expect(CompilingWorker.made.flatMap((w) => w.requests)).toHaveLength(2);
      // A view goes as its bytes alone, in a buffer of their own (posted as it is, a view takes
      // its whole buffer along).
      const framed = new Uint8Array(DIRECT_MAX_BYTES + 64).fill(7);
      await next.call('decodePsk', [framed.subarray(32, 33 + DIRECT_MAX_BYTES), 'view.psk']);
      const [sent] = CompilingWorker.made.flatMap((w) => w.requests)[2].args;
      expect(sent).toBeInstanceOf(ArrayBuffer);
      expect(sent.byteLength).toBe(DIRECT_MAX_BYTES + 1);
      expect(framed.byteLength).toBe(DIRECT_MAX_BYTES + 64);
      // Pools with a worker of their own choosing (another build's glue) never decode here.
      expect(new DecoderPool({ workerUrl: 'https://rigscope.example/other/worker.js', direct: pageThread }).transfersInput).toBe(true);
      // Nor does a pool without it (<rigscope-viewer>'s, the page's).
      expect(new DecoderPool().transfersInput).toBe(true);
      pool.dispose();
      next.dispose();
    } finally {
      globalThis.Worker = before;
    }
  });
});
