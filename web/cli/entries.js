// Files named on the command line (and every file inside folders named there) as FileEntry
// objects that open their file only while reading it: a game's whole folder never holds more
// than one file open, and bytes are read when their decode comes up. A .rigscope bundle among them
// is opened (core/bundle.js) and stands for the files inside it.
import { open, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { baseName } from '../src/core/files.js';
import { bundleEntries, isBundleEntry } from '../src/core/bundle.js';

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

/**
 * Entries for paths: files as given, folders walked (sorted, so the order is the same every run),
 * and every bundle replaced by its files, named `<bundle path>/<name inside>` so records name both
 * (`nameInBundle` keeps the name inside). The bundles share the zip budgets of one drop.
 */
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
  return openBundles(out);
}

/**
 * Bundles replaced by their files. A bundle that cannot be opened (not one, cut off, a bomb, bad
 * names, too many files) stays as an entry that cannot be read: the decode stage refuses it with
 * the reason, as any unreadable file, and the files beside it go on.
 */
export async function openBundles(entries) {
  const budget = { entries: 0, bytes: 0 };
  const out = [];
  for (const e of entries) {
    if (!(await isBundleEntry(e))) {
      out.push(e);
      continue;
    }
    try {
      out.push(...(await bundleEntries(e, { prefix: true, budget })));
    } catch (err) {
      const refuse = async () => {
        throw new Error(err.problem ?? err.message, { cause: err });
      };
      out.push({ ...e, read: refuse, readHead: refuse });
    }
  }
  return out;
}
