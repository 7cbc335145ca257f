// The decoder operations the worker exposes, and how a decoded result's buffers are collected
// for the transfer list (so they move to the main thread without a copy).
export const DECODER_OPS = new Set([
  'decodePsk', 'decodePsa', 'decodePmd', 'decodePssa', 'decodeUe1', 'decodePcx', 'decodePsg', 'detectFormat',
]);

export function collectTransferables(value, out = new Set()) {
  if (value && typeof value === 'object') {
    if (ArrayBuffer.isView(value)) out.add(value.buffer);
    else if (Array.isArray(value)) for (const v of value) collectTransferables(v, out);
    else for (const k in value) collectTransferables(value[k], out);
  }
  return out;
}

// Arguments cross the worker boundary as ArrayBuffers; Embind's std::string takes a Uint8Array.
export function toWasmArgs(args) {
  return args.map((a) => (a instanceof ArrayBuffer ? new Uint8Array(a) : a));
}
