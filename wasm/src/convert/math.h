// Small vector/quaternion helpers shared by all formats. Quaternions are (x, y, z, w).
#pragma once
#include <cmath>
#include <cstddef>

namespace rs {

// Right-handed Z-up (Unreal ActorX file frame) to three.js right-handed Y-up: a -90 degree turn
// about X. Positions (x, y, z) -> (x, z, -y); a rotation's axis turns the same way, so
// quaternions (x, y, z, w) -> (x, z, -y, w). A proper rotation: winding is unchanged.
inline void zUpToYUp(float* v) {
  float y = v[1];
  v[1] = v[2];
  v[2] = -y;
}

inline void normalizeQuat(float* q) {
  float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 1e-12f) || !std::isfinite(len)) {
    q[0] = q[1] = q[2] = 0.0f;
    q[3] = 1.0f;
    return;
  }
  float inv = 1.0f / len;
  for (int i = 0; i < 4; ++i) q[i] *= inv;
}

// Flips keys so consecutive quaternions lie in one hemisphere (q and -q are the same rotation,
// but glTF consumers may lerp between them the long way).
inline void makeHemisphereConsistent(float* q, size_t keys) {
  for (size_t k = 1; k < keys; ++k) {
    const float* a = q + (k - 1) * 4;
    float* b = q + k * 4;
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0f) {
      for (int i = 0; i < 4; ++i) b[i] = -b[i];
    }
  }
}

// Area-weighted smooth normals over an indexed triangle list (CCW), accumulated into `normals`
// (3 per vertex, must be zeroed) and normalised. Degenerate vertices get (0, 1, 0).
void accumulateFaceNormals(const float* positions, const unsigned* indices, size_t indexCount, float* normals);
void normalizeNormals(float* normals, size_t vertexCount);

}  // namespace rs
