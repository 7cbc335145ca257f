// The decoder operations the worker exposes, and how a decoded result's buffers are collected
// for the transfer list (so they move to the main thread without a copy).
export const DECODER_OPS = new Set([
  'decodePsk', 'decodePsa', 'decodePmd', 'decodePssa', 'decodeUe1', 'decodePcx', 'decodePsg', 'decodeImage', 'detectFormat',
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

/**
 * Clips arrive from the binding with their tracks packed in one buffer (see clipToVal in
 * wasm/bindings/bindings.cpp); this gives them back the contract's `tracks` as views into it.
 */
export function unpackClips(model) {
  for (const clip of model?.clips ?? []) {
    const packed = clip.packedTracks;
    if (!packed) continue;
    const { layout, data } = packed;
    const tracks = [];
    for (let i = 0; i < layout.length; i += 6) {
      const [bone, keys, times, t, r, s] = layout.subarray(i, i + 6);
      const track = { bone, times: data.subarray(times, times + keys) };
      if (t >= 0) track.translation = data.subarray(t, t + keys * 3);
      if (r >= 0) track.rotation = data.subarray(r, r + keys * 4);
      if (s >= 0) track.scale = data.subarray(s, s + keys * 3);
      tracks.push(track);
    }
    clip.tracks = tracks;
    delete clip.packedTracks;
  }
  return model;
}
