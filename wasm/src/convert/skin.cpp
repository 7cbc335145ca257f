#include "convert/skin.h"

#include <cmath>

namespace rs {

SkinBuilder::SkinBuilder(size_t vertexCount)
    : index(vertexCount * 4, 0), weight(vertexCount * 4, 0.0f), overflow_(vertexCount, 0) {}

void SkinBuilder::add(size_t vertex, uint16_t bone, float w) {
  if (!(w > 0.0f) || !std::isfinite(w)) {
    ++stats_.rejected;
    return;
  }
  uint16_t* idx = &index[vertex * 4];
  float* wt = &weight[vertex * 4];
  int weakest = 0;
  for (int k = 0; k < 4; ++k) {
    if (wt[k] > 0.0f && idx[k] == bone) {
      wt[k] += w;
      return;
    }
    if (wt[k] < wt[weakest]) weakest = k;
  }
  // All four slots taken by stronger influences: drop the new one, remember the cut.
  if (wt[weakest] > 0.0f) {
    overflow_[vertex] = 1;
    float dropped = w;
    if (w > wt[weakest]) {
      dropped = wt[weakest];
      idx[weakest] = bone;
      wt[weakest] = w;
    }
    if (dropped > stats_.maxDropped) stats_.maxDropped = dropped;
    return;
  }
  idx[weakest] = bone;
  wt[weakest] = w;
}

SkinStats SkinBuilder::finish(uint16_t fallbackBone) {
  const size_t n = overflow_.size();
  for (size_t v = 0; v < n; ++v) {
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
    float inv = 1.0f / sum;
    for (int k = 0; k < 4; ++k) {
      wt[k] *= inv;
      if (wt[k] == 0.0f) idx[k] = 0;
    }
  }
  return stats_;
}

void gatherSkin(const SkinBuilder& perPoint, const uint32_t* vertexToPoint, size_t vertexCount,
                std::vector<uint16_t>& index, std::vector<float>& weight) {
  index.resize(vertexCount * 4);
  weight.resize(vertexCount * 4);
  for (size_t v = 0; v < vertexCount; ++v) {
    size_t p = size_t(vertexToPoint[v]) * 4;
    for (int k = 0; k < 4; ++k) {
      index[v * 4 + k] = perPoint.index[p + k];
      weight[v * 4 + k] = perPoint.weight[p + k];
    }
  }
}

}  // namespace rs
