// The decoder module keeps a decoder's steps as functions of their own (RS_STEP in
// wasm/src/convert/chunks.h, and Binaryen's one-caller limit in CMakeLists.txt). V8 optimises a hot
// WebAssembly function as a whole, so one giant function costs a core hundreds of ms to optimise
// during a folder drop: decodePsk, decodePsa and the result's writer were 24-34 KB each.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DEFAULT_WASM_URL } from '../../web/src/decoder/node.js';

/** The byte size of every function body in a WebAssembly module's code section. */
function functionBodySizes(bytes) {
  let at = 8; // magic and version
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 10) {
      const sizes = [];
      for (let n = leb(); n > 0; n--) {
        const body = leb();
        sizes.push(body);
        at += body;
      }
      return sizes;
    }
    at = end;
  }
  return [];
}

describe('the decoder module', () => {
  it('has no function body over 12 KB, so no hot function costs V8 a long optimising compile', () => {
    const sizes = functionBodySizes(readFileSync(DEFAULT_WASM_URL));
    expect(sizes.length).toBeGreaterThan(300);
    expect(Math.max(...sizes)).toBeLessThan(12 * 1024);
  });

  it('reads body sizes as the module lays them out', () => {
    // Two functions, bodies of 2 and 4 bytes (a type section first, skipped).
    const module = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 10, 9, 2, 2, 0, 11, 4, 0, 1, 1, 11]);
    expect(functionBodySizes(module)).toEqual([2, 4]);
  });
});
