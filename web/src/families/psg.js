// Skate 3 (PS3) PSG RenderWare 4 arenas: model arenas (meshes whose materials name textures by
// GUID) and texture arenas (textures named by GUID in the table of contents).
import { decoderInput } from '../core/files.js';

export default {
  id: 'psg',
  label: 'Skate 3 PSG',
  kinds: ['psg'],
  fileNames: /\.psg$/i, // worth fetching from a repository folder (core/repo.js)

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
