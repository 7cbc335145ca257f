// Skate 3 (PS3) PSG RenderWare 4 arenas: model arenas (meshes whose materials name textures by
// GUID) and texture arenas (textures named by GUID in the table of contents).
import { decoderInput, opensWith } from '../core/files.js';

export default {
  id: 'psg',
  label: 'Skate 3 PSG',
  kinds: ['psg'],
  fileNames: /\.psg$/i, // worth fetching from a repository folder (core/repo.js)
  /** RenderWare 4's magic at offset 0, as wasm/src/formats/detect.cpp reads it. */
  detect: (head) => (opensWith(head, '\x89RW4') ? 'psg' : null),

  plan(byKind) {
    return {
      jobs: byKind('psg').map((item) => ({
        op: 'decodePsg',
        inputs: [item],
        args: async () => [await decoderInput(item.entry), item.entry.name],
      })),
      records: [],
    };
  },
};
