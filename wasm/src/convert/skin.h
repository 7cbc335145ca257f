// Limits skinning to the 4 strongest influences per vertex (three.js reads vec4 skinIndex and
// skinWeight), renormalises, and binds vertices without any weight to a fallback bone. Influences
// arrive unsorted, in any number, from every format; this is the one place that turns them into
// the contract's 4-per-vertex arrays.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rs {

struct SkinStats {
  size_t truncated = 0;     // vertices that had more than 4 influences
  float maxDropped = 0;     // largest weight dropped by the cut
  size_t unweighted = 0;    // vertices bound to the fallback bone
  size_t renormalised = 0;  // vertices whose weights did not sum to 1 (beyond 1e-3)
  size_t rejected = 0;      // influences with NaN, infinite or non-positive weight
};

class SkinBuilder {
 public:
  explicit SkinBuilder(size_t vertexCount);
  // Adds one influence. Duplicate (vertex, bone) pairs are summed. Defined here, inline: it runs
  // once per influence, from each format's own file (a call across files is never inlined).
  void add(size_t vertex, uint16_t bone, float weight);
  // Normalises and fills vertices without weight with (fallbackBone, 1).
  SkinStats finish(uint16_t fallbackBone);

  std::vector<uint16_t> index;  // 4 per vertex
  std::vector<float> weight;    // 4 per vertex

 private:
  void finishRange(size_t begin, size_t end, uint16_t fallbackBone);
  std::vector<uint8_t> overflow_;  // 1 if the vertex had more than 4 influences
  SkinStats stats_;
};

inline void SkinBuilder::add(size_t vertex, uint16_t bone, float w) {
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

// Rewrites skinning arrays of `vertexCount` vertices from a per-vertex, per-point mapping:
// out[v] = in[map[v]] (PSK skin weights live on points, render vertices are wedges).
void gatherSkin(const SkinBuilder& perPoint, const uint32_t* vertexToPoint, size_t vertexCount,
                std::vector<uint16_t>& index, std::vector<float>& weight);

}  // namespace rs
