// 0 A.D. PSA (PSSA) decoder. Layout and engine semantics: shared/specs/zeroad-pmd-psa.md §3, §5.
//
// Keys are absolute model-space bone states, frame-major. On the flat skeleton decodePmd builds
// (every bone a direct child of the root) they are the bones' local states, so each bone becomes
// one track of translation + rotation keys, converted to three.js space like the model.
#include "formats/zeroad/pssa.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "convert/chunks.h"
#include "convert/math.h"
#include "formats/zeroad/zeroad_common.h"
#include "io/byte_reader.h"
#include "io/bytes.h"

namespace rs {

namespace {
const char* const kFormat = "PSSA";
constexpr double kDefaultFrameLengthMs = 1000.0 / 30.0;  // what PSAConvert writes

// The header after the magic and version (spec §3): name, frame length, bone and frame counts.
struct PssaHeader {
  uint32_t version = 0;
  std::string name;
  float frameLength = 0;
  size_t frameLengthAt = 0;
  uint32_t numBones = 0, numFrames = 0;
  size_t keyOffset = 0;
};

RS_STEP Status readPssaHeader(const uint8_t* data, size_t size, const std::string& file, Model& out, PssaHeader& h) {
  Status st = zeroad::readHeader(data, size, "PSSA", kFormat, file, h.version, out);
  if (!st.ok()) return st;
  if (h.version > 1) out.warnings.push_back(format("version %u; only version 1 exists, read as version 1", h.version));
  ByteReader r(data, size);
  r.seek(12);
  uint32_t nameLength = 0;
  if (!r.u32le(nameLength)) return fail(kFormat, file, r.offset(), "nameLength missing");
  if (!r.has(nameLength))
    return fail(kFormat, file, r.offset(), "name of %u bytes does not fit in the %zu bytes left", nameLength,
                r.remaining());
  h.name = fixedName(r.here(), nameLength);
  r.skip(nameLength);
  h.frameLengthAt = r.offset();
  if (!r.f32le(h.frameLength)) return fail(kFormat, file, r.offset(), "frameLength missing");
  if (!r.u32le(h.numBones)) return fail(kFormat, file, r.offset(), "numBones missing");
  if (!r.u32le(h.numFrames)) return fail(kFormat, file, r.offset(), "numFrames missing");
  h.keyOffset = r.offset();
  const uint64_t numKeys = uint64_t(h.numBones) * h.numFrames;  // < 2^64: both are u32
  if (!r.has(numKeys, 28))
    return fail(kFormat, file, h.keyOffset, "%u frames of %u bones (28 bytes each) do not fit in the %zu bytes left",
                h.numFrames, h.numBones, r.remaining());
  if (h.numFrames == 0) return fail(kFormat, file, h.keyOffset - 4, "numFrames is 0: nothing to play");
  r.skip(size_t(numKeys * 28));
  if (r.remaining() > 0)
    out.warnings.push_back(format("%zu bytes after the keys (from byte %zu) ignored", r.remaining(), r.offset()));
  if (h.numBones == 0) out.warnings.push_back("numBones is 0: the animation moves nothing");
  return Status();
}

// frameLength is in milliseconds (the engine samples frame = time / frameLength); a value below
// 1 is read as seconds, a non-positive one as 30 fps.
double frameLengthMs(const PssaHeader& h, Model& out) {
  double ms = h.frameLength;
  if (!(h.frameLength > 0.0f) || !std::isfinite(h.frameLength)) {
    ms = kDefaultFrameLengthMs;
    out.warnings.push_back(format("frameLength %g ms at byte %zu is not a positive number; using %.3f ms (30 fps)",
                                  double(h.frameLength), h.frameLengthAt, ms));
  } else if (h.frameLength < 1.0f) {
    ms = double(h.frameLength) * 1000.0;
    out.warnings.push_back(format("frameLength %g at byte %zu is below 1 ms: read as seconds (%g ms per frame)",
                                  double(h.frameLength), h.frameLengthAt, ms));
  }
  return ms;
}

// One track per bone, translation and rotation for every frame.
RS_STEP void allocateTracks(Clip& clip, size_t nb, size_t nf, double ms) {
  clip.tracks.resize(nb);
  // Only allocated with bones to fill: with none, numFrames is not backed by any bytes.
  std::vector<float> times(nb > 0 ? nf : 0);
  for (size_t k = 0; k < times.size(); ++k) times[k] = float(double(k) * ms / 1000.0);
  for (size_t b = 0; b < nb; ++b) {
    Track& t = clip.tracks[b];
    t.bone = int32_t(b);
    t.times = times;
    t.translation.resize(nf * 3);
    t.rotation.resize(nf * 4);
  }
}

// One 28-byte key (translation, rotation); a non-finite part holds the previous frame's value (or
// the identity on frame 0). Returns false for such a key.
bool readKey(const uint8_t* p, size_t f, float* tr, float* q) {
  for (int k = 0; k < 3; ++k) tr[k] = load_f32le(p + 4 * k);
  for (int k = 0; k < 4; ++k) q[k] = load_f32le(p + 12 + 4 * k);
  const bool good = zeroad::finite3(tr) && zeroad::finite4(q);
  if (!good) {
    if (!zeroad::finite3(tr)) {
      if (f > 0)
        std::memcpy(tr, tr - 3, 3 * sizeof(float));
      else
        tr[0] = tr[1] = tr[2] = 0.0f;
    }
    if (!zeroad::finite4(q) && f > 0) std::memcpy(q, q - 4, 4 * sizeof(float));
  }
  normalizeQuat(q);  // identity when still NaN or zero
  zeroad::mirrorVector(tr);
  zeroad::mirrorQuat(q);
  return good;
}

// Input is frame-major; read it once in order, scattering into the per-bone tracks.
RS_STEP void readKeys(const uint8_t* p, size_t nb, size_t nf, Clip& clip, Model& out) {
  size_t badKeys = 0;
  // With no bones, nf is backed by no bytes. About kChunkElements keys per chunk.
  forChunks(
      nb > 0 ? nf : 0,
      [&](size_t begin, size_t end) {
        const uint8_t* k = p + begin * nb * 28;
        for (size_t f = begin; f < end; ++f)
          for (size_t b = 0; b < nb; ++b, k += 28) {
            Track& t = clip.tracks[b];
            badKeys += !readKey(k, f, &t.translation[f * 3], &t.rotation[f * 4]);
          }
      },
      std::max<size_t>(1, kChunkElements / std::max<size_t>(1, nb)));
  if (badKeys) out.warnings.push_back(format("%zu keys hold NaN or infinite values; replaced", badKeys));
  for (Track& t : clip.tracks) makeHemisphereConsistent(t.rotation.data(), nf);
}

RS_STEP void recordFacts(const PssaHeader& h, double ms, Model& out) {
  out.count("bones", h.numBones);
  out.count("frames", h.numFrames);
  out.count("frameLengthMs", ms);
  out.info.emplace_back("name", h.name);
  out.info.emplace_back("bones", std::to_string(h.numBones));
  out.info.emplace_back("frames", std::to_string(h.numFrames));
  out.info.emplace_back("frameLengthMs", format("%g", ms));
  out.info.emplace_back("version", std::to_string(h.version));
}

}  // namespace

Status decodePssa(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out = Model();
  out.format = "pssa";
  out.bindBy = "index";  // track b moves bone b of a model with the same bone count
  out.name = file;
  PssaHeader h;
  Status st = readPssaHeader(data, size, file, out, h);
  if (!st.ok()) return st;
  const double ms = frameLengthMs(h, out);
  // A PSA does not say whether it loops; the engine loops everything but death-like animations,
  // so the clip loops with period N * frameLength. Its keys are the file's N frames.
  const size_t nf = h.numFrames, nb = h.numBones;
  out.clips.resize(1);
  Clip& clip = out.clips[0];
  clip.name = h.name.empty() ? zeroad::fileStem(file) : h.name;
  clip.fps = 1000.0 / ms;
  clip.frameCount = h.numFrames;
  clip.loop = true;
  clip.duration = double(nf) * ms / 1000.0;
  allocateTracks(clip, nb, nf, ms);
  readKeys(data + h.keyOffset, nb, nf, clip, out);
  recordFacts(h, ms, out);
  return Status();
}

}  // namespace rs
