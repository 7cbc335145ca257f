// Files named on the command line (and every file inside folders named there) as FileEntry
// objects that open their file only while reading it: a game's whole folder never holds more
// than one file open, and bytes are read when their decode comes up.
import { open, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { baseName } from '../src/core/files.js';

/** A FileEntry for a file on disk of a known size, opened only while it is read. */
export function entryFromPath(path, size) {
  return {
    name: baseName(path),
    path,
    size,
    read: async () => {
      const b = await readFile(path);
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    },
    readHead: async (n) => {
      const handle = await open(path, 'r');
      try {
        const buffer = new Uint8Array(Math.min(n, size));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        return buffer.buffer.slice(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}

/** Entries for paths: files as given, folders walked (sorted, so the order is the same every run). */
export async function entriesFromPaths(paths) {
  const out = [];
  const visit = async (path) => {
    const s = await stat(path);
    if (s.isDirectory()) {
      for (const name of (await readdir(path)).sort()) await visit(join(path, name));
    } else if (s.isFile()) {
      out.push(entryFromPath(path, s.size));
    }
  };
  for (const p of paths) await visit(p);
  return out;
}
