// Writers for the image files mods carry beside their meshes (TGA, BMP, DDS): test fixtures and
// fuzz seeds. Every writer takes RGBA8 pixels, rows top first, and stores them in the requested
// variant the way the format's own tools do, so a decode must give the pixels back (after the
// variant's quantisation: 5-bit channels, 1-bit alpha, grey).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {

struct TgaIn {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4, rows top first
  uint8_t type = 2;           // 1, 2, 3 or the RLE forms 9, 10, 11
  uint8_t depth = 24;         // pixel bits: 8/16 (colour-mapped index, grey), 15/16/24/32 (true-colour)
  uint8_t mapBits = 24;       // colour-mapped: entry bits 15/16/24/32
  uint16_t mapFirst = 0;      // colour-mapped: index of the first colour-map entry
  uint8_t alphaBits = 0;      // descriptor bits 0..3
  bool topDown = false;       // descriptor bit 5
  bool rightToLeft = false;   // descriptor bit 4
  std::string id;             // image ID field
};
// Colour-mapped images get a map of the distinct colours in first-seen order (at most 256 for
// 8-bit indices). RLE packets may cross rows, as the specification allows.
std::vector<uint8_t> writeTga(const TgaIn& in);

struct BmpIn {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;         // width * height * 4, rows top first
  uint16_t bitCount = 24;            // 1, 4, 8 (palette of the distinct colours), 16, 24, 32
  uint32_t headerSize = 40;          // 12 (BITMAPCOREHEADER), 40, 52, 56, 108, 124
  bool bitfields = false;            // BI_BITFIELDS with `masks` (16 and 32 bits)
  uint32_t masks[4] = {0, 0, 0, 0};  // R, G, B, A
  bool topDown = false;              // negative height
};
std::vector<uint8_t> writeBmp(const BmpIn& in);

struct DdsIn {
  uint32_t width = 0, height = 0;
  // "dxt1", "dxt3", "dxt5": `levels` hold the blocks; "a8r8g8b8", "x8r8g8b8", "a8b8g8r8",
  // "r8g8b8": `levels` hold RGBA8 rows top first, stored in that layout.
  std::string format = "dxt1";
  bool cube = false;
  bool declareMipCount = true;               // set DDSD_MIPMAPCOUNT and the count
  std::vector<std::vector<uint8_t>> levels;  // level 0 first; cube maps: the 6 faces of each level concatenated
};
// Data is stored face by face, each face's whole mip chain in turn, as DirectX does.
std::vector<uint8_t> writeDds(const DdsIn& in);

// Byte size of one face of a DDS level: DXT blocks, or RGBA8 texels (4 bytes each).
size_t ddsLevelBytes(const std::string& format, uint32_t width, uint32_t height, uint32_t level);

}  // namespace rs
