#include "convert/math.h"

#include <cfloat>

#include "convert/chunks.h"
#include "convert/simd.h"

namespace rs {

void accumulateFaceNormals(const float* p, const unsigned* idx, size_t indexCount, float* n) {
  forChunks(indexCount / 3, [=](size_t begin, size_t end) {
    for (size_t t = begin * 3; t < end * 3; t += 3) {
      const float* a = p + size_t(idx[t]) * 3;
      const float* b = p + size_t(idx[t + 1]) * 3;
      const float* c = p + size_t(idx[t + 2]) * 3;
      float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
      for (int k = 0; k < 3; ++k) {
        float* dst = n + size_t(idx[t + k]) * 3;
        dst[0] += f[0];
        dst[1] += f[1];
        dst[2] += f[2];
      }
    }
  });
}

namespace {

// One normal to unit length; a zero, tiny or non-finite one becomes (0, 1, 0).
inline void normalizeOne(float* n) {
  float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (len > 1e-20f && std::isfinite(len)) {
    float inv = 1.0f / len;
    n[0] *= inv;
    n[1] *= inv;
    n[2] *= inv;
  } else {
    n[0] = 0.0f;
    n[1] = 1.0f;
    n[2] = 0.0f;
  }
}

// Normals [begin, end), four at a time where SIMD is built in.
void normalizeRange(float* n, size_t begin, size_t end) {
  size_t v = begin;
#if RS_SIMD
  const v128_t tiny = wasm_f32x4_splat(1e-20f), largest = wasm_f32x4_splat(FLT_MAX);
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  for (; v + 4 <= end; v += 4) {
    v128_t x, y, z;
    splitXyz(n + v * 3, x, y, z);
    const v128_t len = wasm_f32x4_sqrt(
        wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(x, x), wasm_f32x4_mul(y, y)), wasm_f32x4_mul(z, z)));
    const v128_t ok = wasm_v128_and(wasm_f32x4_gt(len, tiny), wasm_f32x4_le(len, largest));  // false for NaN, inf
    const v128_t inv = wasm_f32x4_div(one, len);
    storeXyz(n + v * 3, wasm_v128_bitselect(wasm_f32x4_mul(x, inv), zero, ok),
             wasm_v128_bitselect(wasm_f32x4_mul(y, inv), one, ok),
             wasm_v128_bitselect(wasm_f32x4_mul(z, inv), zero, ok));
  }
#endif
  for (; v < end; ++v) normalizeOne(n + v * 3);
}

}  // namespace

void normalizeNormals(float* n, size_t vertexCount) {
  forChunks(vertexCount, [n](size_t begin, size_t end) { normalizeRange(n, begin, end); });
}

}  // namespace rs
