// The three.js side of an assembled scene, for the loaders and <rigscope-viewer>: a Character
// per scene character, each material with the texture (and maps) the scene chose for it, and
// vertex-animated meshes that pose themselves before each render.
import { assembleScene } from '../families/index.js';
import { Character } from './character.js';
import { assignTexture, textureOfRecord } from './textures.js';
import { applyMaterialMaps } from './material-maps.js';

/** Puts each scene material's texture (and its maps) on the character's three.js material. */
async function applyTextures(character, decoder, records) {
  for (const c of character.tree()) {
    for (const entry of c.scene.materials) {
      if (!entry.texture) continue;
      const material = c.materials.find((m) => m.userData.model === entry.model && m.userData.index === entry.index);
      if (!material) continue;
      const textureOf = (record) => textureOfRecord(record, decoder);
      try {
        if (entry.maps) await applyMaterialMaps(material, { ...entry.maps, base: entry.texture }, textureOf, { blend: entry.blend });
        else assignTexture(material, await textureOf(entry.texture));
      } catch (err) {
        records.push({ kind: 'refused', files: [entry.texture.path], reason: err.message });
      }
    }
  }
}

/**
 * Assembles what decodeFiles() made of a file set and builds it.
 * @param {object} decoded decodeFiles()'s result
 * @param {{ call(op: string, args: any[]): Promise<any> }} decoder decodes TGA, BMP and DDS textures
 * @param {{ layout?: boolean }} [options] layout: false for the loaders, which lay out nothing
 *   (no side-by-side offsets, no sky-dome test): an app places what it loads itself
 * @returns {Promise<{ scene: object, characters: Character[] }>}
 */
export async function sceneObjects(decoded, decoder, { layout = true } = {}) {
  const scene = await assembleScene(decoded, { layout });
  const characters = scene.characters.map((sc) => new Character(sc));
  for (const c of characters) {
    await applyTextures(c, decoder, scene.records);
    // Vertex-animated meshes (UE1) write their pose before each render, so a plain
    // AnimationMixer plays their clips; without rendering (Node), call character.update().
    for (const part of c.tree()) for (const va of part.vertexAnimations) va.mesh.onBeforeRender = () => va.update();
    // Unrelated models stand side by side where the scene lays them out.
    if (c.scene.offset) c.root.position.fromArray(c.scene.offset);
  }
  return { scene, characters };
}
