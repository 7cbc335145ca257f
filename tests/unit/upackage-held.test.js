// A UE1 package held by the decoder (web/src/decoder/held.js): its bytes cross to a worker once,
// later calls name it by id, a mesh comes back with the textures its slots name in one call
// (decodePackageMesh), and what a worker holds is let go of (released, budget) or sent again
// (worker ended, instance replaced). The workers here run the real decoder server (ops.js) and
// the real WASM module in this thread, their messages structured-cloned with their transfer lists
// as postMessage does. Expected facts: ../shared/samples/README.md (upackage), spec §11.5 and §14.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { assembleScene, decodeFiles } from '../../web/src/families/index.js';
import { decodedTexture } from '../../web/src/core/fileset.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { compiledDecoders, instantiateDecoders } from '../../web/src/decoder/node.js';
import { DecoderPool } from '../../web/src/decoder/pool.js';
import { decoderServer, slotTextureIndices } from '../../web/src/decoder/ops.js';
import { HeldInput, heldInputOf, keepersOf, overBudget, releaseHeld, releaseHeldInputs } from '../../web/src/decoder/held.js';
import { decoder, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const SIEGE = 'SiegeIV_0032beta9.u';
const SIEGE_BYTES = 4114609;
const siegeEntry = () => entryFromBytes(SIEGE, readFileSync(`${SAMPLES}upackage/${SIEGE}`));
/** sg_GL1st's slots 1, 2 and 4 (3 is empty): export index, object path, size (samples README). */
const GL1ST_SKINS = [
  [5777, 'SiegeIV_0032beta9.Skins.Jsg_GL1st1', 256, 256],
  [5779, 'SiegeIV_0032beta9.Skins.Jsg_GL1st2', 32, 32],
  [5784, 'SiegeIV_0032beta9.Skins.Jsg_GL1st4', 256, 256],
];

/**
 * A decoder worker in this thread: each message is structured-cloned with its transfer list (the
 * sender's transferred buffers are detached, as by postMessage) and answered by the decoder
 * server over a real module instance. `forget()` gives it a fresh server and instance, as after a
 * trap, without its client being told.
 */
class InThreadWorker {
  static made = [];
  constructor(module) {
    this.module = module;
    this.onmessage = null;
    this.onerror = null;
    this.posted = []; // { op, args, transferred: bytes handed over }
    this.terminated = false;
    this.forget();
    InThreadWorker.made.push(this);
  }

  forget() {
    this.serve = decoderServer(
      () => instantiateDecoders(this.module),
      (reply) => setTimeout(() => !this.terminated && this.onmessage?.({ data: reply })),
    );
  }

  postMessage(message, transfer = []) {
    if (!message?.id) return; // the page's compiled module, offered to workers it starts
    const ref = message.args.find((a) => a?.held !== undefined);
    this.posted.push({
      op: message.op,
      carried: ref?.bytes?.byteLength ?? 0, // read before the clone detaches what is transferred
      transferred: transfer.reduce((n, b) => n + b.byteLength, 0),
    });
    const data = structuredClone(message, { transfer });
    setTimeout(() => !this.terminated && this.serve(data));
  }

  terminate() {
    this.terminated = true;
  }
}

async function threadPool(workerLimit = 1) {
  const module = await compiledDecoders();
  InThreadWorker.made = [];
  return new DecoderPool({ workerLimit, createWorker: () => new InThreadWorker(module), workersCompile: false });
}

/** What crossed to the workers: each message's op, and the bytes of the package it carried. */
const traffic = () => InThreadWorker.made.flatMap((w) => w.posted.map(({ op, carried }) => ({ op, carried })));

/** The textures of a character's slots, decoded (as the page does when it draws it). */
async function slotPictures(decoded, d) {
  const scene = await assembleScene(decoded);
  const c = scene.characters.find((x) => x.name === 'sg_GL1st');
  const out = [];
  for (const m of c.materials)
    if (m.texture) {
      const t = await decodedTexture(m.texture, d);
      out.push([m.texture.object, t.width, t.height, t.mips[0].length]);
    }
  return out;
}

describe.skipIf(!HAVE_SAMPLES)('UE1 packages held in a decoder worker', () => {
  it('sg_GL1st of SiegeIV: the package crosses once, its tables and its mesh with the three slot textures in two calls', async () => {
    const pool = await threadPool();
    const entry = siegeEntry();
    const decoded = await decodeFiles([entry], pool, { objects: ['sg_GL1st'] });
    expect(decoded.models.map((m) => m.name)).toEqual(['sg_GL1st']);
    expect(decoded.models[0].counts.frames).toBe(86);
    // The textures the page asks for next are already here: no further call.
    const pictures = await slotPictures(decoded, pool);
    expect(pictures).toEqual(GL1ST_SKINS.map(([, path, w, h]) => [path, w, h, w * h * 4]));
    // (detectFormats of nothing: the pool's warm-up, which starts the worker while the heads are read.)
    expect(traffic()).toEqual([
      { op: 'detectFormats', carried: 0 },
      { op: 'listPackage', carried: SIEGE_BYTES },
      { op: 'decodePackageMesh', carried: 0 },
    ]);
    // Handed over, not copied: the one message that carried it transferred its buffer.
    expect(InThreadWorker.made[0].posted.map((p) => p.transferred)).toEqual([0, SIEGE_BYTES, 0]);
    expect(pool.sent).toMatchObject({ heldInputs: 1, heldBytes: SIEGE_BYTES, messages: 3 });
    expect(pool.holdersOf(heldInputOf(entry))).toBe(1);
    pool.dispose();
  });

  it('released (Clear, an element gone), the worker holds it no more; a later call sends it again', async () => {
    const pool = await threadPool();
    const entry = siegeEntry();
    const held = heldInputOf(entry, () => entry.read());
    const client = () => pool._slots[0].client;
    await pool.call('listPackage', [held, SIEGE]);
    expect(await client().heldByWorker()).toEqual([held.id]);
    expect(keepersOf(held)).toBe(1);
    releaseHeldInputs([entry]);
    expect(pool.holdersOf(held)).toBe(0);
    expect(keepersOf(held)).toBe(0);
    expect(await client().heldByWorker()).toEqual([]);
    // Released is not broken: the next call brings the bytes again.
    const listing = await pool.call('listPackage', [held, SIEGE]);
    expect(listing.counts).toEqual({ names: 4900, imports: 1492, exports: 7531 });
    expect(
      traffic()
        .filter((t) => t.carried)
        .map((t) => t.carried),
    ).toEqual([SIEGE_BYTES, SIEGE_BYTES]);
    pool.dispose();
  });

  it('a worker ended while holding it: the next call goes to a new worker with the bytes', async () => {
    const pool = await threadPool();
    const entry = siegeEntry();
    const held = heldInputOf(entry, () => entry.read());
    const listing = await pool.call('listPackage', [held, SIEGE]);
    pool.endIdleWorkers(); // as Clear and the last element gone do
    expect(InThreadWorker.made[0].terminated).toBe(true);
    const mesh = listing.meshes.find((e) => e.name === 'sg_GL1st');
    const model = await pool.call('decodePackageObject', [held, SIEGE, mesh.index]);
    expect(model.counts.frames).toBe(86);
    expect(InThreadWorker.made).toHaveLength(2);
    expect(InThreadWorker.made[1].posted.map((p) => p.transferred)).toEqual([SIEGE_BYTES]);
    pool.dispose();
  });

  it('a worker that lost it without the page knowing (its instance replaced) says so, and the call is sent again with the bytes', async () => {
    const pool = await threadPool();
    const entry = siegeEntry();
    const held = heldInputOf(entry, () => entry.read());
    const listing = await pool.call('listPackage', [held, SIEGE]);
    InThreadWorker.made[0].forget();
    const texture = listing.textures.find((e) => e.path === GL1ST_SKINS[0][1]);
    const decoded = await pool.call('decodePackageObject', [held, SIEGE, texture.index]);
    expect([decoded.textures[0].width, decoded.textures[0].height]).toEqual([256, 256]);
    // The first try named it alone and was refused; the second carried it.
    expect(traffic()).toEqual([
      { op: 'listPackage', carried: SIEGE_BYTES },
      { op: 'decodePackageObject', carried: 0 },
      { op: 'decodePackageObject', carried: SIEGE_BYTES },
    ]);
    expect(InThreadWorker.made).toHaveLength(1);
    pool.dispose();
  });

  it('calls at once on one worker: the bytes go with the first, the others wait for them and name the id', async () => {
    const pool = await threadPool();
    const entry = siegeEntry();
    const held = heldInputOf(entry, () => entry.read());
    const calls = await Promise.all([0, 1, 2].map(() => pool.call('listPackage', [held, SIEGE])));
    expect(calls.map((l) => l.counts.exports)).toEqual([7531, 7531, 7531]);
    expect(traffic().map((t) => t.carried)).toEqual([SIEGE_BYTES, 0, 0]);
    pool.dispose();
  });

  it('a busy holder and a free worker: the free one is sent the bytes too; both hold it, one copy each', async () => {
    const pool = await threadPool(2);
    const entry = siegeEntry();
    const held = heldInputOf(entry, () => entry.read());
    await pool.call('listPackage', [held, SIEGE]); // the first worker holds it, and has answered
    await Promise.all([pool.call('listPackage', [held, SIEGE]), pool.call('listPackage', [held, SIEGE])]);
    expect(InThreadWorker.made).toHaveLength(2);
    expect(InThreadWorker.made.map((w) => w.posted.map((p) => p.transferred))).toEqual([[SIEGE_BYTES, 0], [SIEGE_BYTES]]);
    expect(pool.holdersOf(held)).toBe(2);
    releaseHeld(held);
    expect(pool.holdersOf(held)).toBe(0);
    expect(await Promise.all(pool._slots.map((s) => s.client.heldByWorker()))).toEqual([[], []]);
    pool.dispose();
  });
});

describe('what a decoder holds stays within its budget, least recently used going first', () => {
  it('overBudget names the oldest until the rest fit, never the input just added', () => {
    const kept = new Map([
      [1, { size: 40, used: 3 }],
      [2, { size: 40, used: 1 }],
      [3, { size: 40, used: 2 }],
      [4, { size: 40, used: 4 }],
    ]);
    expect(overBudget(kept, 100, 4)).toEqual([2, 3]);
    expect(overBudget(kept, 160, 4)).toEqual([]);
    // One larger than the budget is held alone.
    expect(
      overBudget(
        new Map([
          [7, { size: 500, used: 1 }],
          [8, { size: 10, used: 0 }],
        ]),
        100,
        7,
      ),
    ).toEqual([8]);
  });

  it('a worker past its budget is told to let go of the oldest before it takes the next', async () => {
    const pool = await threadPool();
    const client = () => pool._slots[0].client;
    const read = async () => new Uint8Array(readFileSync(`${SAMPLES}upackage/C4.u`)).buffer;
    const one = new HeldInput({ name: 'a.u', size: 1045395, read });
    const two = new HeldInput({ name: 'b.u', size: 1045395, read });
    await pool.call('listPackage', [one, 'C4.u']);
    client()._held.budget = 1.5e6; // room for one of them
    await pool.call('listPackage', [two, 'C4.u']);
    expect(InThreadWorker.made[0].posted.map((p) => p.op)).toEqual(['listPackage', 'releaseHeld', 'listPackage']);
    expect(await client().heldByWorker()).toEqual([two.id]);
    expect([pool.holdersOf(one), pool.holdersOf(two)]).toEqual([0, 1]);
    pool.dispose();
  });
});

describe.skipIf(!HAVE_SAMPLES)("UE1 packages held in Node's decoder (CLI, loaders)", () => {
  it('the package is copied into the instance once for its tables, a mesh and its textures', async () => {
    const d = await decoder();
    const before = { ...d.sent };
    const decoded = await decodeFiles([siegeEntry()], d, { objects: ['sg_GL1st'] });
    expect(await slotPictures(decoded, d)).toEqual(GL1ST_SKINS.map(([, path, w, h]) => [path, w, h, w * h * 4]));
    expect(d.sent.heldInputs - before.heldInputs).toBe(1);
    expect(d.sent.heldBytes - before.heldBytes).toBe(SIEGE_BYTES);
  });

  it("decodePackageMesh finds a mesh's slot textures by object path, else by name in its own package (§11.5)", async () => {
    const { module: M } = await decoder();
    const bytes = new Uint8Array(readFileSync(`${SAMPLES}upackage/${SIEGE}`));
    const listing = M.listPackage(bytes, SIEGE);
    const pictures = listing.textures.filter((e) => e.className !== 'Palette');
    const table = { name: listing.name, paths: pictures.map((e) => e.path), indices: pictures.map((e) => e.index) };
    const mesh = listing.meshes.find((e) => e.name === 'sg_GL1st');
    const model = M.decodePackageMesh(bytes, SIEGE, mesh.index, table);
    expect(model.slotTextures.map((t) => [t.index, t.decoded.textures[0].width])).toEqual(GL1ST_SKINS.map(([i, , w]) => [i, w]));
    // Another group of the same package: found by name; another package: not here.
    const slots = {
      materials: [
        { textureNames: ['SiegeIV_0032beta9.Elsewhere.Jsg_GL1st2', 'Jsg_GL1st2'] },
        { textureNames: ['Botpack.Skins.tloc4', 'tloc4'] },
      ],
    };
    expect(slotTextureIndices(slots, table)).toEqual([5779]);
    // Without the table, the mesh alone.
    expect(M.decodePackageMesh(bytes, SIEGE, mesh.index, null).slotTextures).toBeUndefined();
  });
});
