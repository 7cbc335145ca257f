// File names for exported GLBs, one per character: the page's *Export all* and `rigscope export`
// name them alike, so the zip and the folder hold the same files.

/** A file name from a character's name (a model's file name): no extension, path or reserved character. */
function fileNameOf(name) {
  const base = String(name ?? '')
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[\\/:*?"<>|\p{Cc}\p{Cf}]+/gu, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 100);
  return base || 'character';
}

/** Names for the characters' GLBs, in scene order; a clash gets " (2)", " (3)"… never an overwrite. */
export function glbNames(names) {
  const taken = new Set();
  return names.map((n) => {
    const base = fileNameOf(n);
    let name = `${base}.glb`;
    for (let k = 2; taken.has(name.toLowerCase()); k++) name = `${base} (${k}).glb`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** The folder part of a path ('' for none). */
export const folderOf = (path) => String(path).replace(/[^/]*$/, '');
