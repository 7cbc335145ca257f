// Git LFS pointer files: what a repository holds in place of a file it keeps in LFS storage (mod
// repositories keep packages, textures and zips so). A pointer is a small text file, as the spec
// (github.com/git-lfs/git-lfs, docs/spec.md) writes it:
//
//   version https://git-lfs.github.com/spec/v1
//   oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
//   size 12345
//
// keys sorted, `version` first, each line `key value\n`, the whole under 1024 bytes. No DOM, no
// format family: the decode stage (core/fileset.js) names a pointer for what it is wherever it
// came from (a repository, a folder, a zip, a drop), and a host's upload check can ask the same.

/** A pointer file is smaller than this (the spec's limit). */
export const LFS_POINTER_MAX = 1024;

const VERSION = 'version https://git-lfs.github.com/spec/v1\n';
// The pre-release spec's version line, which git-lfs still reads.
const OLD_VERSION = 'version https://hawser.github.com/spec/v1\n';

/**
 * The pointer a file's bytes are: `{ oid, size }` (oid the sha256 as 64 hex digits, size the real
 * file's bytes), or null when the bytes are not a Git LFS pointer.
 * @param {ArrayBuffer | Uint8Array} bytes the file (or at least its first LFS_POINTER_MAX bytes)
 * @returns {{ oid: string, size: number } | null}
 */
export function lfsPointer(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.byteLength >= LFS_POINTER_MAX || u8.byteLength < VERSION.length) return null;
  // Checked before decoding: most files start otherwise, and the first byte says so.
  if (u8[0] !== 0x76 /* v */) return null;
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(u8);
  } catch {
    return null;
  }
  if (!text.startsWith(VERSION) && !text.startsWith(OLD_VERSION)) return null;
  const oid = /^oid sha256:([0-9a-f]{64})$/m.exec(text)?.[1];
  const size = /^size (\d{1,16})$/m.exec(text)?.[1];
  if (!oid || size === undefined) return null;
  return { oid, size: Number(size) };
}
