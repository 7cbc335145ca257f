#include "convert/math.h"

namespace rs {

void accumulateFaceNormals(const float* p, const unsigned* idx, size_t indexCount, float* n) {
  for (size_t t = 0; t + 2 < indexCount; t += 3) {
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
}

void normalizeNormals(float* n, size_t vertexCount) {
  for (size_t v = 0; v < vertexCount; ++v, n += 3) {
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
}

}  // namespace rs
