// Animation (UT v436, §9) -> the PSA decoder's model: skeleton.names = RefBones (no pose), one clip
// per AnimSeqs entry from its MotionChunk, one track per bone; bound to a mesh by bone name.
// [sources]: the samples' animations have no moves, so the key layout follows UE Viewer and the UT
// v469 headers: AnimTracks[j] is bone j, KeyTime counts frames (scaled by NumFrames / TrackTime
// when TrackTime is set), keys in the .psa's frame (converted as formats/psk/psa.cpp converts them).
#include <algorithm>
#include <cmath>

#include "convert/chunks.h"
#include "convert/math.h"
#include "formats/upackage/upackage_internal.h"
#include "io/bytes.h"

namespace rs {
namespace upkg {
namespace {

constexpr size_t kMinRefBone = 9;       // Name, Flags, ParentIndex
constexpr size_t kMinAnalogTrack = 7;   // Flags and three counts
constexpr size_t kMinMotionChunk = 33;  // RootSpeed3D .. two counts, RootTrack
constexpr size_t kMinAnimSeq = 15;

struct Keys {
  const uint8_t* quat = nullptr;
  const uint8_t* pos = nullptr;
  const uint8_t* time = nullptr;
  uint32_t quats = 0, positions = 0, times = 0;
};

struct Motion {
  float trackTime = 0;
  std::vector<Keys> tracks;
};

struct AnimSeq {
  std::string name, group;
  int32_t startFrame = 0, numFrames = 0;
  float rate = 0;
  std::vector<std::pair<float, std::string>> notifies;
};

Keys readAnalogTrack(Reader& r) {
  Keys k;
  r.u32("AnalogTrack Flags");
  k.quats = r.count("KeyQuat", 16);
  k.quat = r.take(size_t(k.quats) * 16, "KeyQuat");
  k.positions = r.count("KeyPos", 12);
  k.pos = r.take(size_t(k.positions) * 12, "KeyPos");
  k.times = r.count("KeyTime", 4);
  k.time = r.take(size_t(k.times) * 4, "KeyTime");
  return k;
}

RS_STEP void readMoves(Reader& r, std::vector<Motion>& moves) {
  const uint32_t n = r.count("Moves", kMinMotionChunk);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    Motion m;
    r.skip(12, "RootSpeed3D");
    m.trackTime = r.f32("TrackTime");
    r.i32("StartBone");
    r.u32("Flags");
    const uint32_t indices = r.count("BoneIndices", 4);
    r.skip(size_t(indices) * 4, "BoneIndices");
    const uint32_t tracks = r.count("AnimTracks", kMinAnalogTrack);
    for (uint32_t t = 0; t < tracks && !r.failed(); ++t) m.tracks.push_back(readAnalogTrack(r));
    readAnalogTrack(r);  // RootTrack
    moves.push_back(std::move(m));
  }
}

RS_STEP void readAnimSeqs(Reader& r, std::vector<AnimSeq>& seqs) {
  const uint32_t n = r.count("AnimSeqs", kMinAnimSeq);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    AnimSeq s;
    s.name = r.name("AnimSeqs Name");
    s.group = r.name("AnimSeqs Group");
    s.startFrame = r.i32("AnimSeqs StartFrame");
    s.numFrames = r.i32("AnimSeqs NumFrames");
    const uint32_t notifies = r.count("AnimSeqs Notifys", 5);
    for (uint32_t k = 0; k < notifies && !r.failed(); ++k) {
      const float time = r.f32("Notify Time");
      s.notifies.emplace_back(time, r.name("Notify Function"));
    }
    s.rate = r.f32("AnimSeqs Rate");
    seqs.push_back(std::move(s));
  }
}

// One bone's keys: n = the longer of KeyQuat and KeyPos (a one-key array holds still); times in
// seconds from KeyTime (frames), or one frame apart when KeyTime does not cover every key.
void readTrack(const Keys& k, int32_t bone, double fps, double timeScale, Track& t) {
  const uint32_t n = std::max(k.quats, k.positions);
  t.bone = bone;
  t.times.resize(n);
  for (uint32_t i = 0; i < n; ++i)
    t.times[i] = float((k.times >= n ? double(load_f32le(k.time + size_t(i) * 4)) * timeScale : double(i)) / fps);
  if (k.quats) {
    t.rotation.resize(size_t(n) * 4);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* p = k.quat + size_t(std::min(i, k.quats - 1)) * 16;
      float q[4] = {load_f32le(p), load_f32le(p + 4), load_f32le(p + 8), load_f32le(p + 12)};
      if (bone != 0) q[0] = -q[0], q[1] = -q[1], q[2] = -q[2];  // as the PSA: children conjugated
      normalizeQuat(q);
      float* o = &t.rotation[size_t(i) * 4];
      o[0] = q[0], o[1] = q[2], o[2] = -q[1], o[3] = q[3];
    }
    makeHemisphereConsistent(t.rotation.data(), n);
  }
  if (k.positions) {
    t.translation.resize(size_t(n) * 3);
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* p = k.pos + size_t(std::min(i, k.positions - 1)) * 12;
      float* o = &t.translation[size_t(i) * 3];
      o[0] = load_f32le(p), o[1] = load_f32le(p + 8), o[2] = -load_f32le(p + 4);
    }
  }
}

RS_STEP void buildClip(const AnimSeq& s, const Motion* m, size_t bones, Clip& c, size_t& mismatched) {
  c.name = s.name;
  c.fps = s.rate > 0 && std::isfinite(s.rate) ? double(s.rate) : 30.0;
  c.frameCount = uint32_t(std::max(s.numFrames, 0));
  c.duration = c.frameCount / c.fps;
  c.loop = true;
  for (const auto& n : s.notifies)
    if (std::isfinite(n.first)) c.notifies.push_back(Notify{double(n.first) * c.frameCount / c.fps, n.second});
  std::stable_sort(c.notifies.begin(), c.notifies.end(),
                   [](const Notify& a, const Notify& b) { return a.time < b.time; });
  if (!m) return;
  const double timeScale = m->trackTime > 0 && std::isfinite(m->trackTime) ? c.frameCount / double(m->trackTime) : 1;
  if (m->tracks.size() != bones) ++mismatched;
  for (size_t j = 0; j < m->tracks.size() && j < bones; ++j) {
    const Keys& k = m->tracks[j];
    if (!k.quats && !k.positions) continue;
    c.tracks.emplace_back();
    readTrack(k, int32_t(j), c.fps, timeScale, c.tracks.back());
  }
}

}  // namespace

Status decodeAnimation(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  const std::string what = describeExport(pkg, exportIndex);
  Reader r(pkg, data, begin, end, what);
  Properties props;
  readProperties(r, pkg.exports[exportIndex].flags, props);
  Skeleton& sk = out.skeleton;
  const uint32_t bones = r.count("RefBones", kMinRefBone);
  for (uint32_t i = 0; i < bones && !r.failed(); ++i) {
    sk.names.push_back(r.name("RefBones Name"));
    r.u32("RefBones Flags");
    const int32_t parent = r.i32("RefBones ParentIndex");
    sk.parents.push_back(i == 0 ? -1 : parent < 0 || uint32_t(parent) >= bones || uint32_t(parent) == i ? 0 : parent);
  }
  std::vector<Motion> moves;
  readMoves(r, moves);
  std::vector<AnimSeq> seqs;
  readAnimSeqs(r, seqs);
  r.expectEnd("Animation data");
  if (r.failed()) return r.status();
  out.format = "psa";
  out.bindBy = "name";  // tracks follow RefBones, matched to a mesh by bone name
  out.name = pkg.exports[exportIndex].name;
  out.hasSkeleton = true;
  sk.restTranslation.assign(sk.names.size() * 3, 0.0f);
  sk.restRotation.resize(sk.names.size() * 4);
  const float identity[4] = {0, 0, 0, 1};
  for (size_t i = 0; i < sk.names.size(); ++i) std::copy_n(identity, 4, &sk.restRotation[i * 4]);
  size_t mismatched = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    out.clips.emplace_back();
    buildClip(seqs[i], i < moves.size() ? &moves[i] : nullptr, sk.names.size(), out.clips.back(), mismatched);
  }
  if (moves.size() != seqs.size())
    out.warnings.push_back(format("%s: %zu AnimSeqs but %zu Moves; sequences without a move hold still", what.c_str(),
                                  seqs.size(), moves.size()));
  if (mismatched)
    out.warnings.push_back(
        format("%s: %zu moves have a track count other than the %zu bones", what.c_str(), mismatched, sk.names.size()));
  out.count("bones", double(sk.names.size()));
  out.count("sequences", double(seqs.size()));
  out.count("moves", double(moves.size()));
  return Status();
}

}  // namespace upkg
}  // namespace rs
