// A drawing of part of a drop that still waits (for its textures or its shaders' links) when the
// whole drop is decoded stops there: the drop's last assembly brings in what it built, each
// character once, instead of starting only after it (issue #41: the vertex3d folder's last
// assembly waited 180-390 ms for an early drawing of two characters).
import { describe, expect, it } from 'vitest';
import { App } from '../../web/src/app/app.js';
import { decodeFiles } from '../../web/src/families/index.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { decoder, fakeViewer, fixture } from './helpers.js';

/**
 * A viewer that records what enters and leaves it. Its shader links (compileFor) are done at once,
 * except those of the drawings listed in `stalled` (1 the first early drawing, 2 the next...):
 * those wait until the drawing is stopped, as a busy GPU process would make them wait.
 */
function recordingViewer(stalled) {
  const viewer = {
    ...fakeViewer(),
    shown: async () => {},
    characters: [],
    added: [],
    removed: [],
    compiles: 0,
    stopped: 0,
    add(c) {
      viewer.added.push(c);
      viewer.characters.push(c);
    },
    remove(c) {
      viewer.removed.push(c);
      viewer.characters = viewer.characters.filter((x) => x !== c);
    },
    compileFor(roots, { signal } = {}) {
      viewer.compiles++;
      if (!signal || !stalled.includes(viewer.compiles)) return Promise.resolve();
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => {
          viewer.stopped++;
          resolve();
        }),
      );
    },
  };
  return viewer;
}

let host;
const decode = (names) =>
  decodeFiles(
    names.map((name) => entryFromBytes(`mod/${name}`, fixture(name))),
    host,
  );
const one = { meshes: [{}] };

describe('an early drawing still waiting when its drop is decoded', () => {
  it('stops, and the last assembly shows what it built, each character once, built once', async () => {
    host = await decoder();
    const first = await decode(['two_bone.psk']);
    const two = await decode(['two_bone.psk', 'static.pskx']);
    const whole = await decode(['two_bone.psk', 'static.pskx', 'arm.pmd', 'knight_body.psk']);
    const viewer = recordingViewer([2]);
    const app = new App(viewer, host);

    const early = app._drawEarly({ replace: false, demo: false });
    await early.decoded(one, first); // the first look: drawn, in the view
    expect(viewer.characters.map((c) => c.name)).toEqual(['two_bone.psk']);
    const drawing = early.decoded(one, two); // two models: drawn again, and stuck linking
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(viewer.compiles).toBe(2);
    const builtEarly = [...app.characters];
    expect(builtEarly.map((c) => c.name).sort()).toEqual(['static.pskx', 'two_bone.psk']);

    // The whole drop is decoded: the drawing stops at once (unstopped, it never would here).
    early.stop();
    await Promise.all([early.settled(), drawing]);
    expect(viewer.stopped).toBe(1);
    expect(viewer.characters.map((c) => c.name)).toEqual(['two_bone.psk']); // the stopped one brought nothing in
    expect(early.added.map((c) => c.name).sort()).toEqual(['static.pskx', 'two_bone.psk']);

    for (const k of Object.keys(app.decoded)) app.decoded[k].push(...whole[k]);
    const last = await app._assemble();
    // Every character of the drop is in the view once; those built early are the same objects.
    expect(viewer.characters.map((c) => c.name).sort()).toEqual(['arm.pmd', 'knight_body.psk', 'static.pskx', 'two_bone.psk']);
    expect(new Set(viewer.added).size).toBe(viewer.added.length);
    expect(viewer.added.length).toBe(4);
    expect(viewer.removed).toEqual([]);
    expect(app.characters.filter((c) => builtEarly.includes(c)).length).toBe(2);
    expect(last.map((c) => c.name).sort()).toEqual(['arm.pmd', 'knight_body.psk']);
    expect(new Set(viewer.characters)).toEqual(new Set(app.characters));
  });

  it('a drawing stopped with characters the drop no longer has: the last assembly takes them out', async () => {
    host ??= await decoder();
    const first = await decode(['two_bone.psk']);
    const two = await decode(['two_bone.psk', 'static.pskx']);
    const viewer = recordingViewer([2]);
    const app = new App(viewer, host);
    const early = app._drawEarly({ replace: false, demo: false });
    await early.decoded(one, first);
    const drawing = early.decoded(one, two);
    await new Promise((resolve) => setTimeout(resolve, 50));
    early.stop();
    await Promise.all([early.settled(), drawing]);
    // The whole drop turned out to be another set (the early one's files failed, say): the last
    // assembly has only the knight, and nothing built early stays in the view.
    app.decoded = await decode(['knight_body.psk']);
    await app._assemble();
    expect(viewer.characters.map((c) => c.name)).toEqual(['knight_body.psk']);
    // Both built early go: the one shown leaves the view, the one never shown is freed the same way.
    expect(viewer.removed.map((c) => c.name).sort()).toEqual(['static.pskx', 'two_bone.psk']);
    expect(app.characters.map((c) => c.name)).toEqual(['knight_body.psk']);
  });
});
