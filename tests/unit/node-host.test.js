// The decoder host of the loaders in Node (#decoder-host → node-pool.js): setWorkerLimit(n) runs
// decodes in n worker_threads with the same results as the synchronous host, setDecoderPath names
// another .wasm, and the .wasm is compiled once per process however many loaders are made.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PMDLoader, PSGLoader, PSKLoader, UE1Loader } from '../../web/src/index.js';
import { decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { ThreadWorker, createDecoderHost } from '../../web/src/decoder/node-pool.js';
import { DecoderPool } from '../../web/src/decoder/pool.js';
import { DEFAULT_WASM_URL, compiledDecoders, loadNodeDecoders } from '../../web/src/decoder/node.js';
import { FIXTURES, HAVE_SAMPLES, SAMPLES } from './helpers.js';

// Spied before the first decode of this file's module graph: every compile of the process shows.
const compile = vi.spyOn(WebAssembly, 'compile');
const instantiate = vi.spyOn(WebAssembly, 'instantiate');

/** Every file under a folder, as the viewer's folder drop gives them. */
function folderFiles(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? folderFiles(path) : [path];
    })
    .sort();
}

const entriesOf = (paths) => paths.map((p) => entryFromBytes(p, new Uint8Array(readFileSync(p))));

/** A value with every typed array replaced by a digest of its bytes (large arrays compare fast). */
function digest(value) {
  if (ArrayBuffer.isView(value))
    return `${value.constructor.name}:${value.length}:${createHash('sha1')
      .update(new Uint8Array(value.buffer, value.byteOffset, value.byteLength))
      .digest('hex')}`;
  if (Array.isArray(value)) return value.map(digest);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .filter((k) => k !== 'decodeMs' && k !== 'entry')
        .sort()
        .map((k) => [k, digest(value[k])]),
    );
  }
  return value;
}

/** The drawn facts of a loader's Group: every mesh's geometry and every clip's keys. */
function groupDigest(group) {
  const meshes = [];
  group.traverse((o) => {
    if (o.isMesh)
      meshes.push({
        name: o.name,
        attributes: Object.fromEntries(Object.entries(o.geometry.attributes).map(([k, a]) => [k, digest(a.array)])),
        index: digest(o.geometry.index?.array ?? null),
      });
  });
  const clips = group.animations.map((c) => ({
    name: c.name,
    duration: c.duration,
    tracks: c.tracks.map((t) => [t.name, digest(t.times), digest(t.values)]),
  }));
  return { meshes, clips, records: group.userData.records };
}

const FAMILY_FOLDERS = ['psk', 'zeroad', 'vertex3d', 'psg'];

let tmp;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'rigscope-node-host-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('setWorkerLimit(n) in Node: decodes in n worker_threads', () => {
  it.skipIf(!HAVE_SAMPLES).each(FAMILY_FOLDERS)(
    'samples/%s, the whole folder: the threads decode what the synchronous host decodes',
    async (folder) => {
      const paths = folderFiles(`${SAMPLES}${folder}`);
      const threads = createDecoderHost({ workerLimit: 3 });
      const sync = createDecoderHost();
      try {
        const [threaded, inThread] = await Promise.all([decodeFiles(entriesOf(paths), threads), decodeFiles(entriesOf(paths), sync)]);
        expect(threaded.models.length + threaded.animations.length).toBeGreaterThan(0);
        expect(digest(threaded)).toEqual(digest(inThread));
        expect(threads.workerCount).toBeGreaterThan(0);
        expect(threads.workerCount).toBeLessThanOrEqual(3);
        expect(sync.workerCount).toBe(0);
      } finally {
        threads.dispose();
      }
    },
  );

  it('starts exactly n threads for more than n calls at once, and dispose() ends them', async () => {
    const host = createDecoderHost({ workerLimit: 3 });
    const psk = readFileSync(`${FIXTURES}two_bone.psk`);
    const kinds = await Promise.all(
      Array.from({ length: 7 }, () => host.call('detectFormat', [new Uint8Array(psk).buffer, psk.length, 'two_bone.psk'])),
    );
    expect(kinds).toEqual(new Array(7).fill('psk'));
    expect(host.workerCount).toBe(3);
    host.dispose();
    await expect(host.call('detectFormat', [new Uint8Array(psk).buffer, psk.length, 'two_bone.psk'])).rejects.toThrow(
      'Decoder pool disposed',
    );
  });

  const LOADED = [
    ['PSKLoader', PSKLoader, ['psk/skSpiderLargeMesh.psk', 'psk/skSpiderLargeAnims.psa']],
    ['PMDLoader', PMDLoader, ['zeroad/rich-man.pmd', 'zeroad/rich-man_idle.psa']],
    [
      'UE1Loader',
      UE1Loader,
      [
        'vertex3d/assimp-mar_rifle/mar_rifle_d.3d',
        'vertex3d/assimp-mar_rifle/mar_rifle_a.3d',
        'vertex3d/assimp-mar_rifle/mar_rifle.uc',
        'vertex3d/assimp-mar_rifle/m_rifl.bmp',
      ],
    ],
    ['PSGLoader', PSGLoader, ['psg/skybox_night.psg', 'psg/skybox_textures.psg']],
  ];
  it.skipIf(!HAVE_SAMPLES).each(LOADED)('%s.setWorkerLimit(2) builds what the synchronous loader builds', async (name, Loader, rels) => {
    const files = () => Object.fromEntries(rels.map((r) => [r.split('/').pop(), readFileSync(`${SAMPLES}${r}`)]));
    const threaded = new Loader().setWorkerLimit(2);
    try {
      const [a, b] = await Promise.all([threaded.parseAsync(files()), new Loader().parseAsync(files())]);
      expect(threaded._pool.workerCount).toBeGreaterThan(0);
      expect(groupDigest(a)).toEqual(groupDigest(b));
      expect(a.userData.records.length).toBeGreaterThan(0);
    } finally {
      threaded.dispose();
    }
  });
});

describe('setDecoderPath in Node: another .wasm', () => {
  /** The package's .wasm plus a custom section naming the copy (ignored by the engine, readable after compile). */
  function markedCopy(dir, mark) {
    const name = new TextEncoder().encode('rigscope-copy');
    const payload = new TextEncoder().encode(mark);
    const body = [name.length, ...name, ...payload];
    const section = Uint8Array.from([0, body.length, ...body]); // both lengths < 128: one-byte LEBs
    writeFileSync(join(dir, 'decoders.wasm'), Buffer.concat([readFileSync(DEFAULT_WASM_URL), section]));
    return join(dir, 'decoders.wasm');
  }
  const markOf = async (call) => {
    const module = await compile.mock.results[call].value;
    return WebAssembly.Module.customSections(module, 'rigscope-copy').map((b) => new TextDecoder().decode(b));
  };

  it('a copy of the .wasm in another folder is the one compiled and decoding, by folder or by file', async () => {
    const folder = mkdtempSync(join(tmp, 'folder-'));
    markedCopy(folder, 'by folder');
    const before = compile.mock.calls.length;
    const group = await new PSKLoader().setDecoderPath(folder).parseAsync(readFileSync(`${FIXTURES}two_bone.psk`), 'two_bone.psk');
    expect(group.userData.character.name).toBe('two_bone.psk');
    expect(compile.mock.calls.length).toBe(before + 1);
    expect(await markOf(before)).toEqual(['by folder']);

    const file = markedCopy(mkdtempSync(join(tmp, 'file-')), 'by file');
    const threaded = new PSKLoader().setDecoderPath(file).setWorkerLimit(2);
    const clips = await threaded.parseAsync({
      'two_bone.psk': readFileSync(`${FIXTURES}two_bone.psk`),
      'two_bone.psa': readFileSync(`${FIXTURES}two_bone.psa`),
    });
    threaded.dispose();
    expect(clips.animations.map((c) => c.name)).toEqual(['Bend']);
    expect(compile.mock.calls.length).toBe(before + 2);
    expect(await markOf(before + 1)).toEqual(['by file']);
  });

  it('a missing or broken .wasm is refused in words naming the path', async () => {
    const psk = () => readFileSync(`${FIXTURES}two_bone.psk`);
    const missing = join(tmp, 'nowhere', 'decoders.wasm');
    await expect(new PSKLoader().setDecoderPath(missing).parseAsync(psk(), 'two_bone.psk')).rejects.toThrow(
      `rigscope: cannot read the decoder module ${missing}: no such file`,
    );
    await expect(new PSKLoader().setDecoderPath(join(tmp, 'nowhere')).setWorkerLimit(2).parseAsync(psk(), 'two_bone.psk')).rejects.toThrow(
      `cannot read the decoder module ${missing}`,
    );
    const broken = join(tmp, 'broken.wasm');
    writeFileSync(broken, 'not a module');
    await expect(loadNodeDecoders({ wasmPath: broken })).rejects.toThrow(`rigscope: ${broken} is not a usable WebAssembly decoder module`);
    // A well-formed module that is not this package's decoders: refused, not a hang.
    const other = join(tmp, 'other.wasm');
    writeFileSync(other, Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0]));
    await expect(loadNodeDecoders({ wasmPath: other })).rejects.toThrow('does not fit this package');
  });
});

describe('the .wasm is compiled once per process', () => {
  it('new loaders, synchronous or threaded, compile nothing again and the synchronous ones share one instance', async () => {
    const psk = () => readFileSync(`${FIXTURES}two_bone.psk`);
    await new PSKLoader().parseAsync(psk(), 'two_bone.psk'); // the package's module, compiled by now
    const compiles = compile.mock.calls.length;
    const instances = instantiate.mock.calls.length;
    for (let i = 0; i < 5; i++)
      expect((await new PSKLoader().parseAsync(psk(), 'two_bone.psk')).userData.character.name).toBe('two_bone.psk');
    expect(instantiate.mock.calls.length).toBe(instances);
    const threaded = [new PSKLoader().setWorkerLimit(2), new PMDLoader().setWorkerLimit(1)];
    await threaded[0].parseAsync(psk(), 'two_bone.psk');
    await threaded[1].parseAsync(readFileSync(`${FIXTURES}arm.pmd`), 'arm.pmd');
    for (const l of threaded) l.dispose();
    expect(compile.mock.calls.length).toBe(compiles);
    // Whatever this thread instantiated came from a compiled Module, never from bytes.
    for (const [source] of instantiate.mock.calls) expect(source).toBeInstanceOf(WebAssembly.Module);
  });
});

describe('a decoder thread that dies', () => {
  it('fails the calls it held in words, and the next call starts a new thread', async () => {
    const threads = [];
    const wasmModule = await compiledDecoders();
    const pool = new DecoderPool({ workerLimit: 1, createWorker: () => threads[threads.push(new ThreadWorker(wasmModule)) - 1] });
    const psk = readFileSync(`${FIXTURES}two_bone.psk`);
    const call = () => pool.call('detectFormat', [new Uint8Array(psk).buffer, psk.length, 'two_bone.psk']);
    expect(await call()).toBe('psk');
    // Ended from outside, as an out-of-memory kill would end it, with a call on its way in (the
    // end begins first, so the call can never be answered before it: no race with a fast thread).
    const ending = threads[0].thread.terminate();
    const pending = call();
    await ending;
    await expect(pending).rejects.toThrow(/^rigscope: two_bone\.psk: .*; the decoder was restarted$/);
    expect(await call()).toBe('psk');
    expect(threads).toHaveLength(2);
    pool.dispose();
  });
});
