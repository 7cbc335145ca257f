// Placeholder until the 0 A.D. decoders land; replaced by pmd.cpp and pssa.cpp.
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"

namespace rs {
Status decodePmd(const uint8_t*, size_t, const std::string& file, Model&) {
  return fail("PMD", file, 0, "decoder not built yet");
}
Status decodePssa(const uint8_t*, size_t, const std::string& file, Model&) {
  return fail("PSSA", file, 0, "decoder not built yet");
}
}  // namespace rs
