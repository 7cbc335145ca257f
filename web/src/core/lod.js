// @ts-check
// The level of detail shown of parts that have levels, as links (`lod=`), the element's `lod`
// attribute and the loaders' setLod take it: a level number (0 is the finest) or 'all' (every
// level a part of its own, named `X LODN`), what assembleScene's `lod` option takes.

/**
 * Whether a value is a level of detail assembleScene takes: an integer from 0, or 'all'.
 * @param {unknown} lod
 * @returns {lod is number | 'all'}
 */
export const isLod = (lod) => lod === 'all' || (Number.isSafeInteger(lod) && /** @type {number} */ (lod) >= 0);

/**
 * A level of detail written as text ("2", "all"), or null when it is neither.
 * @param {string} text
 * @returns {number | 'all' | null}
 */
export function lodFromText(text) {
  const v = text.trim().toLowerCase();
  if (v === 'all') return 'all';
  return /^\d{1,3}$/.test(v) ? Number(v) : null;
}
