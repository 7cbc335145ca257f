// WebAssembly SIMD (-msimd128) where a loop is wide. RS_SIMD is 1 in the WASM build and 0 in native
// builds, which run the plain loops (and so the native tests and digests pin those). Every SIMD
// path does the same IEEE operations in the same order as its plain twin (no fused multiply-add;
// horizontal sums added lane by lane in the plain order), so both give bit-identical results.
#pragma once
#if defined(__wasm_simd128__) && !defined(RIGSCOPE_NO_SIMD)
#include <wasm_simd128.h>
#define RS_SIMD 1

namespace rs {

// Three vectors of x, y and z lanes from four interleaved xyz triples (12 floats).
inline void splitXyz(const float* p, v128_t& x, v128_t& y, v128_t& z) {
  const v128_t a = wasm_v128_load(p), b = wasm_v128_load(p + 4), c = wasm_v128_load(p + 8);
  // a = x0 y0 z0 x1, b = y1 z1 x2 y2, c = z2 x3 y3 z3
  x = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5);
  y = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 1, 4, 7, 0), c, 0, 1, 2, 6);
  z = wasm_i32x4_shuffle(wasm_i32x4_shuffle(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7);
}

// The inverse of splitXyz: four xyz triples written interleaved to p.
inline void storeXyz(float* p, v128_t x, v128_t y, v128_t z) {
  const v128_t xy01 = wasm_i32x4_shuffle(x, y, 0, 4, 1, 5);         // x0 y0 x1 y1
  const v128_t yz12 = wasm_i32x4_shuffle(y, z, 1, 5, 2, 6);         // y1 z1 y2 z2
  const v128_t xy33 = wasm_i32x4_shuffle(x, y, 3, 7, 3, 7);         // x3 y3 x3 y3
  wasm_v128_store(p, wasm_i32x4_shuffle(xy01, z, 0, 1, 4, 2));      // x0 y0 z0 x1
  wasm_v128_store(p + 4, wasm_i32x4_shuffle(yz12, x, 0, 1, 6, 2));  // y1 z1 x2 y2
  wasm_v128_store(p + 8, wasm_i32x4_shuffle(z, xy33, 2, 4, 5, 3));  // z2 x3 y3 z3
}

// ((a0 + a1) + a2) + a3, the order a plain loop adds them in.
inline float sumLanes(v128_t a) {
  return ((wasm_f32x4_extract_lane(a, 0) + wasm_f32x4_extract_lane(a, 1)) + wasm_f32x4_extract_lane(a, 2)) +
         wasm_f32x4_extract_lane(a, 3);
}

}  // namespace rs
#else
#define RS_SIMD 0
#endif
