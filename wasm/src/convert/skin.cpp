#include "convert/skin.h"

#include <cmath>
#include <cstring>

#include "convert/chunks.h"
#include "convert/simd.h"

namespace rs {

SkinBuilder::SkinBuilder(size_t vertexCount)
    : index(vertexCount * 4, 0), weight(vertexCount * 4, 0.0f), overflow_(vertexCount, 0) {}

namespace {

// Renormalises one vertex's 4 weights by 1/sum; a slot whose weight is 0 gets bone 0. Four weights
// are one SIMD vector where SIMD is built in.
inline void scaleWeights(uint16_t* idx, float* wt, float inv) {
#if RS_SIMD
  const v128_t w = wasm_f32x4_mul(wasm_v128_load(wt), wasm_f32x4_splat(inv));
  wasm_v128_store(wt, w);
  const v128_t keep32 = wasm_f32x4_ne(w, wasm_f32x4_splat(0.0f));  // all ones where the weight is not 0
  const v128_t keep16 = wasm_i16x8_narrow_i32x4(keep32, keep32);
  wasm_v128_store64_lane(idx, wasm_v128_and(wasm_v128_load64_zero(idx), keep16), 0);
#else
  for (int k = 0; k < 4; ++k) {
    wt[k] *= inv;
    if (wt[k] == 0.0f) idx[k] = 0;
  }
#endif
}

}  // namespace

// Vertices [begin, end): the 4 strongest influences renormalised, or the fallback bone.
void SkinBuilder::finishRange(size_t begin, size_t end, uint16_t fallbackBone) {
  for (size_t v = begin; v < end; ++v) {
    uint16_t* idx = &index[v * 4];
    float* wt = &weight[v * 4];
    stats_.truncated += overflow_[v];
    float sum = wt[0] + wt[1] + wt[2] + wt[3];
    if (!(sum > 0.0f)) {
      idx[0] = fallbackBone;
      wt[0] = 1.0f;
      ++stats_.unweighted;
      continue;
    }
    if (std::fabs(sum - 1.0f) > 1e-3f) ++stats_.renormalised;
    scaleWeights(idx, wt, 1.0f / sum);
  }
}

SkinStats SkinBuilder::finish(uint16_t fallbackBone) {
  forChunks(overflow_.size(), [&](size_t begin, size_t end) { finishRange(begin, end, fallbackBone); });
  return stats_;
}

void gatherSkin(const SkinBuilder& perPoint, const uint32_t* vertexToPoint, size_t vertexCount,
                std::vector<uint16_t>& index, std::vector<float>& weight) {
  index.resize(vertexCount * 4);
  weight.resize(vertexCount * 4);
  forChunks(vertexCount, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      const size_t p = size_t(vertexToPoint[v]) * 4;
      std::memcpy(&index[v * 4], &perPoint.index[p], 4 * sizeof(uint16_t));
      std::memcpy(&weight[v * 4], &perPoint.weight[p], 4 * sizeof(float));
    }
  });
}

}  // namespace rs
