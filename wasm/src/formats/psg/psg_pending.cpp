// Placeholder until the PSG decoder lands; replaced by the real sources in this folder.
#include "formats/psg/psg.h"

namespace rs {
Status decodePsg(const uint8_t*, size_t, const std::string& file, Model&) {
  return fail("PSG", file, 0, "decoder not built yet");
}
}  // namespace rs
