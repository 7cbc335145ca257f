// Unreal ActorX animation (.psa). Spec: shared/specs/psk-psa.md §3, §8.
//
// ANIMKEYS is frame-major: for each sequence (ANIMINFO order), for each frame, for each bone in
// BONENAMES order. A sequence's first key is the running sum of NumRawFrames (never the stored
// FirstRawFrame, which CUE4Parse once wrote wrong). Keys are scattered into per-bone tracks in one
// pass; every track array is sized once from the validated counts.
#include "formats/psk/psa.h"

#include <cmath>
#include <cstring>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "convert/math.h"
#include "formats/psk/chunk.h"
#include "formats/psk/psa_config.h"
#include "io/byte_reader.h"

namespace rs {
namespace {

using actorx::ChunkHeader;
using actorx::Span;

// File quaternion -> three.js: PSA bone 0 as stored, others conjugated; normalise; Z-up -> Y-up.
inline void convertQuat(const uint8_t* p, bool root, float* out) {
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
}

inline void convertVec(const uint8_t* p, float* out) {
  out[0] = load_f32le(p);
  out[1] = load_f32le(p + 8);
  out[2] = -load_f32le(p + 4);
}

class PsaDecoder {
 public:
  PsaDecoder(const uint8_t* data, size_t size, const std::string& file, const std::string& config, Model& out)
      : data_(data), size_(size), file_(file), config_(config), out_(out) {}

  Status run() {
    Status s = scan();
    if (!s.ok()) return s;
    return build();
  }

 private:
  void warn(std::string w) { out_.warnings.push_back(std::move(w)); }
  bool essentialsRead() const { return bones_.present && infos_.present && keys_.present; }

  Status stop(size_t offset, const std::string& what) {
    if (essentialsRead()) {
      warn(format("%s at byte %zu; the rest of the file was ignored", what.c_str(), offset));
      return Status();
    }
    return fail("PSA", file_, offset, "%s", what.c_str());
  }

  void keep(Span& slot, const ChunkHeader& h, size_t pos) {
    if (!actorx::keepSpan(slot, data_, h, pos))
      warn(format("chunk %s at byte %zu repeats an earlier one; ignored", h.id, pos));
  }

  Status scan() {
    size_t pos = 0;
    while (pos < size_) {
      if (size_ - pos < actorx::kHeaderSize)
        return stop(pos, format("chunk header cut short (%zu of 32 bytes)", size_ - pos));
      ChunkHeader h = actorx::loadChunkHeader(data_ + pos);
      if (pos == 0 && !actorx::idIs(h, "ANIMHEAD"))
        return fail("PSA", file_, 0, "file does not start with an ANIMHEAD chunk (found \"%s\")", h.id);
      if (h.dataSize < 0 || h.dataCount < 0)
        return stop(pos, format("chunk %s declares DataSize %d and DataCount %d", h.id, h.dataSize, h.dataCount));
      const size_t body = pos + actorx::kHeaderSize;
      const uint64_t bytes = uint64_t(h.dataSize) * uint64_t(h.dataCount);
      if (bytes > size_ - body)
        return stop(pos, format("chunk %s declares %d records of %d bytes, %zu bytes remain", h.id, h.dataCount,
                                h.dataSize, size_ - body));
      if (actorx::idIs(h, "ANIMHEAD")) {
        if (!headSeen_) typeFlag_ = h.typeFlag;
        headSeen_ = true;
      } else if (actorx::idIs(h, "BONENAMES")) {
        keep(bones_, h, pos);
      } else if (actorx::idIs(h, "ANIMINFO")) {
        keep(infos_, h, pos);
      } else if (actorx::idIs(h, "ANIMKEYS")) {
        keep(keys_, h, pos);
      } else if (actorx::idIs(h, "SCALEKEYS")) {
        keep(scales_, h, pos);
      } else {
        size_t n = std::strlen(h.id);
        bool curve = n >= 4 && std::strcmp(h.id + n - 4, ":CUR") == 0;  // ActorX Maya curves
        if (curve) ++curves_;
        else warn(format("skipped unknown chunk \"%s\" at byte %zu", h.id, pos));
      }
      pos = body + size_t(bytes);
    }
    return Status();
  }

  Status needStride(const Span& s, uint32_t need, const char* what) {
    if (s.present && s.count > 0 && s.stride < need)
      return fail("PSA", file_, s.offset, "chunk %s has %u-byte records, at least %u needed", what, s.stride, need);
    return Status();
  }

  Status build();

  const uint8_t* data_;
  size_t size_;
  const std::string& file_;
  const std::string& config_;
  Model& out_;
  Span bones_, infos_, keys_, scales_;
  uint32_t typeFlag_ = 0;
  bool headSeen_ = false;
  size_t curves_ = 0;
};

Status PsaDecoder::build() {
  if (!bones_.present) return fail("PSA", file_, size_, "no BONENAMES chunk");
  if (!infos_.present) return fail("PSA", file_, size_, "no ANIMINFO chunk");
  Status s = needStride(bones_, 120, "BONENAMES");
  if (!s.ok()) return s;
  s = needStride(infos_, 168, "ANIMINFO");
  if (!s.ok()) return s;
  s = needStride(keys_, 32, "ANIMKEYS");
  if (!s.ok()) return s;

  const size_t B = bones_.count;
  const size_t S = infos_.count;
  const size_t K = keys_.present ? keys_.count : 0;
  if (B > 0x7FFFFFFF) return fail("PSA", file_, bones_.offset, "BONENAMES declares %zu bones", B);

  out_.format = "psa";
  out_.bindBy = "name";  // tracks follow BONENAMES, matched to a mesh by bone name
  out_.name = file_;

  // BONENAMES: names are what matters; parents and pose carried for completeness.
  out_.hasSkeleton = true;
  Skeleton& sk = out_.skeleton;
  sk.names.resize(B);
  sk.parents.resize(B);
  sk.restTranslation.resize(B * 3);
  sk.restRotation.resize(B * 4);
  for (size_t i = 0; i < B; ++i) {
    const uint8_t* p = bones_.p + i * bones_.stride;
    sk.names[i] = fixedName(p, 64);
    int32_t parent = load_i32le(p + 72);
    if (i == 0) parent = -1;
    else if (parent < 0 || size_t(parent) >= B || size_t(parent) == i) parent = 0;
    sk.parents[i] = parent;
    convertQuat(p + 76, i == 0, &sk.restRotation[i * 4]);
    convertVec(p + 92, &sk.restTranslation[i * 3]);
  }

  // Sequences: validate frame counts and the key total before touching any key.
  std::vector<uint64_t> firstFrame(S);
  uint64_t totalFrames = 0;
  size_t bonesMismatch = 0;
  for (size_t i = 0; i < S; ++i) {
    const uint8_t* p = infos_.p + i * infos_.stride;
    int32_t frames = load_i32le(p + 164);
    if (frames < 0)
      return fail("PSA", file_, infos_.offset + actorx::kHeaderSize + i * infos_.stride + 164,
                  "sequence %zu declares %d frames", i, frames);
    // Frames are only backed by bytes through their keys (frames x bones): without bones, any
    // frame count would be work no byte of the file describes.
    if (frames > 0 && B == 0)
      return fail("PSA", file_, infos_.offset + actorx::kHeaderSize + i * infos_.stride + 164,
                  "sequence %zu declares %d frames but BONENAMES has no bones, so no key can describe them", i,
                  frames);
    if (size_t(uint32_t(load_i32le(p + 128))) != B) ++bonesMismatch;
    firstFrame[i] = totalFrames;
    totalFrames += uint64_t(frames);
  }
  if (bonesMismatch)
    warn(format("%zu sequences declare a TotalBones different from the %zu BONENAMES; BONENAMES used",
                bonesMismatch, B));
  const uint64_t needKeys = totalFrames * uint64_t(B);
  if (uint64_t(K) < needKeys)
    return fail("PSA", file_, keys_.present ? keys_.offset : size_,
                "ANIMKEYS has %zu keys but %zu sequences of %llu frames in total x %zu bones need %llu", K, S,
                (unsigned long long)totalFrames, B, (unsigned long long)needKeys);
  if (uint64_t(K) > needKeys)
    warn(format("ANIMKEYS has %zu keys, the sequences use %llu; the rest ignored", K, (unsigned long long)needKeys));

  // Scale keys only when they line up one-to-one with ANIMKEYS (ActorX writes them per ScaleInclude sequence).
  bool haveScale = false;
  const size_t SK = scales_.present ? scales_.count : 0;
  if (SK > 0) {
    if (SK == K && scales_.stride >= 16) haveScale = true;
    else warn(format("SCALEKEYS has %zu records for %zu ANIMKEYS; scale keys ignored", SK, K));
  }

  // .config sidecar.
  PsaConfig cfg;
  if (!config_.empty()) cfg = parsePsaConfig(config_);
  std::vector<uint8_t> dropTrans(B, 0);
  if (cfg.rotationOnly || !cfg.forceMeshTranslation.empty() || !cfg.useTranslation.empty()) {
    std::vector<uint8_t> useT(B, 0), forceM(B, 0);
    size_t unknownNames = 0;
    // Names meet through hash keys, each name marking its bones once: long lists against
    // thousands of bones stay linear.
    std::unordered_map<std::string, std::vector<size_t>> bonesNamed;
    for (size_t b = 0; b < B; ++b) bonesNamed[actorXNameKey(sk.names[b])].push_back(b);
    auto mark = [&](const std::vector<std::string>& list, std::vector<uint8_t>& flags) {
      std::unordered_set<std::string> marked;
      for (const std::string& n : list) {
        std::string key = actorXNameKey(n);
        const auto named = bonesNamed.find(key);
        if (named == bonesNamed.end()) ++unknownNames;
        else if (marked.insert(std::move(key)).second)
          for (size_t b : named->second) flags[b] = 1;
      }
    };
    mark(cfg.useTranslation, useT);
    mark(cfg.forceMeshTranslation, forceM);
    size_t rotOnlyDropped = 0, kept = 0, forced = 0;
    for (size_t b = 0; b < B; ++b) {
      if (cfg.rotationOnly && b != 0) {
        if (useT[b]) ++kept;
        else dropTrans[b] = 1, ++rotOnlyDropped;
      }
      if (forceM[b] && !dropTrans[b]) dropTrans[b] = 1, ++forced;
    }
    if (cfg.rotationOnly)
      warn(format("config: bAnimRotationOnly=1 - %zu bones take translation from the mesh, %zu kept by "
                  "UseTranslationBoneNames",
                  rotOnlyDropped, kept));
    if (forced) warn(format("config: ForceMeshTranslationBoneNames - %zu more bones take translation from the mesh", forced));
    if (unknownNames) warn(format("config: %zu bone names match no BONENAMES entry", unknownNames));
  }
  // Per-sequence removals: bit 0 translation, bit 1 rotation, indexed [seq * B + bone] lazily.
  std::vector<std::vector<uint8_t>> removed(S);
  if (!cfg.removeTracks.empty()) {
    // Lines are merged per (sequence, bone) before they touch a sequence, and only sequences with
    // frames get a removal table: the work is bounded by the keys those sequences hold, however
    // many lines the .config repeats.
    std::unordered_map<std::string, std::vector<size_t>> sequencesNamed;  // name key -> sequences with frames
    std::unordered_set<std::string> namesWithoutFrames;
    for (size_t i = 0; i < S; ++i) {
      std::string key = actorXNameKey(fixedName(infos_.p + i * infos_.stride, 64));
      if (load_i32le(infos_.p + i * infos_.stride + 164) > 0) sequencesNamed[key].push_back(i);
      else namesWithoutFrames.insert(std::move(key));
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
        if (removed[i].empty()) removed[i].assign(B, 0);
        for (const auto& bone : byName.second) removed[i][bone.first] |= bone.second;
      }
    }
    warn(format("config: RemoveTracks - %zu entries applied (those components keep the bind pose)%s", applied,
                unknown ? format(", %zu name an unknown sequence or bone", unknown).c_str() : ""));
  }
  if (cfg.ignoredLines) warn(format("config: %zu lines not understood; ignored", cfg.ignoredLines));

  // Clips.
  out_.clips.reserve(S);
  size_t badFps = 0, emptySeq = 0;
  for (size_t i = 0; i < S; ++i) {
    const uint8_t* p = infos_.p + i * infos_.stride;
    out_.clips.emplace_back();
    Clip& clip = out_.clips.back();
    clip.name = fixedName(p, 64);
    float rate = load_f32le(p + 152);  // AnimRate (TrackTime at 148 is frames or seconds: unused)
    double fps = rate;
    if (!(fps > 0) || !std::isfinite(fps)) {
      fps = 30;
      ++badFps;
    }
    const size_t N = size_t(load_i32le(p + 164));
    clip.fps = fps;
    clip.frameCount = uint32_t(N);
    clip.loop = true;
    clip.duration = double(N) / fps;
    if (N == 0) {
      ++emptySeq;
      continue;
    }
    const std::vector<uint8_t>* rem = removed[i].empty() ? nullptr : &removed[i];
    clip.tracks.reserve(B);
    // Per-bone pointers into the track arrays for the frame-major scatter.
    std::vector<float*> tPtr(B, nullptr), rPtr(B, nullptr), sPtr(B, nullptr);
    for (size_t b = 0; b < B; ++b) {
      uint8_t r = rem ? (*rem)[b] : 0;
      bool hasT = !(r & 1) && !dropTrans[b];
      bool hasR = !(r & 2);
      if (!hasT && !hasR && !haveScale) continue;
      clip.tracks.emplace_back();
      Track& t = clip.tracks.back();
      t.bone = int32_t(b);
      t.times.resize(N);
      for (size_t k = 0; k < N; ++k) t.times[k] = float(double(k) / fps);
      if (hasT) t.translation.resize(N * 3), tPtr[b] = t.translation.data();
      if (hasR) t.rotation.resize(N * 4), rPtr[b] = t.rotation.data();
      if (haveScale) t.scale.resize(N * 3), sPtr[b] = t.scale.data();
    }
    const uint64_t base = firstFrame[i] * B;
    for (size_t f = 0; f < N; ++f) {
      const uint8_t* kp = keys_.p + size_t(base + f * B) * keys_.stride;
      const uint8_t* sp = haveScale ? scales_.p + size_t(base + f * B) * scales_.stride : nullptr;
      for (size_t b = 0; b < B; ++b, kp += keys_.stride) {
        if (tPtr[b]) convertVec(kp, tPtr[b] + f * 3);
        if (rPtr[b]) convertQuat(kp + 12, b == 0, rPtr[b] + f * 4);
        if (sp) {
          // Scale is a magnitude per axis: Z-up -> Y-up swaps y and z without a sign.
          float* d = sPtr[b] + f * 3;
          d[0] = load_f32le(sp);
          d[1] = load_f32le(sp + 8);
          d[2] = load_f32le(sp + 4);
          sp += scales_.stride;
        }
      }
    }
    for (Track& t : clip.tracks)
      if (!t.rotation.empty()) makeHemisphereConsistent(t.rotation.data(), N);
  }
  if (badFps) warn(format("%zu sequences had an AnimRate that is not a positive number; played at 30 fps", badFps));
  if (emptySeq) warn(format("%zu sequences have no frames", emptySeq));

  out_.count("bones", double(B));
  out_.count("sequences", double(S));
  out_.count("keys", double(K));
  out_.count("scaleKeys", double(SK));
  out_.count("frames", double(totalFrames));
  if (curves_) out_.count("curves", double(curves_));
  out_.info.emplace_back("typeFlag", format("%u", typeFlag_));
  return Status();
}

}  // namespace

Status decodePsa(const uint8_t* data, size_t size, const std::string& file, const std::string& config,
                 Model& out) {
  if (!data && size) return fail("PSA", file, 0, "no data");
  PsaDecoder d(data, size, file, config, out);
  return d.run();
}

}  // namespace rs
