// Fixed costs of a loader (issue #20): a loader lays out nothing and runs no sky-dome test (only
// the viewer places characters), and a new loader compiles no WebAssembly: in Node the process's
// module is shared, in the browser a loader's own DecoderPool starts workers that instantiate the
// module an earlier worker compiled (shared-module.js), here with the browser's pool, client and
// worker code running in-process workers.
import { describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { PSGLoader, PSKLoader } from '../../web/src/index.js';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { DecoderPool } from '../../web/src/decoder/pool.js';
import { decoderServer } from '../../web/src/decoder/ops.js';
import { keepCompiledModule, offerCompiledModule, sharedModuleStart } from '../../web/src/decoder/shared-module.js';
import { DEFAULT_WASM_URL, compiledDecoders } from '../../web/src/decoder/node.js';
import createDecoders from '../../build/wasm/decoders.mjs';
import { FIXTURES, HAVE_SAMPLES, SAMPLES, decoder, fixture } from './helpers.js';

// Spied before this file's first decode: every compile of the module graph shows.
const compile = vi.spyOn(WebAssembly, 'compile');
const instantiate = vi.spyOn(WebAssembly, 'instantiate');
/** Compiles of the decoder's bytes: WebAssembly.compile, or instantiate() given bytes rather than a Module. */
const compiles = () =>
  compile.mock.calls.length + instantiate.mock.calls.filter(([source]) => !(source instanceof WebAssembly.Module)).length;

const wasmBinary = readFileSync(DEFAULT_WASM_URL);

/**
 * A decoder worker in this thread with the browser worker's code path (worker.js): messages to it
 * and from it are delivered asynchronously, as structured clones are. Emscripten cannot fetch a
 * file: URL in Node, so the glue gets the bytes as `wasmBinary` (it still compiles them itself).
 */
class InProcessWorker {
  constructor() {
    this.onmessage = null;
    this.onerror = null;
    this.received = [];
    const post = (data) => setTimeout(() => this.onmessage?.({ data }));
    const decoders = sharedModuleStart(createDecoders, post, { wasmBinary });
    const serve = decoderServer(decoders.start, post);
    this._deliver = (data) => decoders.receive(data) || serve(data);
  }

  postMessage(data) {
    this.received.push(data);
    setTimeout(() => this._deliver(data));
  }

  terminate() {
    this._deliver = () => {};
  }
}

describe('a loader lays out nothing', () => {
  const files = () => ({ 'two_bone.psk': fixture('two_bone.psk'), 'static.pskx': fixture('static.pskx') });

  it('two unrelated models stay where their files put them, with no offset, enclosing or hidden', async () => {
    const group = await new PSKLoader().parseAsync(files());
    const characters = group.userData.characters;
    expect(characters.map((c) => c.name).sort()).toEqual(['static.pskx', 'two_bone.psk']);
    for (const c of characters) {
      expect(c.root.position.toArray()).toEqual([0, 0, 0]);
      expect(c.scene).not.toHaveProperty('offset');
      expect(c.scene).not.toHaveProperty('enclosing');
      expect(c.scene).not.toHaveProperty('hidden');
    }
    // The viewer's assembly of the same files lays them out side by side.
    const decoded = await decodeFiles(
      Object.entries(files()).map(([name, bytes]) => entryFromBytes(name, bytes)),
      await decoder(),
    );
    const scene = await assembleScene(decoded);
    expect(scene.characters.map((c) => c.offset.some((v) => v !== 0))).toEqual([true, true]);
  });

  it.skipIf(!HAVE_SAMPLES)('the sky dome is not tested for facing inward: its materials stay lit, as its file says', async () => {
    const sky = readFileSync(`${SAMPLES}psg/skybox_night.psg`);
    const group = await new PSGLoader().parseAsync(sky, 'skybox_night.psg');
    const [character] = group.userData.characters;
    expect(character.scene).not.toHaveProperty('enclosing');
    expect(character.materials.map((m) => m.type)).toEqual(['MeshStandardMaterial']);
    // The viewer's assembly finds it enclosing and draws it unlit.
    const decoded = await decodeFiles([entryFromBytes('skybox_night.psg', sky)], await decoder());
    const scene = await assembleScene(decoded);
    expect(scene.characters.map((c) => [c.enclosing, c.hidden])).toEqual([[true, false]]);
  });
});

describe('a new loader compiles no WebAssembly', () => {
  it('in Node: new loaders share the one compiled module and instance', async () => {
    const psk = () => readFileSync(`${FIXTURES}two_bone.psk`);
    await new PSKLoader().parseAsync(psk(), 'two_bone.psk');
    const before = { compiles: compiles(), instances: instantiate.mock.calls.length };
    for (let i = 0; i < 4; i++)
      expect((await new PSKLoader().parseAsync(psk(), 'two_bone.psk')).userData.character.name).toBe('two_bone.psk');
    expect({ compiles: compiles(), instances: instantiate.mock.calls.length }).toEqual(before);
    expect(before.compiles).toBe(1);
  });

  it("in the browser's pools: only the first worker compiles; later loaders' workers instantiate its module", async () => {
    const workers = [];
    const loaderWithOwnPool = () =>
      new PSKLoader().setDecoder(new DecoderPool({ workerLimit: 1, createWorker: () => workers[workers.push(new InProcessWorker()) - 1] }));
    const psk = () => readFileSync(`${FIXTURES}two_bone.psk`);
    const start = compiles();
    const first = await loaderWithOwnPool().parseAsync(psk(), 'two_bone.psk');
    expect(first.userData.character.name).toBe('two_bone.psk');
    expect(compiles()).toBe(start + 1);
    for (let i = 0; i < 3; i++) {
      const loader = loaderWithOwnPool();
      const group = await loader.parseAsync({ 'two_bone.psk': psk(), 'two_bone.psa': readFileSync(`${FIXTURES}two_bone.psa`) });
      expect(group.animations.map((c) => c.name)).toEqual(['Bend']);
      loader.decoder.dispose();
    }
    expect(workers).toHaveLength(4);
    expect(compiles()).toBe(start + 1);
    // Each later worker got the page's module as its first message, before any request.
    for (const w of workers.slice(1)) expect(w.received[0].wasmModules[0][1]).toBeInstanceOf(WebAssembly.Module);
    expect(workers[0].received[0]).toHaveProperty('op');
  });

  it('a worker whose instance trapped starts a fresh one from the module it compiled, compiling nothing', async () => {
    const shared = [];
    const decoders = sharedModuleStart(createDecoders, (m) => shared.push(m), { wasmBinary });
    const before = compiles();
    const first = await decoders.start();
    expect(compiles()).toBe(before + 1);
    expect(shared).toHaveLength(1);
    // decoderServer calls start() again after a DecoderCrash.
    const fresh = await decoders.start();
    expect(fresh).not.toBe(first);
    expect(fresh.HEAP8.buffer).not.toBe(first.HEAP8.buffer);
    expect(compiles()).toBe(before + 1);
    expect(shared).toHaveLength(1);
    const psk = readFileSync(`${FIXTURES}two_bone.psk`);
    expect(fresh.decodePsk(new Uint8Array(psk), 'two_bone.psk').skeleton.names).toEqual(['Root', 'Bone1']);
  });

  it('a worker of another build (another key) is not given the module; a module that does not fit is refused, then compiled', async () => {
    const module = await compiledDecoders();
    // The page keeps modules by worker build and answers only that build's workers.
    expect(keepCompiledModule({ id: 1, ok: true, result: {} })).toBe(false);
    expect(keepCompiledModule({ wasmModule: module, wasmKey: 'https://elsewhere.example/worker.js' })).toBe(true);
    const posted = [];
    offerCompiledModule({ postMessage: (m) => posted.push(m) });
    expect(posted.at(-1).wasmModules.map(([key]) => key)).toContain('https://elsewhere.example/worker.js');
    const other = sharedModuleStart(createDecoders, () => {}, { wasmBinary });
    expect(other.receive({ wasmModules: [['https://elsewhere.example/worker.js', module]] })).toBe(true);
    const before = compiles();
    await other.start();
    expect(compiles()).toBe(before + 1); // not its build's module: it compiled its own

    // A module of this build's key that does not fit the glue (an empty module) fails, and the worker compiles.
    const empty = new WebAssembly.Module(Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0));
    const shared = [];
    const misfit = sharedModuleStart(createDecoders, (m) => shared.push(m), { wasmBinary });
    const key = new URL('../../web/src/decoder/shared-module.js', import.meta.url).href;
    expect(misfit.receive({ wasmModules: [[key, empty]] })).toBe(true);
    const M = await misfit.start();
    expect(M.decodePsk).toBeTypeOf('function');
    expect(shared.map((m) => m.wasmKey)).toEqual([key]);
  });
});

describe('a loader in Node decodes the bytes it is given where they lie', () => {
  /** A host around Node's that records the buffers each call was given. */
  const recording = async (transfersInput) => {
    const host = await decoder();
    const given = [];
    return {
      given,
      host: {
        transfersInput,
        call(op, args) {
          given.push({ op, args });
          return host.call(op, args);
        },
      },
    };
  };
  const decodeInput = (given) => given.find((c) => c.op === 'decodePsk').args[0];
  const detectInput = (given) => given.find((c) => c.op === 'detectFormats').args;

  it.each([
    ['a file read whole by its head read', () => fixture('two_bone.psk'), 'two_bone.psk'],
    ...(HAVE_SAMPLES
      ? [
          [
            'a file past the head read (357 KB)',
            () => new Uint8Array(readFileSync(`${SAMPLES}psk/Grunt_Preview_LOD0.psk`)),
            'Grunt_Preview_LOD0.psk',
          ],
        ]
      : []),
  ])('%s: a host that never transfers is given the caller’s own buffer to decode, one that transfers copies', async (_, read, name) => {
    const bytes = read();
    const inPlace = await recording(false);
    const group = await new PSKLoader().setDecoder(inPlace.host).parseAsync(bytes, name);
    expect(group.userData.character.name).toBe(name);
    expect(decodeInput(inPlace.given)).toBe(bytes.buffer);
    // Its ACTRHEAD tag says what it is in JavaScript: no detection call at all.
    expect(inPlace.given.map((c) => c.op)).toEqual(['decodePsk']);

    // A worker's host detaches what it is given: that gets a copy, and the caller's bytes stay whole.
    const transferring = await recording(undefined);
    await new PSKLoader().setDecoder(transferring.host).parseAsync(bytes, name);
    expect(decodeInput(transferring.given)).not.toBe(bytes.buffer);
    expect(decodeInput(transferring.given).byteLength).toBe(bytes.byteLength);
    // A view of part of a buffer is copied whatever the host: read() gives a buffer of the file alone.
    const framed = new Uint8Array(bytes.byteLength + 16);
    framed.set(bytes, 8);
    inPlace.given.length = 0;
    await new PSKLoader().setDecoder(inPlace.host).parseAsync(framed.subarray(8, 8 + bytes.byteLength), name);
    expect(decodeInput(inPlace.given)).not.toBe(framed.buffer);
  });

  it.each([
    ['read whole by its head read', 1000],
    ['past the head read', 300000],
  ])('a file the decoders detect (no tag JavaScript knows), %s, is detected from a view of the caller’s buffer', async (_, size) => {
    // Bytes of no format: the decoders' detection is asked, and finds nothing.
    const bytes = new Uint8Array(size).fill(7);
    const inPlace = await recording(false);
    await expect(new PSKLoader().setDecoder(inPlace.host).parseAsync(bytes, 'junk.psk')).rejects.toThrow(
      'PSKLoader: junk.psk: not used — not a format Rigscope reads',
    );
    // No longer than a head read: the whole file copied into the decoder was 5 MB for a 5 MB file.
    const [heads, lengths] = detectInput(inPlace.given);
    expect(lengths).toEqual([Math.min(size, 65536)]);
    expect(heads.buffer).toBe(bytes.buffer);
    expect([heads.byteOffset, heads.byteLength]).toEqual([0, Math.min(size, 65536)]);

    const transferring = await recording(undefined);
    await expect(new PSKLoader().setDecoder(transferring.host).parseAsync(bytes, 'junk.psk')).rejects.toThrow();
    expect(detectInput(transferring.given)[0]).not.toBe(bytes.buffer);
    expect(detectInput(transferring.given)[0].byteLength).toBe(Math.min(size, 65536));
  });

  it("Node's hosts say they never transfer; its threads do", async () => {
    const { createDecoderHost } = await import('../../web/src/decoder/node-pool.js');
    expect((await decoder()).transfersInput).toBe(false);
    expect(createDecoderHost().transfersInput).toBe(false);
    expect(createDecoderHost({ workerLimit: 1 }).transfersInput).toBe(true);
  });
});
