import { describe, expect, it } from 'vitest';
import { DecoderClient } from '../../web/src/decoder/client.js';

/** A worker stand-in: answers after `delay` ms unless terminated. */
function fakeWorker(log, delay = 0) {
  const w = {
    terminated: false,
    postMessage(msg, transfer) {
      log.push({ msg, transfer });
      if (delay === Infinity) return;
      setTimeout(() => !w.terminated && w.onmessage({ data: { id: msg.id, ok: msg.op !== 'bad', result: { echoed: msg.op }, error: 'PSK x.psk: broken (at byte 3)', ms: 1 } }), delay);
    },
    terminate() { w.terminated = true; },
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
    const client = new DecoderClient({ createWorker: () => { const w = fakeWorker([], workers.length ? 0 : Infinity); workers.push(w); return w; } });
    const slow = client.call('decodePsk', [new ArrayBuffer(4), 'huge.psk']);
    expect(client.busy).toBe(true);
    client.cancel('Decoding was cancelled');
    await expect(slow).rejects.toThrow('Decoding was cancelled');
    expect(workers[0].terminated).toBe(true);
    expect((await client.call('decodePsk', [new ArrayBuffer(4), 'b.psk'])).echoed).toBe('decodePsk');
    expect(workers).toHaveLength(2);
  });
});
