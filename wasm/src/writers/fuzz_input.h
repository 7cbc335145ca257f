// The layout of fuzz inputs that carry several files (a .psa and its .config; a UE1 _d.3d, _a.3d
// and .uc): the files one after another, separated by kPartSeparator. The fuzz targets split
// their input with splitParts and write_fuzz_seeds joins seeds with joinParts, so every seed
// reaches the decoders whole.
//
// A separator rather than length fields: a mutation that inserts or erases bytes inside one part
// leaves the other parts where they were (with lengths up front, every insertion would shift the
// start of the next file and cut its header). A plain single file is a valid input (one part).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace rs {
namespace fuzz {

// Bytes no writer output contains (joinParts checks): 0xF5 never occurs in UTF-8 text, and the
// binary formats would need this exact run.
constexpr uint8_t kPartSeparator[8] = {0xF5, 'r', 's', 'P', 'A', 'R', 'T', 0xF5};
constexpr size_t kPartSeparatorSize = sizeof kPartSeparator;

struct Part {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string text() const { return size ? std::string(reinterpret_cast<const char*>(data), size) : std::string(); }
};

inline const uint8_t* findSeparator(const uint8_t* p, const uint8_t* end) {
  while (size_t(end - p) >= kPartSeparatorSize) {
    const void* hit = std::memchr(p, kPartSeparator[0], size_t(end - p) - kPartSeparatorSize + 1);
    if (!hit) return nullptr;
    p = static_cast<const uint8_t*>(hit);
    if (std::memcmp(p, kPartSeparator, kPartSeparatorSize) == 0) return p;
    ++p;
  }
  return nullptr;
}

// Exactly `count` parts: the last one takes everything after the (count - 1)th separator; parts
// the input does not reach are empty.
inline std::vector<Part> splitParts(const uint8_t* data, size_t size, size_t count) {
  std::vector<Part> parts(count);
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  for (size_t i = 0; i < count && p; ++i) {
    const uint8_t* sep = i + 1 < count ? findSeparator(p, end) : nullptr;
    parts[i].data = p;
    parts[i].size = size_t((sep ? sep : end) - p);
    p = sep ? sep + kPartSeparatorSize : nullptr;
  }
  return parts;
}

// False when a part contains the separator (it would be split in the wrong place).
inline bool joinParts(const std::vector<std::vector<uint8_t>>& parts, std::vector<uint8_t>& out) {
  out.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::vector<uint8_t>& part = parts[i];
    if (findSeparator(part.data(), part.data() + part.size())) return false;
    if (i > 0) out.insert(out.end(), kPartSeparator, kPartSeparator + kPartSeparatorSize);
    out.insert(out.end(), part.begin(), part.end());
  }
  return true;
}

}  // namespace fuzz
}  // namespace rs
