// Texture files that sit beside models: nothing to decode up front. They become texture records
// that materials pick by name, slot, sidecar or as the only texture, and are decoded when used.
import { IMAGE_EXTENSIONS, extension } from '../core/files.js';

export default {
  id: 'images',
  label: 'images',
  kinds: ['image'],
  claims: (name) => (IMAGE_EXTENSIONS.has(extension(name)) ? 'image' : null),
  plan: () => ({ jobs: [], records: [] }),
};
