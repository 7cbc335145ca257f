import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FAMILIES, decodeFiles } from '../../web/src/families/index.js';
import { FIRST_LOOK } from '../../web/src/core/fileset.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { detectByHead } from '../../web/src/core/registry.js';
import { FIXTURES, SAMPLES, decoder, fixture } from './helpers.js';

const text = (s) => new TextEncoder().encode(s);

describe('file sets', () => {
  it('pairs a .psa with its UE Viewer .config sidecar and honours [RemoveTracks]', async () => {
    const d = await decoder();
    const plain = await decodeFiles([entryFromBytes('two_bone.psa', fixture('two_bone.psa'))], d);
    const set = await decodeFiles(
      [
        entryFromBytes('anims/two_bone.psa', fixture('two_bone.psa')),
        entryFromBytes('anims/Two_Bone.config', text('[RemoveTracks]\nBend.1=all\n')),
      ],
      d,
    );
    expect(set.records).toEqual([{ kind: 'paired', files: ['anims/two_bone.psa', 'anims/Two_Bone.config'], via: 'sidecar' }]);
    const bones = (s) => s.animations[0].clips[0].tracks.map((t) => t.bone);
    expect(bones(plain)).toEqual([0, 1]);
    expect(bones(set)).toEqual([0]);
    expect(set.animations[0].warnings.join(' ')).toMatch(/config/i);
  });

  it('detects formats by content, not by extension', async () => {
    const d = await decoder();
    const set = await decodeFiles(
      [
        entryFromBytes('looks_like_a.pmd', fixture('two_bone.psk')), // really a PSK
        entryFromBytes('animation.psa', fixture('arm_wave.psa')), // 0 A.D. PSSA, not Unreal
        entryFromBytes('model.psk', text('not a model at all')),
      ],
      d,
    );
    expect(set.models.map((m) => [m.file, m.format, m.family])).toEqual([['looks_like_a.pmd', 'psk', 'unreal']]);
    expect(set.animations.map((m) => [m.file, m.format, m.family])).toEqual([['animation.psa', 'pssa', 'zeroad']]);
    expect(set.records).toEqual([
      { kind: 'unused', files: ['model.psk'], reason: 'not a format Rigscope reads (detected by content, not extension)' },
    ]);
  });

  it('lists what is missing: an animation file without its mesh data file', async () => {
    const d = await decoder();
    const set = await decodeFiles([entryFromBytes('flag_a.3d', fixture('flag_a.3d'))], d);
    expect(set.records).toEqual([
      { kind: 'missing', files: ['flag_a.3d'], needs: 'flag_d.3d', reason: 'its data file (triangles live there)' },
    ]);
  });

  it('keeps files of the same name in different folders apart', async () => {
    const d = await decoder();
    const set = await decodeFiles(
      [entryFromBytes('ModA/two_bone.psk', fixture('two_bone.psk')), entryFromBytes('ModB/two_bone.psk', fixture('two_bone.psk'))],
      d,
    );
    expect(set.models.map((m) => m.file)).toEqual(['ModA/two_bone.psk', 'ModB/two_bone.psk']);
  });

  it('keeps the rest of a drop when one file cannot be read, naming it', async () => {
    const d = await decoder();
    const broken = {
      name: 'gone.psk',
      path: 'mod/gone.psk',
      size: 100,
      read: () => Promise.reject(Object.assign(new Error('x'), { name: 'NotReadableError' })),
      readHead: () => Promise.reject(Object.assign(new Error('x'), { name: 'NotReadableError' })),
    };
    const set = await decodeFiles([broken, entryFromBytes('mod/two_bone.psk', fixture('two_bone.psk'))], d);
    expect(set.models.map((m) => m.file)).toEqual(['mod/two_bone.psk']);
    expect(set.records).toEqual([
      {
        kind: 'refused',
        files: ['mod/gone.psk'],
        reason: 'could not be read: the browser could not read it (moved, deleted or too large to read)',
      },
    ]);
  });

  it('names a file too large to read into memory, and keeps the rest', async () => {
    const d = await decoder();
    const huge = {
      ...entryFromBytes('big/huge.psk', fixture('two_bone.psk')),
      size: 2 ** 31,
      read: () => Promise.reject(new RangeError('Array buffer allocation failed')),
    };
    const set = await decodeFiles([huge, entryFromBytes('big/two_bone.psk', fixture('two_bone.psk'))], d);
    expect(set.models.map((m) => m.file)).toEqual(['big/two_bone.psk']);
    expect(set.records).toEqual([
      { kind: 'refused', files: ['big/huge.psk'], reason: 'huge.psk is too large to read into memory (2147483648 bytes)' },
    ]);
  });

  it('sends the largest file to the decoders first and files each decode as it comes, the result in the same order', async () => {
    const d = await decoder();
    const names = ['two_bone_cap.psk', 'knight_armour.psk', 'knight_body.psk', 'morph.psk'];
    const entries = () => names.map((n) => entryFromBytes(n, fixture(n)));
    const plain = await decodeFiles(entries(), d);
    // The largest (morph.psk) answers only once another file has been filed beside it.
    const sent = [];
    const filed = [];
    let another;
    const besides = new Promise((resolve) => (another = resolve));
    const holding = {
      workerLimit: 2,
      call: async (op, args) => {
        if (op !== 'decodePsk') return d.call(op, args);
        sent.push(args[1]);
        const r = await d.call(op, args);
        if (args[1] === 'morph.psk') await besides;
        return r;
      },
    };
    const set = await decodeFiles(entries(), holding, {
      onDecoded: (decoded) => {
        filed.push(decoded.file);
        another();
      },
    });
    expect(sent[0]).toBe('morph.psk');
    expect(sent.slice(1)).toEqual(['two_bone_cap.psk', 'knight_armour.psk', 'knight_body.psk']);
    expect(filed.at(-1)).toBe('morph.psk');
    expect(set.models.map((m) => m.file)).toEqual(plain.models.map((m) => m.file));
  });

  it('stops the whole batch when cancelled, listing what was not decoded', async () => {
    const d = await decoder();
    // Cancel arrives while the first file decodes: it and the file read ahead beside it finish,
    // the others are not started.
    let cancelled = false;
    const started = [];
    const cancelling = {
      workerLimit: 1, // one decoding, one read ahead
      call: async (op, args) => {
        if (op === 'decodePsk') started.push(args[1]);
        const r = await d.call(op, args);
        if (op === 'decodePsk') cancelled = true;
        return r;
      },
    };
    const set = await decodeFiles(
      ['a', 'b', 'c', 'd'].map((n) => entryFromBytes(`${n}.psk`, fixture('two_bone.psk'))),
      cancelling,
      { isCancelled: () => cancelled },
    );
    expect(started).toEqual(['a.psk', 'b.psk']);
    expect(set.models.map((m) => m.file)).toEqual(['a.psk', 'b.psk']);
    expect(set.records.map((r) => [r.kind, r.files[0], r.reason])).toEqual([
      ['refused', 'c.psk', 'decoding was cancelled'],
      ['refused', 'd.psk', 'decoding was cancelled'],
    ]);
  });

  it('shows a large drop from its first files before the last head is read, and decodes nothing twice', async () => {
    const d = await decoder();
    const count = FIRST_LOOK + 36;
    const paths = Array.from({ length: count }, (_, i) => `mod${String(i).padStart(3, '0')}/two_bone.psk`);
    let firstSeen; // the first onDecoded: which model, how many in its result so far
    let timedOut = false;
    const gate = new Promise((resolve) => {
      const release = setInterval(() => firstSeen && (clearInterval(release), resolve()), 1);
      setTimeout(() => {
        timedOut = !firstSeen;
        clearInterval(release);
        resolve();
      }, 5000);
    });
    const entries = paths.map((path, i) => {
      const entry = entryFromBytes(path, fixture('two_bone.psk'));
      // The last file's head arrives only once something has been shown.
      if (i === count - 1) {
        const readHead = entry.readHead;
        entry.readHead = async (n) => (await gate, readHead(n));
      }
      return entry;
    });
    let decodes = 0;
    const keptSoFar = [];
    const counting = { call: (op, args) => ((decodes += op === 'decodePsk'), d.call(op, args)) };
    const set = await decodeFiles(entries, counting, {
      onDecoded: (decoded, soFar) => {
        if (firstSeen) keptSoFar.push(soFar.models.some((m) => m.file === firstSeen.file));
        firstSeen ??= { file: decoded.file, models: soFar.models.length };
      },
    });
    // The model drawn first stays in the result so far: the page never takes it away to draw it again.
    expect(keptSoFar.length).toBe(count - 1);
    expect(keptSoFar.every(Boolean)).toBe(true);
    expect(timedOut).toBe(false);
    expect(firstSeen.models).toBe(1);
    expect(paths.slice(0, FIRST_LOOK)).toContain(firstSeen.file);
    expect(set.models.map((m) => m.file)).toEqual(paths);
    expect(decodes).toBe(count);
  });

  it('reads no more heads while the first look is being drawn, and reads them all after', async () => {
    const d = await decoder();
    const count = FIRST_LOOK + 40;
    let reads = 0;
    const entries = Array.from({ length: count }, (_, i) => {
      const entry = entryFromBytes(`mod${i}/two_bone.psk`, fixture('two_bone.psk'));
      const readHead = entry.readHead;
      // Past the first look, heads come slowly, as from a browser's file store under load.
      const slow = i >= FIRST_LOOK ? () => new Promise((resolve) => setTimeout(resolve, 50)) : async () => {};
      return { ...entry, readHead: async (n) => (reads++, await slow(), readHead(n)) };
    });
    let drawn; // resolves the first drawing, as the page does once its first frame is shown
    let readsWhenShown = -1;
    let readsWhenDrawn = -1;
    const set = await decodeFiles(entries, d, {
      onDecoded: (decoded, soFar) => {
        if (readsWhenShown >= 0) return undefined;
        readsWhenShown = reads;
        return new Promise((resolve) => {
          drawn = resolve;
          // Other reads had their turn to run meanwhile, if they were let.
          setTimeout(() => ((readsWhenDrawn = reads), drawn()), 150);
        });
      },
    });
    // The first look's heads, and those already asked for (a few in flight), but no new ones.
    expect(readsWhenShown).toBeGreaterThanOrEqual(FIRST_LOOK);
    expect(readsWhenShown).toBeLessThan(count);
    expect(readsWhenDrawn).toBe(readsWhenShown);
    expect(reads).toBe(count);
    expect(set.models).toHaveLength(count);
  });

  it("fails the drop with the decoder's error when detecting fails, after every call has ended", async () => {
    const d = await decoder();
    let calls = 0;
    const failing = {
      call: (op, args) => {
        if (op === 'detectFormats' && ++calls === 1) return Promise.reject(new Error('rigscope: flag_d.3d: the decoder was restarted'));
        return d.call(op, args);
      },
    };
    // More files than one first-look call: the second call is made and ends before the drop fails.
    // (UE1 data files: no tag JavaScript knows, so the decoders detect them.)
    const entries = Array.from({ length: FIRST_LOOK + 6 }, (_, i) => entryFromBytes(`m${i}/flag_d.3d`, fixture('flag_d.3d')));
    await expect(decodeFiles(entries, failing, { onDecoded: () => {} })).rejects.toThrow('flag_d.3d: the decoder was restarted');
    expect(calls).toBe(2);
  });
});

describe('a drop of thousands of files', () => {
  it('is read and filed in many short tasks, not one long task', async () => {
    // Each head read costs its caller's thread a little, as a browser's file store does (0.2 ms).
    const spin = (ms) => {
      for (const end = performance.now() + ms; performance.now() < end;);
    };
    const entries = Array.from({ length: 600 }, (_, i) => {
      const e = entryFromBytes(`mod${i % 60}/note${i}.bin`, text(`note ${i}`));
      const readHead = e.readHead;
      return { ...e, readHead: (n) => (spin(0.2), readHead(n)) };
    });
    // Detection answers at once (no worker, no task of its own): only the drop's own breaks end a task.
    const decoder = { call: async (op, [, , sizes]) => (op === 'detectFormats' ? sizes.map(() => null) : null) };
    // Where each task begins: a timer's callback starts one.
    const starts = [performance.now()];
    const setTimeoutBefore = globalThis.setTimeout;
    globalThis.setTimeout = (fn, ms, ...a) => setTimeoutBefore(() => (starts.push(performance.now()), fn(...a)), ms);
    let set;
    try {
      set = await decodeFiles(entries, decoder);
    } finally {
      globalThis.setTimeout = setTimeoutBefore;
    }
    starts.push(performance.now());
    expect(set.records).toHaveLength(600);
    expect(set.records.every((r) => r.kind === 'unused')).toBe(true);
    // 120 ms of reads (at least: a slower machine spins as long) cut every 12 ms: about ten tasks.
    expect(starts.length).toBeGreaterThan(6);
  });
});

describe('kinds known by their tag in JavaScript', () => {
  const models = /\.(psk|pskx|psa|pmd|psg|3d|uc|u|utx|config)$/i;
  // The project's fixtures, and the real samples when ../shared is there.
  const files = [FIXTURES, SAMPLES]
    .filter((dir) => existsSync(dir))
    .flatMap((dir) =>
      readdirSync(dir, { recursive: true })
        .map((f) => join(dir, String(f)))
        .filter((f) => models.test(f) && statSync(f).isFile()),
    );

  it("are the kinds the decoders' detectFormat finds, in every fixture and sample", async () => {
    const d = await decoder();
    const found = new Set();
    for (const path of files) {
      const bytes = readFileSync(path);
      const head = new Uint8Array(bytes.subarray(0, 65536));
      const name = basename(path);
      const js = detectByHead(FAMILIES, head, { name, path, size: bytes.length });
      const cpp = await d.call('detectFormat', [head.slice().buffer, bytes.length, name]);
      // A file without a tag is left to the decoders; a tagged one is the kind they say.
      if (js) expect(js, path).toBe(cpp);
      else expect(['psk', 'psa', 'pmd', 'pssa', 'psg', 'upackage'], path).not.toContain(cpp);
      found.add(js);
    }
    expect([...found].filter(Boolean).sort()).toEqual(['pmd', 'psa', 'psg', 'psk', 'pssa', 'upackage']);
  });

  it('need no detection call: a PSK alone is decoded in one call', async () => {
    const d = await decoder();
    const ops = [];
    const recording = { transfersInput: false, call: (op, args) => (ops.push(op), d.call(op, args)) };
    const set = await decodeFiles([entryFromBytes('looks_like_a.pmd', fixture('two_bone.psk'))], recording);
    expect(set.models.map((m) => [m.file, m.format, m.family])).toEqual([['looks_like_a.pmd', 'psk', 'unreal']]);
    expect(ops).toEqual(['decodePsk']);
  });
});
