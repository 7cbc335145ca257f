// sceneObjects' `built` option (<rigscope-viewer> drawing a folder while it decodes): a scene
// assembled again over more of the drop keeps the characters whose make-up did not change (the same
// objects, with the new scene's textures put on), and builds only what is new.
import { describe, expect, it } from 'vitest';
import { decodeFiles } from '../../web/src/families/index.js';
import { sceneObjects } from '../../web/src/three/scene-objects.js';
import { entriesFromPaths } from '../../web/cli/entries.js';
import { decoder, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const TRASHBAG = `${SAMPLES}vertex3d/trashbag/`;
const mapped = (c) => c.materials.filter((m) => m.map).length;

describe('sceneObjects keeps what was built', () => {
  it.skipIf(!HAVE_SAMPLES)('the whole folder after part of it: the characters drawn are kept and get their textures', async () => {
    const d = await decoder();
    const all = await entriesFromPaths([TRASHBAG]);
    const noTextures = all.filter((e) => !/\.pcx$/i.test(e.name));
    // Part of the folder: no textures, some meshes not yet, and the plaque without its script (which
    // names its sequence: the whole folder gives it another clip, so it is built again).
    const half = noTextures.filter((e) => !/^(coin|steak|trashbag_)|^TrashbagPlaque\.uc$/i.test(e.name));
    const early = await sceneObjects(await decodeFiles(half, d), d, { built: new Map() });
    expect(early.characters.length).toBeGreaterThan(2);
    expect(early.added).toEqual(early.characters);
    expect(early.characters.map(mapped).every((n) => n === 0)).toBe(true);
    const plaque = early.characters.find((c) => c.name === 'plaque2a_d.3d');
    expect(plaque.clips.map((k) => k.name)).toEqual(['All']);

    const stood = new Map(early.characters.map((c) => [c, c.root.position.toArray()]));
    const whole = await sceneObjects(await decodeFiles(all, d), d, { built: early.built });
    const byName = new Map(whole.characters.map((c) => [c.name, c]));
    const rebuilt = byName.get('plaque2a_d.3d');
    expect(rebuilt).not.toBe(plaque);
    expect(rebuilt.clips.map((k) => k.name)).toEqual(['All', 'PLAQUE2A']);
    for (const c of early.characters) if (c !== plaque) expect(byName.get(c.name)).toBe(c);
    const kept = early.characters.filter((c) => c !== plaque);
    expect(whole.added.map((c) => c.name).sort()).toEqual(
      whole.characters
        .filter((c) => !kept.includes(c))
        .map((c) => c.name)
        .sort(),
    );
    expect(whole.added.map((c) => c.name)).toEqual(expect.arrayContaining(['plaque2a_d.3d', 'steak_d.3d', 'trashbag_d.3d']));
    // Kept characters show the new scene (its materials) and the textures it gives them; they stay
    // where they were drawn (the caller moves them to their new place: the element glides them),
    // while new characters stand where the scene puts them.
    for (const c of kept) {
      expect(whole.scene.characters).toContain(c.scene);
      expect(c.root.position.toArray()).toEqual(stood.get(c));
    }
    expect(kept.some((c) => c.scene.offset && !c.root.position.equals(c.root.position.clone().fromArray(c.scene.offset)))).toBe(true);
    for (const c of whole.added) if (c.scene.offset) expect(c.root.position.toArray()).toEqual(c.scene.offset);
    expect(byName.get('Hamburger01_d.3d')).toBe(early.characters.find((c) => c.name === 'Hamburger01_d.3d'));
    expect(mapped(byName.get('Hamburger01_d.3d'))).toBeGreaterThan(0);
    // Without `built` (the loaders), every character is new.
    const fresh = await sceneObjects(await decodeFiles(all, d), d);
    expect(fresh.added).toEqual(fresh.characters);
  });
});
