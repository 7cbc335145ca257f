// Unreal ActorX: .psk/.pskx meshes, .psa animations with UE Viewer's .config sidecar. Animations
// bind to meshes by bone name (the decoders say so: bindBy "name").
import { stem } from '../core/files.js';

const sameStem = (a, b) => stem(a.entry.name).toLowerCase() === stem(b.entry.name).toLowerCase();

/** A sidecar beside its file wins over one of the same name elsewhere in the drop. */
function nearest(item, candidates) {
  const folder = (i) => i.entry.path.slice(0, i.entry.path.length - i.entry.name.length);
  return candidates.find((c) => folder(c) === folder(item)) ?? candidates[0];
}

export default {
  id: 'unreal',
  label: 'Unreal ActorX',
  kinds: ['psk', 'psa', 'config'],
  // PSK material names are texture names (UE Viewer writes the material's name; the texture
  // usually carries the same name).
  textureNamesRule: 'material name',

  plan(byKind, { text }) {
    const jobs = [], records = [];
    const configs = byKind('config');
    const used = new Set();
    for (const item of byKind('psk')) jobs.push({ op: 'decodePsk', inputs: [item], args: async () => [await item.entry.read(), item.entry.name] });
    for (const item of byKind('psa')) {
      const config = nearest(item, configs.filter((c) => sameStem(c, item)));
      if (config) used.add(config);
      jobs.push({
        op: 'decodePsa', inputs: config ? [item, config] : [item], via: config ? 'sidecar' : undefined,
        args: async () => [await item.entry.read(), item.entry.name, config ? await text(config) : ''],
      });
    }
    for (const c of configs) {
      if (!used.has(c)) records.push({ kind: 'unused', files: [c.entry.path], reason: 'no .psa of the same name to apply it to' });
    }
    return { jobs, records };
  },
};
