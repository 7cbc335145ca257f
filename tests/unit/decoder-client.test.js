import { afterAll, describe, expect, it, vi } from 'vitest';
import { DecoderClient } from '../../web/src/decoder/client.js';

/** A worker stand-in: answers after `delay` ms unless terminated. */
function fakeWorker(log, delay = 0) {
  const w = {
    terminated: false,
    postMessage(msg, transfer) {
      log.push({ msg, transfer });
      if (delay === Infinity) return;
      setTimeout(
        () =>
          !w.terminated &&
          w.onmessage({
            data: { id: msg.id, ok: msg.op !== 'bad', result: { echoed: msg.op }, error: 'PSK x.psk: broken (at byte 3)', ms: 1 },
          }),
        delay,
      );
    },
    terminate() {
      w.terminated = true;
    },
  };
  return w;
}

describe('DecoderClient', () => {
  it('transfers ArrayBuffer arguments and resolves with the result', async () => {
    const log = [];
    const client = new DecoderClient({ createWorker: () => fakeWorker(log) });
    const buf = new ArrayBuffer(8);
    const r = await client.call('decodePsk', [buf, 'a.psk']);
    expect(r.echoed).toBe('decodePsk');
    expect(log[0].transfer).toEqual([buf]);
  });

  it('rejects with the decoder message intact', async () => {
    const client = new DecoderClient({ createWorker: () => fakeWorker([]) });
    await expect(client.call('bad', [])).rejects.toThrow('PSK x.psk: broken (at byte 3)');
  });

  it('cancels a decode that runs too long and starts a fresh worker for the next', async () => {
    const workers = [];
    const client = new DecoderClient({
      createWorker: () => {
        const w = fakeWorker([], workers.length ? 0 : Infinity);
        workers.push(w);
        return w;
      },
    });
    const slow = client.call('decodePsk', [new ArrayBuffer(4), 'huge.psk']);
    expect(client.busy).toBe(true);
    client.cancel('Decoding was cancelled');
    await expect(slow).rejects.toThrow('Decoding was cancelled');
    expect(workers[0].terminated).toBe(true);
    expect((await client.call('decodePsk', [new ArrayBuffer(4), 'b.psk'])).echoed).toBe('decodePsk');
    expect(workers).toHaveLength(2);
  });
});

describe('DecoderClient when the worker dies', () => {
  it('rejects each pending call with a sentence naming its file, then starts a new worker', async () => {
    const workers = [];
    const client = new DecoderClient({
      createWorker: () => {
        const w = fakeWorker([], workers.length ? 0 : Infinity);
        workers.push(w);
        return w;
      },
    });
    const a = client.call('decodePsk', [new ArrayBuffer(4), 'a.psk']);
    const b = client.call('decodeUe1', [new ArrayBuffer(4), 'b_d.3d', new ArrayBuffer(4), 'b_a.3d', '', '']);
    workers[0].onerror({ message: 'Uncaught RuntimeError: Aborted(). Build with -s ASSERTIONS=1 for more info.' });
    await expect(a).rejects.toThrow('rigscope: a.psk: the decoder stopped on an internal error; the decoder was restarted');
    await expect(b).rejects.toThrow(/^rigscope: b_d\.3d \+ b_a\.3d: the decoder stopped on an internal error/);
    expect(workers[0].terminated).toBe(true);
    expect((await client.call('decodePsk', [new ArrayBuffer(4), 'c.psk'])).echoed).toBe('decodePsk');
    expect(workers).toHaveLength(2);
  });
});

// The worker script itself, over a stand-in module: refusals come back as messages, and a trap
// makes the next request start a fresh instance.
const fakeModule = vi.hoisted(() => ({ instances: 0, trapNext: false }));
vi.mock('../../build/wasm/decoders.mjs', () => ({
  default: async () => {
    const instance = ++fakeModule.instances;
    return {
      instance,
      decodePsk(bytes, file) {
        if (fakeModule.trapNext) {
          fakeModule.trapNext = false;
          throw new WebAssembly.RuntimeError('memory access out of bounds');
        }
        return bytes.length ? { format: 'psk', instance, clips: [] } : { error: `PSK ${file}: empty (at byte 0)` };
      },
    };
  },
}));

describe('decoder worker', () => {
  afterAll(() => {
    delete globalThis.self;
  });

  async function workerScope() {
    const posted = [];
    globalThis.self = { postMessage: (msg) => posted.push(msg) };
    await import('../../web/src/decoder/worker.js');
    const ask = async (id, args) => {
      await globalThis.self.onmessage({ data: { id, op: 'decodePsk', args } });
      return posted.find((m) => m.id === id);
    };
    return ask;
  }

  it('answers refusals with the message and replaces its module after a trap', async () => {
    const ask = await workerScope();
    expect(await ask(1, [new ArrayBuffer(0), 'empty.psk'])).toMatchObject({ ok: false, error: 'PSK empty.psk: empty (at byte 0)' });
    expect((await ask(2, [new ArrayBuffer(4), 'a.psk'])).result.instance).toBe(1);
    fakeModule.trapNext = true;
    const trapped = await ask(3, [new ArrayBuffer(4), 'bad.psk']);
    expect(trapped).toMatchObject({ ok: false });
    expect(trapped.error).toBe(
      'rigscope: bad.psk: the decoder stopped on an invalid memory access (a decoder bug); the decoder was restarted',
    );
    expect((await ask(4, [new ArrayBuffer(4), 'b.psk'])).result.instance).toBe(2);
  });
});
