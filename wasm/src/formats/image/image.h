// Texture image files a mod folder holds beside its meshes: TGA, BMP and DDS, decoded in the
// worker like every other format (a 16384² TGA decoded on the main thread froze the page for 6 s).
// Output: one Texture in Model::textures, named after the file.
//   - TGA and BMP: "rgba8", one level, rows top first (three uploads it with flipY, as images).
//   - DDS: DXT1/DXT3/DXT5 blocks as stored ("dxt1"/"dxt3"/"dxt5"), every mip level; uncompressed
//     24/32-bit RGB(A) expanded to "rgba8" per level. Cube maps: the six faces (+X, −X, +Y, −Y,
//     +Z, −Z) concatenated in each level, `cube` set.
// Every decoder refuses images over kMaxImagePixels (formats/image/pixel_cap.h) and images whose
// declared size the file cannot hold, before allocating.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

// Truevision TGA: image types 1 (colour-mapped), 2 (true-colour), 3 (grey) and their RLE forms
// 9, 10, 11; 8/15/16/24/32-bit pixels and colour-map entries; either origin (descriptor bit 5)
// and right-to-left rows (bit 4).
Status decodeTga(const uint8_t* data, size_t size, const std::string& file, Model& out);

// Windows BMP: BITMAPCOREHEADER and BITMAPINFOHEADER (v1 to v5); 1/4/8-bit palettised,
// 16/24/32-bit; BI_RGB and BI_BITFIELDS; bottom-up (positive height) or top-down rows.
Status decodeBmp(const uint8_t* data, size_t size, const std::string& file, Model& out);

// DirectDraw Surface: FourCC DXT1/DXT3/DXT5, or uncompressed 24/32-bit with byte-aligned masks
// (A8R8G8B8, X8R8G8B8, R8G8B8 and their BGR orders); mip chains; complete cube maps.
Status decodeDds(const uint8_t* data, size_t size, const std::string& file, Model& out);

// Chooses by content: "DDS " magic, "BM" with a known header size, else a TGA header.
Status decodeImage(const uint8_t* data, size_t size, const std::string& file, Model& out);

}  // namespace rs
