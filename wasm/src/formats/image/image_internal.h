// Helpers shared by the TGA, BMP and DDS decoders.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace rs {
namespace image {

// Starts the model of an image file: format, name (the file name without folders) and counts;
// returns its one texture, sized and named, for the decoder to fill.
Texture& beginTexture(Model& out, const char* formatName, const std::string& file, uint32_t width, uint32_t height,
                      const char* pixelFormat);

// A 32-bit BMP or TGA whose fourth byte is 0 everywhere was written with that byte unused, not as
// an invisible picture (as browsers treat such BMPs): make it opaque. True when it did.
bool opaqueWhenAlphaEmpty(std::vector<uint8_t>& rgba);

// Reverses the row order of an RGBA8 image in place (bottom-up files to rows top first).
void flipRows(std::vector<uint8_t>& rgba, uint32_t width, uint32_t height);

// A channel of `bits` bits (1..8) scaled to 0..255, as 5-bit 31 -> 255 and 1-bit 1 -> 255.
inline uint8_t scaleTo8(uint32_t value, uint32_t bits) {
  if (bits >= 8) return uint8_t(value >> (bits - 8));
  const uint32_t top = (1u << bits) - 1;
  return uint8_t((value * 255 + top / 2) / top);
}

}  // namespace image
}  // namespace rs
