// A large browser File goes to the decoder as it is and is read where the decoder runs (a worker
// in a page), not on the page's main thread.
import { describe, expect, it } from 'vitest';
import { decodeFiles } from '../../web/src/families/index.js';
import { HAND_OVER_BYTES, decoderInput, entryFromBlob, entryFromBytes } from '../../web/src/core/files.js';
import { decoderServer } from '../../web/src/decoder/ops.js';
import { HAVE_SAMPLES, decoder, fixture, sample } from './helpers.js';

const BIG = 'psk/Suzanne_x130_face3200.pskx'; // 4.9 MB

/** A File the browser can no longer read (moved or deleted after it was chosen). */
class GoneFile extends File {
  arrayBuffer() {
    return Promise.reject(gone());
  }
  stream() {
    return new ReadableStream({ pull: (c) => c.error(gone()) });
  }
}
const gone = () => new DOMException('A requested file or directory could not be found', 'NotReadableError');

/** A decoder instance whose heap allocations from JavaScript are counted (the worker's own streaming). */
function counting(M) {
  const live = new Set();
  const spy = Object.create(M);
  spy._malloc = (n) => {
    const at = M._malloc(n);
    if (at) live.add(at);
    return at;
  };
  spy._free = (at) => (live.delete(at), M._free(at));
  return { spy, live };
}

describe('large files are read where they are decoded', () => {
  it('hands over the File itself above HAND_OVER_BYTES, and the bytes below', async () => {
    const small = entryFromBlob(new File([fixture('two_bone.psk')], 'two_bone.psk'));
    expect(await decoderInput(small)).toBeInstanceOf(ArrayBuffer);
    const file = new File([new Uint8Array(HAND_OVER_BYTES + 1)], 'big.psk');
    expect(await decoderInput(entryFromBlob(file))).toBe(file);
  });

  it.skipIf(!HAVE_SAMPLES)('a drop decodes a large File given as it is, the same as its bytes', async () => {
    const d = await decoder();
    const bytes = sample(BIG);
    const given = [];
    const watching = { call: (op, args) => (given.push(args[0]), d.call(op, args)) };
    const [viaFile, viaBytes] = [
      await decodeFiles([entryFromBlob(new File([bytes], 'Suzanne_x130_face3200.pskx'), BIG)], watching),
      await decodeFiles([entryFromBytes(BIG, bytes)], d),
    ];
    expect(given.filter((a) => a instanceof File)).toHaveLength(1);
    const [a, b] = [viaFile.models[0], viaBytes.models[0]];
    expect(a.meshes[0].positions.length).toBeGreaterThan(100000);
    expect(a.meshes[0].positions).toEqual(b.meshes[0].positions);
    expect(a.meshes[0].indices).toEqual(b.meshes[0].indices);
  });

  it("a worker refuses a File it cannot read with the read's error name, and goes on", async () => {
    const d = await decoder();
    const replies = [];
    const serve = decoderServer(
      async () => d.module.instance,
      (reply) => replies.push(reply),
    );
    await serve({ id: 1, op: 'decodePsk', args: [new GoneFile([new Uint8Array(8)], 'gone.psk'), 'gone.psk'] });
    await serve({ id: 2, op: 'decodePsk', args: [new File([fixture('two_bone.psk')], 'two_bone.psk'), 'two_bone.psk'] });
    expect(replies[0]).toMatchObject({ id: 1, ok: false, name: 'NotReadableError' });
    expect(replies[1].ok).toBe(true);
    expect(replies[1].result.skeleton.names).toEqual(['Root', 'Bone1']);
  });

  it.skipIf(!HAVE_SAMPLES)('a worker decodes a File streamed into its heap, the same as its bytes, and frees the room after', async () => {
    const d = await decoder();
    const { spy, live } = counting(d.module.instance);
    const replies = [];
    const serve = decoderServer(
      async () => spy,
      (reply) => replies.push(reply),
    );
    const bytes = sample(BIG);
    await serve({ id: 1, op: 'decodePsk', args: [new File([bytes], 'Suzanne_x130_face3200.pskx'), 'Suzanne_x130_face3200.pskx'] });
    await serve({ id: 2, op: 'decodePsk', args: [new GoneFile([bytes], 'gone.pskx'), 'gone.pskx'] });
    // A file that is not a PSK is refused by the decoder, from the heap too.
    await serve({ id: 3, op: 'decodePsk', args: [new File([new Uint8Array(5000)], 'zeros.psk'), 'zeros.psk'] });
    const direct = await d.call('decodePsk', [bytes.slice().buffer, 'Suzanne_x130_face3200.pskx']);
    expect(replies[0].ok).toBe(true);
    expect(replies[0].result.meshes[0].positions).toEqual(direct.meshes[0].positions);
    expect(replies[0].result.meshes[0].indices).toEqual(direct.meshes[0].indices);
    expect(replies[1]).toMatchObject({ id: 2, ok: false, name: 'NotReadableError' });
    expect(replies[2]).toMatchObject({ id: 3, ok: false });
    expect(replies[2].error).toMatch(/zeros\.psk/);
    expect(live.size).toBe(0);
  });

  it('a drop names a File that could not be read, the same whether the page or the decoder read it', async () => {
    const d = await decoder();
    const gone = (size) => entryFromBlob(new GoneFile([new Uint8Array(size)], 'gone.psk'), `mod/gone${size}.psk`);
    // Its head reads, its whole read fails: below HAND_OVER_BYTES on the page, above it in the decoder.
    const heads = (e) => ({ ...e, readHead: (n) => Promise.resolve(fixture('two_bone.psk').slice(0, n).buffer) });
    const viaWorker = {
      // The reply a worker posts, as the page's client rebuilds it: the read's name survives.
      call: async (op, args) => {
        const replies = [];
        await decoderServer(
          async () => d.module.instance,
          (r) => replies.push(r),
        )({ id: 1, op, args });
        if (replies[0].ok) return replies[0].result;
        throw Object.assign(new Error(replies[0].error), { name: replies[0].name });
      },
    };
    for (const size of [64, HAND_OVER_BYTES + 1]) {
      const set = await decodeFiles([heads(gone(size))], viaWorker);
      expect(set.records).toEqual([
        {
          kind: 'refused',
          files: [`mod/gone${size}.psk`],
          reason: 'could not be read: the browser could not read it (moved, deleted or too large to read)',
        },
      ]);
    }
  });
});
