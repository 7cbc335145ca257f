// One pixel cap for every image decoder (TGA, BMP, DDS, PCX, PSG textures): a decoded image is
// held as RGBA8 in WASM memory, copied to JavaScript and uploaded to the GPU, so a 16-byte header
// declaring 16384 x 16384 must be refused before anything is allocated, not after 1 GiB was.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"

namespace rs {

// 64 million pixels (8000 x 8000; 256 MB as RGBA8), counted over every face of a cube map.
constexpr uint64_t kMaxImagePixels = 64000000;

// Fails when width x height x faces is over kMaxImagePixels, naming the format, the file, the
// width field and its byte offset:
//   "TGA huge.tga: width 16384 × height 16384 at byte 12 is 268 Mpx, over the 64 Mpx limit"
Status checkPixelCap(const char* formatName, const std::string& file, size_t widthOffset, uint32_t width,
                     uint32_t height, uint32_t faces = 1);

}  // namespace rs
