#include "formats/detect.h"

#include <cctype>
#include <cstring>

#include "io/bytes.h"

namespace rs {

static bool endsWithNoCase(const std::string& s, const char* suffix) {
  size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  }
  return true;
}

static bool startsWith(const uint8_t* d, size_t size, const char* magic) {
  size_t n = std::strlen(magic);
  return size >= n && std::memcmp(d, magic, n) == 0;
}

static bool containsNoCase(const uint8_t* d, size_t size, const char* needle) {
  size_t n = std::strlen(needle);
  size_t limit = size < 65536 ? size : 65536;  // a script's #exec lines come first
  for (size_t i = 0; i + n <= limit; ++i) {
    size_t k = 0;
    while (k < n && std::tolower(d[i + k]) == needle[k]) ++k;
    if (k == n) return true;
  }
  return false;
}

std::string detectFormat(const uint8_t* d, size_t headSize, size_t fileSize, const std::string& file) {
  const size_t size = headSize;
  // ActorX files open with a 32-byte chunk header whose id names the file kind.
  if (startsWith(d, size, "ACTRHEAD")) return "psk";
  if (startsWith(d, size, "ANIMHEAD")) return "psa";
  if (startsWith(d, size, "PSMD")) return "pmd";
  if (startsWith(d, size, "PSSA")) return "pssa";
  if (startsWith(d, size, "\x89RW4")) return "psg";
  // A UE1 package's tag (ue1-package.md §3: DWORD 0x9E2A83C1), whatever its extension.
  if (size >= 4 && load_u32le(d) == 0x9E2A83C1u) return "upackage";
  if (size >= 128 && d[0] == 0x0A && d[1] <= 5 && d[2] == 1 && d[3] == 8) return "pcx";

  // UE1 files have no magic: their sizes are exact multiples of their records.
  if (size >= 48 && load_u16le(d) != 0 && 48 + 16 * uint64_t(load_u16le(d)) == fileSize && load_u16le(d + 2) >= 3) {
    if (!endsWithNoCase(file, "_a.3d")) return "ue1-data";
  }
  if (size >= 4) {
    size_t frames = load_u16le(d), frameSize = load_u16le(d + 2);
    if (frames > 0 && frameSize > 0 && 4 + uint64_t(frames) * frameSize == fileSize && !endsWithNoCase(file, "_d.3d"))
      return "ue1-anim";
  }
  // Named as one and with a plausible header, a UE1 file whose size does not add up (cut short, or
  // trailing bytes) is still claimed: the decoder then says which count the bytes cannot hold.
  if (size >= 4 && endsWithNoCase(file, "_a.3d")) {
    const uint32_t numFrames = load_u16le(d), frameSize = load_u16le(d + 2);
    if (numFrames > 0 && frameSize > 0 && frameSize % 4 == 0) return "ue1-anim";
  }
  if (size >= 4 && endsWithNoCase(file, "_d.3d")) {
    const uint32_t numPolys = load_u16le(d), numVertices = load_u16le(d + 2);
    if (numPolys > 0 && numVertices >= 3) return "ue1-data";
  }
  if (endsWithNoCase(file, ".uc") || containsNoCase(d, size, "#exec mesh")) return "uc";
  if (endsWithNoCase(file, ".config") || containsNoCase(d, size, "[removetracks]") ||
      containsNoCase(d, size, "[animset]"))
    return "config";
  return "unknown";
}

}  // namespace rs
