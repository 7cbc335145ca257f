// Placeholder until the UE1 decoders land; replaced by the real sources in this folder.
#include "formats/ue1/ue1.h"

namespace rs {
Status decodeUe1(const uint8_t*, size_t, const std::string& dataFile, const uint8_t*, size_t,
                 const std::string&, const std::string&, const std::string&, Model&) {
  return fail("UE1", dataFile, 0, "decoder not built yet");
}
Status decodePcx(const uint8_t*, size_t, const std::string& file, bool, Model&) {
  return fail("PCX", file, 0, "decoder not built yet");
}
}  // namespace rs
