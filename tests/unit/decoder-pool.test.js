import { describe, expect, it } from 'vitest';
import { DecoderPool } from '../../web/src/decoder/pool.js';

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
});
