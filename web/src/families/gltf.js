// glTF binary (.glb): Rigscope's own exports, compressed or not, and any other GLB with meshes,
// a skin and clips. Read in JavaScript (gltf-model.js, loaded only when a GLB is opened, as the
// one module scripts/build-standalone.mjs bundles it into, so that apps bundling Rigscope meet no
// Node built-in of glTF-Transform's), not by
// the WASM decoders; each GLB is a model of its own and becomes a character of its own.
import { extension } from '../core/files.js';

export default {
  id: 'gltf',
  label: 'glTF',
  kinds: ['glb'],
  claims: (name) => (extension(name) === 'glb' ? 'glb' : null),
  plan(byKind) {
    return {
      jobs: byKind('glb').map((item) => ({
        inputs: [item],
        // Decoded here, not by a worker op: the decoders are WASM, and a GLB is glTF-Transform's.
        decode: async () => (await import('../../../build/gltf/gltf-model.js')).decodeGlb(await item.entry.read(), item.entry.name),
      })),
      records: [],
    };
  },
};
