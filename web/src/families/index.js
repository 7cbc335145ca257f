// The family registry: each format family says which kinds of file it owns (detected by content
// in the decoders, or claimed by name for text and images), how companions are found and which
// decoder operation reads them. Adding a format is its C++ folder, one binding line and one entry
// here; nothing else asks which format a file came from.
import unreal from './unreal.js';
import zeroad from './zeroad.js';
import ue1 from './ue1.js';
import psg from './psg.js';
import images from './images.js';

export const FAMILIES = [unreal, zeroad, ue1, psg, images];

const byKind = new Map(FAMILIES.flatMap((f) => f.kinds.map((k) => [k, f])));

/** The family that owns a detected kind, or undefined. */
export const familyOfKind = (kind) => byKind.get(kind);

/** A kind claimed by file name (images, XML, text sidecars), before any content detection. */
export function claimByName(name) {
  for (const f of FAMILIES) {
    const kind = f.claims?.(name);
    if (kind) return kind;
  }
  return null;
}

/** The name a family matches files by (0 A.D. cache names → plain names); the base name otherwise. */
export function plainNameOf(family, name) {
  return family?.plainName ? family.plainName(name) : name;
}

export const familyById = (id) => FAMILIES.find((f) => f.id === id);
