// Shared set-up for unit tests: the WASM decoders in Node, sample and fixture paths.
import { existsSync, readFileSync } from 'node:fs';
import { loadNodeDecoders } from '../../web/src/decoder/node.js';
import { entryFromBytes } from '../../web/src/core/files.js';

export const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;
export const FIXTURES = new URL('../../build/fixtures/', import.meta.url).pathname;
export const HAVE_SAMPLES = existsSync(SAMPLES);
if (!HAVE_SAMPLES) console.warn(`[rigscope] ${SAMPLES} not found: tests on real sample files are skipped`);

let decoders;
export const decoder = () => (decoders ??= loadNodeDecoders());

export const bytes = (path) => new Uint8Array(readFileSync(path));
export const sample = (rel) => bytes(SAMPLES + rel);
export const fixture = (rel) => bytes(FIXTURES + rel);
export const entry = (path) => entryFromBytes(path, readFileSync(path));

/** Decodes through the same op names the worker uses. */
export async function decode(op, ...args) {
  const d = await decoder();
  const model = await d.call(op, args);
  model.file = typeof args[1] === 'string' ? args[1] : undefined;
  return model;
}
