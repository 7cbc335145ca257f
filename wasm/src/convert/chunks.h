// Loops over every element run their body per chunk, through a call that is never inlined.
//
// Why: V8 starts WebAssembly on baseline (Liftoff) code and optimises a function once it has run
// enough, but a call that is already running stays on the code it started with (there is no
// on-stack replacement). One loop over a million vertices inside one call therefore runs entirely
// on baseline code the first time, about 4x slower in Chromium. Called once per chunk, the body is
// a function of its own: it is optimised after the first chunks and the later chunks run the
// optimised code. Natively the cost is one call per chunk; the order of the work is unchanged, so
// results are identical.
#pragma once
#include <algorithm>
#include <cstddef>

// A decoder's step (one chunk kind read, one table built): a function of its own in the module,
// never inlined into the decoder that calls it. For the same reason as the chunks: V8 optimises a
// WebAssembly function as a whole once it has run enough. With its steps inlined, a decoder was
// one 20-30 KB function whose optimising compile took 150-260 ms of a core while a folder of small
// files was dropped (decodePsk, decodePsa and the result's writer: 720 ms in the `psk` folder);
// apart, only the steps that ran enough are optimised, in a few ms each. The build also keeps
// Binaryen from inlining them back (CMakeLists.txt).
#define RS_STEP __attribute__((noinline))

namespace rs {

constexpr size_t kChunkElements = 16384;

template <typename Body>
__attribute__((noinline)) void runChunk(const Body& body, size_t begin, size_t end) {
  body(begin, end);
}

// body(begin, end) over [0, n) in order, kChunkElements at a time (or `chunk` when given).
template <typename Body>
inline void forChunks(size_t n, const Body& body, size_t chunk = kChunkElements) {
  for (size_t b = 0; b < n; b += chunk) runChunk(body, b, std::min(n, b + chunk));
}

}  // namespace rs
