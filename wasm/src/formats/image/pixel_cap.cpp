#include "formats/image/pixel_cap.h"

namespace rs {

Status checkPixelCap(const char* formatName, const std::string& file, size_t widthOffset, uint32_t width,
                     uint32_t height, uint32_t faces) {
  // In double: 2^32 x 2^32 x 6 does not fit 64 bits, and exactness only matters near the cap.
  const double pixels = double(width) * double(height) * double(faces);
  if (pixels <= double(kMaxImagePixels)) return Status{};
  const std::string cube = faces > 1 ? format(" × %u faces", faces) : std::string();
  Status s;
  s.error = format("%s %s: width %u × height %u%s at byte %zu is %.0f Mpx, over the %.0f Mpx limit", formatName,
                   file.c_str(), width, height, cube.c_str(), widthOffset, pixels / 1e6, double(kMaxImagePixels) / 1e6);
  return s;
}

}  // namespace rs
