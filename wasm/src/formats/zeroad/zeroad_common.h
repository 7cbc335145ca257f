// Pieces shared by the PMD and PSSA decoders: the 12-byte Pyrogenesis file header and the
// left-handed game space -> three.js conversion (spec §1 and §5).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "io/bytes.h"
#include "io/error.h"
#include "model/model.h"

namespace rs {
namespace zeroad {

// Game space is left-handed Y-up. Spec §5 "un-mirror Z": positions, normals and every translation
// get z = -z; quaternions (x, y, z, w) -> (-x, -y, z, w) (reflection through the XY plane: keep the
// component along the mirrored axis, negate the other two). Index order is kept: the converter's
// mirror and this one cancel, giving back the DCC's counter-clockwise winding.
inline void mirrorVector(float* v) { v[2] = -v[2]; }
inline void mirrorQuat(float* q) {
  q[0] = -q[0];
  q[1] = -q[1];
}

inline bool finite3(const float* v) { return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]); }
inline bool finite4(const float* q) { return finite3(q) && std::isfinite(q[3]); }

// "dir/rich-man.pmd" -> "rich-man".
inline std::string fileStem(const std::string& file) {
  size_t slash = file.find_last_of("/\\");
  std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  size_t dot = base.rfind('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

// FileHeader { char magic[4]; u32 version; u32 payloadSize; }. The engine refuses a payload size
// other than fileSize - 12; we warn and read what is there (every read stays bounds-checked, and
// a truncated file still fails at the first missing field).
inline Status readHeader(const uint8_t* data, size_t size, const char* magic, const char* formatName,
                         const std::string& file, uint32_t& version, Model& out) {
  if (size < 12) return fail(formatName, file, 0, "file is %zu bytes, shorter than the 12-byte header", size);
  if (std::memcmp(data, magic, 4) != 0) return fail(formatName, file, 0, "magic is not %s", magic);
  version = load_u32le(data + 4);
  if (version == 0) return fail(formatName, file, 4, "version 0 (the engine reads versions 1 and up)");
  uint32_t payload = load_u32le(data + 8);
  if (uint64_t(payload) != uint64_t(size) - 12)
    out.warnings.push_back(
        format("header payloadSize is %u but the file holds %zu bytes after the header (the engine refuses "
               "this file); reading what is there",
               payload, size - 12));
  return Status();
}

}  // namespace zeroad
}  // namespace rs
