// Everything a user can hand over in the page becomes a list of FileEntry: dropped files and
// folders and the file button here; zip archives and URLs, with their limits, in core/input.js.
import { entryFromBlob } from '../core/files.js';
import { expandZips } from '../core/input.js';

/**
 * Reads a drop, recursing into folders. `onUnpack({ name, done, total })` follows the unpacking of
 * a .rigscope bundle among them.
 */
export async function entriesFromDataTransfer(dt, onUnpack) {
  const roots = [...dt.items].filter((i) => i.kind === 'file').map((i) => i.webkitGetAsEntry?.() ?? null);
  if (roots.length === 0 || roots.some((r) => r === null))
    return expandZips(
      [...dt.files].map((f) => entryFromBlob(f)),
      { onUnpack },
    );
  const out = [];
  await Promise.all(roots.map((r) => walk(r, out)));
  return expandZips(out, { onUnpack });
}

export async function walk(fsEntry, out) {
  if (fsEntry.isFile) {
    const file = await new Promise((resolve, reject) => fsEntry.file(resolve, reject));
    out.push(entryFromBlob(file, fsEntry.fullPath.replace(/^\//, '')));
    return;
  }
  const reader = fsEntry.createReader();
  // Chromium returns at most 100 entries per readEntries() call: keep reading until it
  // returns an empty batch (the three.js editor and Online3DViewer stop after the first).
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    await Promise.all(batch.map((e) => walk(e, out)));
  }
}

export function entriesFromFileList(files, onUnpack) {
  return expandZips(
    [...files].map((f) => entryFromBlob(f, f.webkitRelativePath || f.name)),
    { onUnpack },
  );
}
