// What one drop may unpack (zip archives, packed links, bundles) and how sizes are written in the
// messages that name these limits. A module of its own so that core/input.js (zips, URLs),
// core/pack.js (the packed form) and core/bundle.js (.rigscope files) share them without a cycle;
// core/input.js re-exports them, and docs/formats.md ("Limits") lists them.

/** Most entries in the zips of one drop (a zip of 100,000 tiny files is an attack, not a mod). */
export const MAX_ZIP_ENTRIES = 20_000;
/**
 * Most bytes the zips of one drop may inflate to: 2 GiB. Checked from the central directory
 * before anything is inflated, and enforced while inflating: no entry may grow past the size its
 * directory declares (a zip bomb that lies about its sizes stops there).
 */
export const MAX_ZIP_BYTES = 2 ** 31;

/** "1 GiB", "2.5 MiB", "812 bytes": sizes in messages. */
export function formatBytes(n) {
  const units = [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ];
  for (const [unit, size] of units) if (n >= size) return `${+(n / size).toFixed(1)} ${unit}`;
  return `${n} bytes`;
}
