// Shared image helpers, and the choice of decoder by content.
#include <algorithm>
#include <cstring>

#include "formats/image/image.h"
#include "formats/image/image_internal.h"
#include "io/bytes.h"

namespace rs {
namespace image {

Texture& beginTexture(Model& out, const char* formatName, const std::string& file, uint32_t width, uint32_t height,
                      const char* pixelFormat) {
  const size_t slash = file.find_last_of("/\\");
  out.format = formatName;
  out.name = slash == std::string::npos ? file : file.substr(slash + 1);
  out.count("width", width);
  out.count("height", height);
  out.textures.emplace_back();
  Texture& t = out.textures.back();
  t.name = out.name;
  t.width = width;
  t.height = height;
  t.format = pixelFormat;
  return t;
}

bool opaqueWhenAlphaEmpty(std::vector<uint8_t>& rgba) {
  for (size_t i = 3; i < rgba.size(); i += 4)
    if (rgba[i] != 0) return false;
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;
  return true;
}

void flipRows(std::vector<uint8_t>& rgba, uint32_t width, uint32_t height) {
  const size_t stride = size_t(width) * 4;
  for (uint32_t y = 0; y < height / 2; ++y)
    std::swap_ranges(rgba.begin() + ptrdiff_t(y * stride), rgba.begin() + ptrdiff_t((y + 1) * stride),
                     rgba.begin() + ptrdiff_t((height - 1 - y) * stride));
}

}  // namespace image

namespace {

bool isBmpHeaderSize(uint32_t n) { return n == 12 || n == 40 || n == 52 || n == 56 || n == 108 || n == 124; }

// TGA has no signature: a colour-map type of 0 or 1 and a known image type is the best evidence.
bool looksLikeTga(const uint8_t* d, size_t size) {
  if (size < 18 || d[1] > 1) return false;
  const uint8_t t = d[2];
  return t == 1 || t == 2 || t == 3 || t == 9 || t == 10 || t == 11;
}

}  // namespace

Status decodeImage(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  if (data && size >= 4 && std::memcmp(data, "DDS ", 4) == 0) return decodeDds(data, size, file, out);
  if (data && size >= 18 && data[0] == 'B' && data[1] == 'M' && isBmpHeaderSize(load_u32le(data + 14)))
    return decodeBmp(data, size, file, out);
  if (data && looksLikeTga(data, size)) return decodeTga(data, size, file, out);
  return fail("IMAGE", file, 0,
              "not a TGA, BMP or DDS image (no \"DDS \" or \"BM\" signature, and byte 2 is not a TGA image type)");
}

}  // namespace rs
