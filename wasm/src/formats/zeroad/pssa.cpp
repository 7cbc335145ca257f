// 0 A.D. PSA (PSSA) decoder. Layout and engine semantics: shared/specs/zeroad-pmd-psa.md §3, §5.
//
// Keys are absolute model-space bone states, frame-major. On the flat skeleton decodePmd builds
// (every bone a direct child of the root) they are the bones' local states, so each bone becomes
// one track of translation + rotation keys, converted to three.js space like the model.
#include "formats/zeroad/pssa.h"

#include <cmath>
#include <cstring>

#include "convert/math.h"
#include "formats/zeroad/zeroad_common.h"
#include "io/byte_reader.h"
#include "io/bytes.h"

namespace rs {

namespace {
const char* const kFormat = "PSSA";
constexpr double kDefaultFrameLengthMs = 1000.0 / 30.0;  // what PSAConvert writes
}  // namespace

Status decodePssa(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out = Model();
  out.format = "pssa";
  out.bindBy = "index";  // track b moves bone b of a model with the same bone count
  out.name = file;

  uint32_t version = 0;
  Status st = zeroad::readHeader(data, size, "PSSA", kFormat, file, version, out);
  if (!st.ok()) return st;
  if (version > 1) out.warnings.push_back(format("version %u; only version 1 exists, read as version 1", version));

  ByteReader r(data, size);
  r.seek(12);
  uint32_t nameLength = 0;
  if (!r.u32le(nameLength)) return fail(kFormat, file, r.offset(), "nameLength missing");
  if (!r.has(nameLength))
    return fail(kFormat, file, r.offset(), "name of %u bytes does not fit in the %zu bytes left", nameLength,
                r.remaining());
  std::string name = fixedName(r.here(), nameLength);
  r.skip(nameLength);

  float frameLength = 0;
  uint32_t numBones = 0, numFrames = 0;
  const size_t frameLengthAt = r.offset();
  if (!r.f32le(frameLength)) return fail(kFormat, file, r.offset(), "frameLength missing");
  if (!r.u32le(numBones)) return fail(kFormat, file, r.offset(), "numBones missing");
  if (!r.u32le(numFrames)) return fail(kFormat, file, r.offset(), "numFrames missing");
  const size_t keyOffset = r.offset();
  const uint64_t numKeys = uint64_t(numBones) * numFrames;  // < 2^64: both are u32
  if (!r.has(numKeys, 28))
    return fail(kFormat, file, keyOffset, "%u frames of %u bones (28 bytes each) do not fit in the %zu bytes left",
                numFrames, numBones, r.remaining());
  if (numFrames == 0) return fail(kFormat, file, keyOffset - 4, "numFrames is 0: nothing to play");
  r.skip(size_t(numKeys * 28));
  if (r.remaining() > 0)
    out.warnings.push_back(format("%zu bytes after the keys (from byte %zu) ignored", r.remaining(), r.offset()));
  if (numBones == 0) out.warnings.push_back("numBones is 0: the animation moves nothing");

  // frameLength is in milliseconds (the engine samples frame = time / frameLength).
  double ms = frameLength;
  if (!(frameLength > 0.0f) || !std::isfinite(frameLength)) {
    ms = kDefaultFrameLengthMs;
    out.warnings.push_back(format("frameLength %g ms at byte %zu is not a positive number; using %.3f ms (30 fps)",
                                  double(frameLength), frameLengthAt, ms));
  } else if (frameLength < 1.0f) {
    ms = double(frameLength) * 1000.0;
    out.warnings.push_back(format(
        "frameLength %g at byte %zu is below 1 ms: read as seconds (%g ms per frame)", double(frameLength),
        frameLengthAt, ms));
  }

  // A PSA does not say whether it loops; the engine loops everything but death-like animations,
  // so the clip loops with period N * frameLength. Its keys are the file's N frames.
  const size_t nf = numFrames, nb = numBones;
  out.clips.resize(1);
  Clip& clip = out.clips[0];
  clip.name = name.empty() ? zeroad::fileStem(file) : name;
  clip.fps = 1000.0 / ms;
  clip.frameCount = numFrames;
  clip.loop = true;
  clip.duration = double(nf) * ms / 1000.0;
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

  // Input is frame-major; read it once in order, scattering into the per-bone tracks.
  size_t badKeys = 0;
  const uint8_t* p = data + keyOffset;
  for (size_t f = 0; f < (nb > 0 ? nf : 0); ++f) {  // with no bones, nf is backed by no bytes
    for (size_t b = 0; b < nb; ++b, p += 28) {
      Track& t = clip.tracks[b];
      float* tr = &t.translation[f * 3];
      float* q = &t.rotation[f * 4];
      for (int k = 0; k < 3; ++k) tr[k] = load_f32le(p + 4 * k);
      for (int k = 0; k < 4; ++k) q[k] = load_f32le(p + 12 + 4 * k);
      if (!zeroad::finite3(tr) || !zeroad::finite4(q)) {
        ++badKeys;
        // Hold the previous frame's value (or the identity on frame 0).
        if (!zeroad::finite3(tr)) {
          if (f > 0) std::memcpy(tr, tr - 3, 3 * sizeof(float));
          else tr[0] = tr[1] = tr[2] = 0.0f;
        }
        if (!zeroad::finite4(q) && f > 0) std::memcpy(q, q - 4, 4 * sizeof(float));
      }
      normalizeQuat(q);  // identity when still NaN or zero
      zeroad::mirrorVector(tr);
      zeroad::mirrorQuat(q);
    }
  }
  if (badKeys) out.warnings.push_back(format("%zu keys hold NaN or infinite values; replaced", badKeys));

  for (Track& t : clip.tracks) makeHemisphereConsistent(t.rotation.data(), nf);

  out.count("bones", numBones);
  out.count("frames", numFrames);
  out.count("frameLengthMs", ms);
  out.info.emplace_back("name", name);
  out.info.emplace_back("bones", std::to_string(numBones));
  out.info.emplace_back("frames", std::to_string(numFrames));
  out.info.emplace_back("frameLengthMs", format("%g", ms));
  out.info.emplace_back("version", std::to_string(version));
  return Status();
}

}  // namespace rs
