// The family registry: each format family says which kinds of file it owns (detected by content
// in the decoders, or claimed by name for text and images), how companions are found and which
// decoder operation reads them. Adding a format is its C++ folder, one binding line and one entry
// here; nothing else asks which format a file came from.
//
// The scene core (web/src/core) takes the registry as an argument; `decodeFiles` and
// `assembleScene` here are the core's with this registry, for every caller above the core.
import { decodeFiles as decodeWith } from '../core/fileset.js';
import { assembleScene as assembleWith } from '../core/scene.js';
import { familyById as lookUp } from '../core/registry.js';
import { baseName } from '../core/files.js';
import unreal from './unreal.js';
import zeroad from './zeroad.js';
import ue1 from './ue1.js';
import psg from './psg.js';
import images from './images.js';
import gltf from './gltf.js';
import upackage from './upackage.js';

export const FAMILIES = [unreal, zeroad, ue1, psg, upackage, gltf, images];

/** The family with this id, or undefined. */
export const familyById = (id) => lookUp(FAMILIES, id);

/** Decodes a file set with this registry (core/fileset.js). */
export const decodeFiles = (entries, decoder, options = {}) => decodeWith(entries, decoder, { families: FAMILIES, ...options });

/** Assembles a scene with this registry (core/scene.js). */
export const assembleScene = (decoded, options = {}) => assembleWith(decoded, { families: FAMILIES, ...options });

/** Zips and .rigscope bundles (core/input.js, core/bundle.js) hold files the families read. */
const CONTAINERS = /\.(zip|rigscope)$/i;

/**
 * Whether a file is worth fetching from a repository folder (core/repo.js): some family claims
 * its name or names files so, or it is a zip or bundle. Its kind is still found by content.
 */
export const readsName = (path) => {
  const name = baseName(path);
  return CONTAINERS.test(name) || FAMILIES.some((f) => f.fileNames?.test(name) || f.claims?.(name));
};

/**
 * Of a link's file read in parts where its host answers ranges (core/input.js), the parts to read
 * first (`{ head, tail }` bytes: a family's `partsFirst` for files of its names); else null.
 */
export const readsInParts = (path) => FAMILIES.find((f) => f.partsFirst && f.fileNames?.test(baseName(path)))?.partsFirst ?? null;

/**
 * Files a repository folder's files need from elsewhere in the repository (core/repo.js), each
 * family's `repoCompanions(ctx)` asked in turn: `{ paths, notes }`.
 */
export async function repoCompanions(ctx) {
  const out = { paths: [], notes: [] };
  for (const f of FAMILIES) {
    if (!f.repoCompanions) continue;
    const found = await f.repoCompanions(ctx);
    out.paths.push(...found.paths);
    out.notes.push(...found.notes);
  }
  return out;
}
