// The three.js side of an assembled scene, for the loaders and <rigscope-viewer>: a Character
// per scene character, each material with the texture (and maps) the scene chose for it, and
// vertex-animated meshes that pose themselves before each render.
import { assembleScene } from '../families/index.js';
import { Character } from './character.js';
import { assignTexture, removeTexture, textureOfRecord } from './textures.js';
import { applyMaterialMaps, clearMaterialMaps } from './material-maps.js';

/**
 * What makes a character: rebuilt only when this changes. Its name is in it: a part shown at a
 * level other than its finest is named after that finest file, which may be decoded after the
 * level shown was drawn (a Character keeps the name it was built with).
 */
export function signature(sc) {
  const props = sc.props.map((p) => `${p.point}:${signature(p.character)}`).join(',');
  return `${sc.id}|${sc.name}|${sc.models.map((m) => m.file).join(',')}|${sc.clips.map((c) => `${c.file}:${c.name}`).join(',')}|${props}`;
}

/**
 * The texture record each material of a kept character shows (only for callers that keep
 * characters: the loaders' materials hold no record).
 * @type {WeakMap<object, object | null>}
 */
const shownRecord = new WeakMap();

/**
 * Puts each scene material's texture (and its maps) on the character's three.js material. With
 * `track`, a material that already shows its record is left as it is, and one whose scene now
 * gives it no texture loses the one it had (drawn early from part of a drop). With `early` (a
 * drawing made while the load goes on), a texture whose bytes are still to be fetched
 * (`awaitsFetch`: a package read in parts) is asked for but not waited for: the model is drawn
 * without it, and the load's last drawing puts it on.
 */
async function applyTextures(character, decoder, records, { track, early }) {
  const started = new Set();
  const materialOf = (c, entry, same) => c.materials.find((m) => same(m.userData.model, entry.model) && m.userData.index === entry.index);
  for (const c of character.tree()) {
    for (const entry of c.scene.materials) {
      // A kept character may have been built from an earlier decode of the same files (a drop's
      // first look): its materials are then known by their model's file.
      const material = materialOf(c, entry, (a, b) => a === b) ?? (track ? materialOf(c, entry, (a, b) => a.file === b.file) : undefined);
      if (!material) continue;
      if (track && (shownRecord.get(material) ?? null) === (entry.texture ?? null)) continue;
      if (!entry.texture) {
        if (track) {
          clearMaterialMaps(material);
          removeTexture(material);
          shownRecord.set(material, null);
        }
        continue;
      }
      const textureOf = (record) => textureOfRecord(record, decoder);
      // All of this part's textures are asked for at its first, so they decode side by side on the
      // decoder's workers; asked for one by one, each waited for the one before (for a UE1
      // package: a round trip, a copy of the package and its tables read again).
      if (!started.has(c)) {
        started.add(c);
        for (const e of c.scene.materials) if (e.texture && !e.maps) textureOf(e.texture).catch(() => {}); // failures: below
      }
      if (early && entry.texture.awaitsFetch?.()) continue;
      try {
        if (entry.maps) await applyMaterialMaps(material, { ...entry.maps, base: entry.texture }, textureOf, { blend: entry.blend });
        else assignTexture(material, await textureOf(entry.texture));
        if (track) shownRecord.set(material, entry.texture);
      } catch (err) {
        records.push({ kind: 'refused', files: [entry.texture.path], reason: err.message });
      }
    }
  }
}

/** A kept character and its props take the scene characters of the new assembly (same make-up). */
function takeScene(character, sc) {
  character.scene = sc;
  for (const prop of character.props) {
    const next = sc.props.find((p) => p.character.id === prop.scene.id);
    if (next) takeScene(prop, next.character);
  }
}

/**
 * Assembles what decodeFiles() made of a file set and builds it.
 * @param {object} decoded decodeFiles()'s result
 * @param {{ call(op: string, args: any[]): Promise<any> }} decoder decodes TGA, BMP and DDS textures
 * @param {{ layout?: boolean, built?: Map<string, Character>, [assembly: string]: any }} [options]
 *   layout: false for the loaders, which lay out nothing (no side-by-side offsets, no sky-dome
 *   test): an app places what it loads itself.
 *   built: characters built from an earlier assembly of the same drop (signature -> Character, as
 *   this returns them); one whose make-up did not change is kept, brought up to date (its scene,
 *   place and textures), not built again.
 *   early: a drawing made while the load goes on; textures still to be fetched are not waited for.
 *   Other options (lod…) go to assembleScene.
 * @returns {Promise<{ scene: object, characters: Character[], added: Character[], built: Map<string, Character> }>}
 *   added: the characters made by this call; built: every character by signature
 */
export async function sceneObjects(decoded, decoder, { layout = true, built: before, early = false, ...assembly } = {}) {
  const scene = await assembleScene(decoded, { layout, ...assembly });
  const built = new Map();
  const added = [];
  const characters = scene.characters.map((sc) => {
    const sig = signature(sc);
    let character = before?.get(sig);
    if (character) takeScene(character, sc);
    else {
      character = new Character(sc);
      added.push(character);
    }
    built.set(sig, character);
    return character;
  });
  const isNew = new Set(added);
  for (const c of characters) {
    await applyTextures(c, decoder, scene.records, { track: !!before, early });
    if (isNew.has(c)) {
      // Vertex-animated meshes (UE1) write their pose before each render, so a plain
      // AnimationMixer plays their clips; without rendering (Node), call character.update().
      for (const part of c.tree()) for (const va of part.vertexAnimations) va.mesh.onBeforeRender = () => va.update();
    }
    // Unrelated models stand side by side where the scene lays them out. A kept character is on
    // screen (and may be gliding): its caller moves it to its new place.
    if (c.scene.offset && isNew.has(c)) c.root.position.fromArray(c.scene.offset);
  }
  return { scene, characters, added, built };
}
