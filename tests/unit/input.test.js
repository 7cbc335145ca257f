import { describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { expandZips, walk } from '../../web/src/app/input.js';
import { entryFromBytes } from '../../web/src/core/files.js';

// A directory entry as Chromium gives it: readEntries() hands out at most 100 entries per call.
function fakeDirectory(name, count) {
  const files = Array.from({ length: count }, (_, i) => ({
    isFile: true, fullPath: `/${name}/f${i}.psk`,
    file: (ok) => ok(new Blob([new Uint8Array([i])])),
  }));
  return {
    isFile: false, fullPath: `/${name}`,
    createReader() {
      let at = 0;
      return { readEntries: (ok) => { const batch = files.slice(at, at + 100); at += batch.length; ok(batch); } };
    },
  };
}

describe('dropped folders and zips', () => {
  it('reads every directory entry, not only the first batch of 100', async () => {
    const out = [];
    await walk(fakeDirectory('mod', 250), out);
    expect(out).toHaveLength(250);
    expect(out[249].path).toMatch(/^mod\/f\d+\.psk$/);
  });

  it('expands zip archives, keeping folder paths and skipping macOS metadata', async () => {
    const zip = zipSync({ 'Models/a.psk': new Uint8Array([1, 2]), 'Models/b.psa': new Uint8Array([3]), '__MACOSX/Models/._a.psk': new Uint8Array([9]) });
    const entries = await expandZips([entryFromBytes('pack.zip', zip), entryFromBytes('c.pcx', new Uint8Array([5]))]);
    expect(entries.map((e) => e.path).sort()).toEqual(['c.pcx', 'pack.zip/Models/a.psk', 'pack.zip/Models/b.psa']);
    expect(new Uint8Array(await entries.find((e) => e.name === 'a.psk').read())).toEqual(new Uint8Array([1, 2]));
  });
});
