// Look-ups over a family registry (an array of entries, web/src/families/): core receives the
// registry as an argument and never imports it, so the layers point one way.

const cache = new WeakMap();

function index(families) {
  let ix = cache.get(families);
  if (!ix) {
    ix = {
      byKind: new Map(families.flatMap((f) => f.kinds.map((k) => [k, f]))),
      byId: new Map(families.map((f) => [f.id, f])),
      textKinds: families.flatMap((f) => f.textKinds ?? []),
    };
    cache.set(families, ix);
  }
  return ix;
}

/** The family that owns a detected kind, or undefined. */
export const familyOfKind = (families, kind) => index(families).byKind.get(kind);

/** The family with this id, or undefined. */
export const familyById = (families, id) => index(families).byId.get(id);

/** Kinds read as text and kept for assembly (every family's `textKinds`, in the registry's order). */
export const textKindsOf = (families) => index(families).textKinds;

/** A kind claimed by file name (images, XML, text sidecars), before any content detection. */
export function claimByName(families, name) {
  for (const f of families) {
    const kind = f.claims?.(name);
    if (kind) return kind;
  }
  return null;
}

/**
 * A kind known from a file's first bytes in JavaScript (`detect(head, entry)` of a family: a tag at
 * offset 0 the decoders' detection does not know), before the decoders are asked; or null.
 */
export function detectByHead(families, head, entry) {
  for (const f of families) {
    const kind = f.detect?.(head, entry);
    if (kind) return kind;
  }
  return null;
}

/** A registry is required: say so plainly instead of failing deep inside. */
export function requireFamilies(families, who) {
  if (!Array.isArray(families)) throw new TypeError(`${who}: options.families (the family registry) is required`);
  return families;
}
