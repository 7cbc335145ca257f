// A drop of textures alone (texture arenas, PCX, images): one textured quad per texture in a row,
// each 1 × 1 at most, keeping its aspect, bottom edges on y = 0, named by a label.
import { Character } from './character.js';
import { assignTexture, textureOfRecord } from './textures.js';

/** @returns {Promise<Character|null>} the board, or null when no texture could be decoded */
export async function buildTextureBoard(records, report, decoder) {
  const loaded = [];
  for (const record of records) {
    try {
      await textureOfRecord(record, decoder);
      loaded.push(record);
    } catch (err) {
      report.push({ kind: 'refused', files: [record.path], reason: err.message });
    }
  }
  if (!loaded.length) return null;
  const n = loaded.length;
  const positions = new Float32Array(n * 12),
    normals = new Float32Array(n * 12),
    uv = new Float32Array(n * 8);
  const indices = new Uint32Array(n * 6);
  const groups = [],
    materials = [],
    attachments = [],
    info = {};
  let x = 0;
  loaded.forEach((record, i) => {
    const { width = 1, height = 1 } = record.texture.image ?? {};
    const w = width >= height ? 1 : width / height,
      h = width >= height ? height / width : 1;
    positions.set([x, 0, 0, x + w, 0, 0, x + w, h, 0, x, h, 0], i * 12);
    for (let k = 0; k < 4; k++) normals[i * 12 + k * 3 + 2] = 1;
    uv.set([0, 0, 1, 0, 1, 1, 0, 1], i * 8);
    indices.set(
      [0, 1, 2, 0, 2, 3].map((k) => i * 4 + k),
      i * 6,
    );
    groups.push({ start: i * 6, count: 6, material: i });
    materials.push({ name: record.name, textureNames: [], blend: 'opaque', twoSided: true, unlit: true });
    attachments.push({ name: record.name, bone: -1, translation: [x + w / 2, -0.08, 0], rotation: [0, 0, 0, 1] });
    const d = record.decoded;
    info[record.name] =
      `${width}×${height}${d ? ` ${d.format}, ${d.mips.length} mip${d.mips.length === 1 ? '' : 's'}` : ''}${record.guid ? `, GUID ${record.guid}` : ''}`;
    x += w + 0.25;
  });
  const files = [...new Set(loaded.map((r) => r.path))];
  const board = new Character({
    file: files.join(', '),
    format: 'textures',
    warnings: [],
    counts: { textures: n },
    info,
    meshes: [{ name: 'textures', positions, normals, uvs: [uv], indices, groups }],
    materials,
    attachments,
    clips: [],
  });
  board.textureBoard = true;
  board.materials.forEach((m, i) => assignTexture(m, loaded[i].texture));
  // The names are labels; axes markers of attachment points mean nothing here.
  board.labelsOnly = true;
  return board;
}
