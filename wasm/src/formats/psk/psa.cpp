// Unreal ActorX animation (.psa). Spec: shared/specs/psk-psa.md §3, §8.
//
// ANIMKEYS is frame-major: for each sequence (ANIMINFO order), for each frame, for each bone in
// BONENAMES order. A sequence's first key is the running sum of NumRawFrames (never the stored
// FirstRawFrame, which CUE4Parse once wrote wrong). Keys are scattered into per-bone tracks in one
// pass; every track array is sized once from the validated counts.
#include "formats/psk/psa.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "convert/chunks.h"
#include "convert/math.h"
#include "convert/simd.h"
#include "formats/psk/chunk.h"
#include "formats/psk/psa_config.h"
#include "io/byte_reader.h"

namespace rs {
namespace {

using actorx::ChunkHeader;
using actorx::Span;

// File quaternion -> three.js: PSA bone 0 as stored, others conjugated; normalise; Z-up -> Y-up.
// Where SIMD is built in, the quaternion is one vector (normalizeQuat's operations, in its order).
inline void convertQuat(const uint8_t* p, bool root, float* out) {
#if RS_SIMD
  const v128_t sign = wasm_i32x4_splat(int32_t(0x80000000u));
  v128_t q = wasm_v128_load(p);
  if (!root) q = wasm_v128_xor(q, wasm_i32x4_make(int32_t(0x80000000u), int32_t(0x80000000u), int32_t(0x80000000u), 0));
  const float len = std::sqrt(sumLanes(wasm_f32x4_mul(q, q)));
  if (!(len > 1e-12f) || !std::isfinite(len)) {
    wasm_v128_store(out, wasm_f32x4_make(0.0f, 0.0f, -0.0f, 1.0f));  // the identity, after the axis swap
    return;
  }
  q = wasm_f32x4_mul(q, wasm_f32x4_splat(1.0f / len));
  const v128_t xzyw = wasm_i32x4_shuffle(q, q, 0, 2, 1, 3);
  wasm_v128_store(out, wasm_v128_xor(xzyw, wasm_v128_and(sign, wasm_i32x4_make(0, 0, -1, 0))));  // (x, z, -y, w)
#else
  float q[4] = {load_f32le(p), load_f32le(p + 4), load_f32le(p + 8), load_f32le(p + 12)};
  if (!root) {
    q[0] = -q[0];
    q[1] = -q[1];
    q[2] = -q[2];
  }
  normalizeQuat(q);
  out[0] = q[0];
  out[1] = q[2];
  out[2] = -q[1];
  out[3] = q[3];
#endif
}

inline void convertVec(const uint8_t* p, float* out) {
  out[0] = load_f32le(p);
  out[1] = load_f32le(p + 8);
  out[2] = -load_f32le(p + 4);
}

// Where each record block lives (spec §3).
struct Chunks {
  Span bones, infos, keys, scales;
  uint32_t typeFlag = 0;
  bool headSeen = false;
  size_t curves = 0;  // ActorX Maya "<Seq>:CUR" chunks, skipped
};

// What every step shares: the file's name for messages and the model it fills.
struct Context {
  const uint8_t* data;
  size_t size;
  const std::string& file;
  Model& out;
  void warn(std::string w) { out.warnings.push_back(std::move(w)); }
};

// ---- scanning ---------------------------------------------------------------------------------

// The rest of the file is unreadable: keep what we have if the animation itself was read.
Status stop(Context& cx, const Chunks& c, size_t offset, const std::string& what) {
  if (c.bones.present && c.infos.present && c.keys.present) {
    cx.warn(format("%s at byte %zu; the rest of the file was ignored", what.c_str(), offset));
    return Status();
  }
  return fail("PSA", cx.file, offset, "%s", what.c_str());
}

void keep(Context& cx, Span& slot, const ChunkHeader& h, size_t pos) {
  if (!actorx::keepSpan(slot, cx.data, h, pos))
    cx.warn(format("chunk %s at byte %zu repeats an earlier one; ignored", h.id, pos));
}

void recordChunk(Context& cx, Chunks& c, const ChunkHeader& h, size_t pos) {
  if (actorx::idIs(h, "ANIMHEAD")) {
    if (!c.headSeen) c.typeFlag = h.typeFlag;
    c.headSeen = true;
  } else if (actorx::idIs(h, "BONENAMES")) {
    keep(cx, c.bones, h, pos);
  } else if (actorx::idIs(h, "ANIMINFO")) {
    keep(cx, c.infos, h, pos);
  } else if (actorx::idIs(h, "ANIMKEYS")) {
    keep(cx, c.keys, h, pos);
  } else if (actorx::idIs(h, "SCALEKEYS")) {
    keep(cx, c.scales, h, pos);
  } else {
    const size_t n = std::strlen(h.id);
    const bool curve = n >= 4 && std::strcmp(h.id + n - 4, ":CUR") == 0;  // ActorX Maya curves
    if (curve)
      ++c.curves;
    else
      cx.warn(format("skipped unknown chunk \"%s\" at byte %zu", h.id, pos));
  }
}

RS_STEP Status scanChunks(Context& cx, Chunks& c) {
  size_t pos = 0;
  while (pos < cx.size) {
    if (cx.size - pos < actorx::kHeaderSize)
      return stop(cx, c, pos, format("chunk header cut short (%zu of 32 bytes)", cx.size - pos));
    const ChunkHeader h = actorx::loadChunkHeader(cx.data + pos);
    if (pos == 0 && !actorx::idIs(h, "ANIMHEAD"))
      return fail("PSA", cx.file, 0, "file does not start with an ANIMHEAD chunk (found \"%s\")", h.id);
    if (h.dataSize < 0 || h.dataCount < 0)
      return stop(cx, c, pos, format("chunk %s declares DataSize %d and DataCount %d", h.id, h.dataSize, h.dataCount));
    const size_t body = pos + actorx::kHeaderSize;
    const uint64_t bytes = uint64_t(h.dataSize) * uint64_t(h.dataCount);
    if (bytes > cx.size - body)
      return stop(cx, c, pos,
                  format("chunk %s declares %d records of %d bytes, %zu bytes remain", h.id, h.dataCount, h.dataSize,
                         cx.size - body));
    recordChunk(cx, c, h, pos);
    pos = body + size_t(bytes);
  }
  return Status();
}

Status needStride(Context& cx, const Span& s, uint32_t need, const char* what) {
  if (s.present && s.count > 0 && s.stride < need)
    return fail("PSA", cx.file, s.offset, "chunk %s has %u-byte records, at least %u needed", what, s.stride, need);
  return Status();
}

RS_STEP Status checkChunks(Context& cx, const Chunks& c) {
  if (!c.bones.present) return fail("PSA", cx.file, cx.size, "no BONENAMES chunk");
  if (!c.infos.present) return fail("PSA", cx.file, cx.size, "no ANIMINFO chunk");
  Status s = needStride(cx, c.bones, 120, "BONENAMES");
  if (!s.ok()) return s;
  s = needStride(cx, c.infos, 168, "ANIMINFO");
  if (!s.ok()) return s;
  s = needStride(cx, c.keys, 32, "ANIMKEYS");
  if (!s.ok()) return s;
  if (c.bones.count > 0x7FFFFFFF)
    return fail("PSA", cx.file, c.bones.offset, "BONENAMES declares %zu bones", size_t(c.bones.count));
  return Status();
}

// ---- records ----------------------------------------------------------------------------------

// BONENAMES: names are what matters (tracks follow them); parents and pose carried for completeness.
RS_STEP void readBoneNames(Context& cx, const Span& bones) {
  const size_t B = bones.count;
  cx.out.hasSkeleton = true;
  Skeleton& sk = cx.out.skeleton;
  sk.names.resize(B);
  sk.parents.resize(B);
  sk.restTranslation.resize(B * 3);
  sk.restRotation.resize(B * 4);
  for (size_t i = 0; i < B; ++i) {
    const uint8_t* p = bones.p + i * bones.stride;
    sk.names[i] = fixedName(p, 64);
    int32_t parent = load_i32le(p + 72);
    if (i == 0)
      parent = -1;
    else if (parent < 0 || size_t(parent) >= B || size_t(parent) == i)
      parent = 0;
    sk.parents[i] = parent;
    convertQuat(p + 76, i == 0, &sk.restRotation[i * 4]);
    convertVec(p + 92, &sk.restTranslation[i * 3]);
  }
}

// ANIMINFO: each sequence's first frame (the running sum of NumRawFrames) and the frame total,
// validated before any key is touched.
struct Sequences {
  std::vector<uint64_t> firstFrame;
  uint64_t totalFrames = 0;
};

RS_STEP Status readSequenceInfo(Context& cx, const Span& infos, size_t B, Sequences& seq) {
  const size_t S = infos.count;
  seq.firstFrame.resize(S);
  size_t bonesMismatch = 0;
  for (size_t i = 0; i < S; ++i) {
    const uint8_t* p = infos.p + i * infos.stride;
    const int32_t frames = load_i32le(p + 164);
    const size_t at = infos.offset + actorx::kHeaderSize + i * infos.stride + 164;
    if (frames < 0) return fail("PSA", cx.file, at, "sequence %zu declares %d frames", i, frames);
    // Frames are only backed by bytes through their keys (frames x bones): without bones, any
    // frame count would be work no byte of the file describes.
    if (frames > 0 && B == 0)
      return fail("PSA", cx.file, at,
                  "sequence %zu declares %d frames but BONENAMES has no bones, so no key can describe them", i, frames);
    if (size_t(uint32_t(load_i32le(p + 128))) != B) ++bonesMismatch;
    seq.firstFrame[i] = seq.totalFrames;
    seq.totalFrames += uint64_t(frames);
  }
  if (bonesMismatch)
    cx.warn(format("%zu sequences declare a TotalBones different from the %zu BONENAMES; BONENAMES used", bonesMismatch,
                   B));
  return Status();
}

// ANIMKEYS must hold frames x bones keys; SCALEKEYS are used only when they line up one-to-one
// with them (ActorX writes them per ScaleInclude sequence). Sets `haveScale`.
RS_STEP Status checkKeys(Context& cx, const Chunks& c, const Sequences& seq, bool& haveScale) {
  const size_t B = c.bones.count, S = c.infos.count;
  const size_t K = c.keys.present ? c.keys.count : 0;
  const uint64_t needKeys = seq.totalFrames * uint64_t(B);
  if (uint64_t(K) < needKeys)
    return fail("PSA", cx.file, c.keys.present ? c.keys.offset : cx.size,
                "ANIMKEYS has %zu keys but %zu sequences of %llu frames in total x %zu bones need %llu", K, S,
                (unsigned long long)seq.totalFrames, B, (unsigned long long)needKeys);
  if (uint64_t(K) > needKeys)
    cx.warn(format("ANIMKEYS has %zu keys, the sequences use %llu; the rest ignored", K, (unsigned long long)needKeys));
  haveScale = false;
  const size_t SK = c.scales.present ? c.scales.count : 0;
  if (SK > 0) {
    if (SK == K && c.scales.stride >= 16)
      haveScale = true;
    else
      cx.warn(format("SCALEKEYS has %zu records for %zu ANIMKEYS; scale keys ignored", SK, K));
  }
  return Status();
}

// ---- the .config sidecar (spec §3 "Sidecars") ---------------------------------------------------

// Which track components the .config takes away: per bone (every sequence) and per sequence.
struct TrackMask {
  std::vector<uint8_t> dropTranslation;       // per bone: translation from the mesh
  std::vector<std::vector<uint8_t>> removed;  // per sequence, per bone: bit 0 translation, bit 1 rotation
};

// bAnimRotationOnly, UseTranslationBoneNames and ForceMeshTranslationBoneNames. Names meet through
// hash keys, each name marking its bones once: long lists against thousands of bones stay linear.
RS_STEP void configTranslation(Context& cx, const PsaConfig& cfg, TrackMask& mask) {
  const std::vector<std::string>& names = cx.out.skeleton.names;
  const size_t B = names.size();
  std::vector<uint8_t> useT(B, 0), forceM(B, 0);
  size_t unknownNames = 0;
  std::unordered_map<std::string, std::vector<size_t>> bonesNamed;
  for (size_t b = 0; b < B; ++b) bonesNamed[actorXNameKey(names[b])].push_back(b);
  auto mark = [&](const std::vector<std::string>& list, std::vector<uint8_t>& flags) {
    std::unordered_set<std::string> marked;
    for (const std::string& n : list) {
      std::string key = actorXNameKey(n);
      const auto named = bonesNamed.find(key);
      if (named == bonesNamed.end())
        ++unknownNames;
      else if (marked.insert(std::move(key)).second)
        for (size_t b : named->second) flags[b] = 1;
    }
  };
  mark(cfg.useTranslation, useT);
  mark(cfg.forceMeshTranslation, forceM);
  size_t rotOnlyDropped = 0, kept = 0, forced = 0;
  std::vector<uint8_t>& drop = mask.dropTranslation;
  for (size_t b = 0; b < B; ++b) {
    if (cfg.rotationOnly && b != 0) {
      if (useT[b])
        ++kept;
      else
        drop[b] = 1, ++rotOnlyDropped;
    }
    if (forceM[b] && !drop[b]) drop[b] = 1, ++forced;
  }
  if (cfg.rotationOnly)
    cx.warn(
        format("config: bAnimRotationOnly=1 - %zu bones take translation from the mesh, %zu kept by "
               "UseTranslationBoneNames",
               rotOnlyDropped, kept));
  if (forced)
    cx.warn(format("config: ForceMeshTranslationBoneNames - %zu more bones take translation from the mesh", forced));
  if (unknownNames) cx.warn(format("config: %zu bone names match no BONENAMES entry", unknownNames));
}

// RemoveTracks. Lines are merged per (sequence, bone) before they touch a sequence, and only
// sequences with frames get a removal table: the work is bounded by the keys those sequences hold,
// however many lines the .config repeats.
RS_STEP void configRemovals(Context& cx, const PsaConfig& cfg, const Span& infos, TrackMask& mask) {
  const size_t S = infos.count, B = cx.out.skeleton.names.size();
  std::unordered_map<std::string, std::vector<size_t>> sequencesNamed;  // name key -> sequences with frames
  std::unordered_set<std::string> namesWithoutFrames;
  for (size_t i = 0; i < S; ++i) {
    std::string key = actorXNameKey(fixedName(infos.p + i * infos.stride, 64));
    if (load_i32le(infos.p + i * infos.stride + 164) > 0)
      sequencesNamed[key].push_back(i);
    else
      namesWithoutFrames.insert(std::move(key));
  }
  std::unordered_map<std::string, std::unordered_map<size_t, uint8_t>> merged;  // name key -> bone -> bits
  size_t applied = 0, unknown = 0;
  for (const PsaConfig::Removal& r : cfg.removeTracks) {
    std::string key = actorXNameKey(r.sequence);
    const bool named = sequencesNamed.count(key) || namesWithoutFrames.count(key);
    if (size_t(r.bone) >= B || !named) {
      ++unknown;
      continue;
    }
    ++applied;
    merged[std::move(key)][size_t(r.bone)] |= uint8_t((r.translation ? 1 : 0) | (r.rotation ? 2 : 0));
  }
  for (const auto& byName : merged) {
    const auto sequences = sequencesNamed.find(byName.first);
    if (sequences == sequencesNamed.end()) continue;
    for (size_t i : sequences->second) {
      if (mask.removed[i].empty()) mask.removed[i].assign(B, 0);
      for (const auto& bone : byName.second) mask.removed[i][bone.first] |= bone.second;
    }
  }
  cx.warn(format("config: RemoveTracks - %zu entries applied (those components keep the bind pose)%s", applied,
                 unknown ? format(", %zu name an unknown sequence or bone", unknown).c_str() : ""));
}

RS_STEP TrackMask readConfig(Context& cx, const std::string& config, const Span& infos) {
  TrackMask mask;
  mask.dropTranslation.assign(cx.out.skeleton.names.size(), 0);
  mask.removed.resize(infos.count);
  PsaConfig cfg;
  if (!config.empty()) cfg = parsePsaConfig(config);
  if (cfg.rotationOnly || !cfg.forceMeshTranslation.empty() || !cfg.useTranslation.empty())
    configTranslation(cx, cfg, mask);
  if (!cfg.removeTracks.empty()) configRemovals(cx, cfg, infos, mask);
  if (cfg.ignoredLines) cx.warn(format("config: %zu lines not understood; ignored", cfg.ignoredLines));
  return mask;
}

// ---- clips (spec §8) ----------------------------------------------------------------------------

// Per-bone write pointers into a clip's track arrays, for the frame-major scatter.
struct TrackTargets {
  std::vector<float*> t, r, s;
};

// Key k at k / fps: computed once per clip, copied to each track.
std::vector<float> keyTimes(size_t N, double fps) {
  std::vector<float> times(N);
  forChunks(N, [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) times[k] = float(double(k) / fps);
  });
  return times;
}

// One track per bone that keeps a component, every array sized once.
RS_STEP TrackTargets allocateTracks(Clip& clip, size_t B, size_t N, double fps, const TrackMask& mask,
                                    const std::vector<uint8_t>* rem, bool haveScale) {
  const std::vector<float> times = keyTimes(N, fps);
  TrackTargets tt;
  tt.t.assign(B, nullptr);
  tt.r.assign(B, nullptr);
  tt.s.assign(B, nullptr);
  clip.tracks.reserve(B);
  for (size_t b = 0; b < B; ++b) {
    const uint8_t r = rem ? (*rem)[b] : 0;
    const bool hasT = !(r & 1) && !mask.dropTranslation[b];
    const bool hasR = !(r & 2);
    if (!hasT && !hasR && !haveScale) continue;
    clip.tracks.emplace_back();
    Track& t = clip.tracks.back();
    t.bone = int32_t(b);
    t.times = times;
    if (hasT) t.translation.resize(N * 3), tt.t[b] = t.translation.data();
    if (hasR) t.rotation.resize(N * 4), tt.r[b] = t.rotation.data();
    if (haveScale) t.scale.resize(N * 3), tt.s[b] = t.scale.data();
  }
  return tt;
}

// ANIMKEYS (and SCALEKEYS) of one sequence: frame-major, every bone per frame; about
// kChunkElements keys per chunk.
RS_STEP void scatterKeys(const Chunks& c, uint64_t firstFrame, size_t N, bool haveScale, const TrackTargets& tt) {
  const size_t B = c.bones.count;
  const uint64_t base = firstFrame * B;
  forChunks(
      N,
      [&](size_t begin, size_t end) {
        for (size_t f = begin; f < end; ++f) {
          const uint8_t* kp = c.keys.p + size_t(base + f * B) * c.keys.stride;
          const uint8_t* sp = haveScale ? c.scales.p + size_t(base + f * B) * c.scales.stride : nullptr;
          for (size_t b = 0; b < B; ++b, kp += c.keys.stride) {
            if (tt.t[b]) convertVec(kp, tt.t[b] + f * 3);
            if (tt.r[b]) convertQuat(kp + 12, b == 0, tt.r[b] + f * 4);
            if (sp) {
              // Scale is a magnitude per axis: Z-up -> Y-up swaps y and z without a sign.
              float* d = tt.s[b] + f * 3;
              d[0] = load_f32le(sp);
              d[1] = load_f32le(sp + 8);
              d[2] = load_f32le(sp + 4);
              sp += c.scales.stride;
            }
          }
        }
      },
      std::max<size_t>(1, kChunkElements / std::max<size_t>(1, B)));
}

// What went wrong across the sequences, reported once.
struct ClipStats {
  size_t badFps = 0, empty = 0;
};

// One ANIMINFO sequence as a looping clip: key k at k / AnimRate.
RS_STEP void readClip(const Chunks& c, size_t i, const Sequences& seq, const TrackMask& mask, bool haveScale,
                      Clip& clip, ClipStats& st) {
  const uint8_t* p = c.infos.p + i * c.infos.stride;
  clip.name = fixedName(p, 64);
  const float rate = load_f32le(p + 152);  // AnimRate (TrackTime at 148 is frames or seconds: unused)
  double fps = rate;
  if (!(fps > 0) || !std::isfinite(fps)) {
    fps = 30;
    ++st.badFps;
  }
  const size_t N = size_t(load_i32le(p + 164));
  clip.fps = fps;
  clip.frameCount = uint32_t(N);
  clip.loop = true;
  clip.duration = double(N) / fps;
  if (N == 0) {
    ++st.empty;
    return;
  }
  const std::vector<uint8_t>* rem = mask.removed[i].empty() ? nullptr : &mask.removed[i];
  const TrackTargets tt = allocateTracks(clip, c.bones.count, N, fps, mask, rem, haveScale);
  scatterKeys(c, seq.firstFrame[i], N, haveScale, tt);
  for (Track& t : clip.tracks)
    if (!t.rotation.empty()) makeHemisphereConsistent(t.rotation.data(), N);
}

RS_STEP void recordCounts(Context& cx, const Chunks& c, const Sequences& seq) {
  Model& out = cx.out;
  out.count("bones", double(c.bones.count));
  out.count("sequences", double(c.infos.count));
  out.count("keys", double(c.keys.present ? c.keys.count : 0));
  out.count("scaleKeys", double(c.scales.present ? c.scales.count : 0));
  out.count("frames", double(seq.totalFrames));
  if (c.curves) out.count("curves", double(c.curves));
  out.info.emplace_back("typeFlag", format("%u", c.typeFlag));
}

Status decode(Context& cx, const std::string& config) {
  Chunks c;
  Status s = scanChunks(cx, c);
  if (!s.ok()) return s;
  if (!(s = checkChunks(cx, c)).ok()) return s;
  cx.out.format = "psa";
  cx.out.bindBy = "name";  // tracks follow BONENAMES, matched to a mesh by bone name
  cx.out.name = cx.file;
  readBoneNames(cx, c.bones);
  Sequences seq;
  if (!(s = readSequenceInfo(cx, c.infos, c.bones.count, seq)).ok()) return s;
  bool haveScale = false;
  if (!(s = checkKeys(cx, c, seq, haveScale)).ok()) return s;
  const TrackMask mask = readConfig(cx, config, c.infos);
  const size_t S = c.infos.count;
  cx.out.clips.reserve(S);
  ClipStats st;
  for (size_t i = 0; i < S; ++i) {
    cx.out.clips.emplace_back();
    readClip(c, i, seq, mask, haveScale, cx.out.clips.back(), st);
  }
  if (st.badFps)
    cx.warn(format("%zu sequences had an AnimRate that is not a positive number; played at 30 fps", st.badFps));
  if (st.empty) cx.warn(format("%zu sequences have no frames", st.empty));
  recordCounts(cx, c, seq);
  return Status();
}

}  // namespace

Status decodePsa(const uint8_t* data, size_t size, const std::string& file, const std::string& config, Model& out) {
  if (!data && size) return fail("PSA", file, 0, "no data");
  Context cx{data, size, file, out};
  return decode(cx, config);
}

}  // namespace rs
