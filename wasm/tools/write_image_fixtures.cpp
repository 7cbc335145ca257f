// write_image_fixtures <outdir>: small TGA, BMP and DDS files for the browser tests and fuzz seeds,
// one per variant the decoders read. Every picture is 8 x 8: the left half red (200, 30, 30), the
// right half blue (30, 30, 200), the top row white, alpha 255 except pixel (7, 7) (bottom right),
// which is alpha 0 in the formats that carry alpha.
#include <cstdio>
#include <string>
#include <vector>

#include "writers/image_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

namespace {

std::vector<uint8_t> picture() {
  std::vector<uint8_t> rgba(8 * 8 * 4);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      uint8_t* p = &rgba[(y * 8 + x) * 4];
      const bool red = x < 4;
      p[0] = y == 0 ? 255 : red ? 200 : 30;
      p[1] = y == 0 ? 255 : 30;
      p[2] = y == 0 ? 255 : red ? 30 : 200;
      p[3] = (x == 7 && y == 7) ? 0 : 255;
    }
  return rgba;
}

TgaIn tga(uint8_t type, uint8_t depth, bool topDown) {
  TgaIn t;
  t.width = t.height = 8, t.rgba = picture(), t.type = type, t.depth = depth, t.topDown = topDown;
  t.alphaBits = depth == 32 ? 8 : depth == 16 ? 1 : 0;
  return t;
}

BmpIn bmp(uint16_t bits, uint32_t header, bool topDown) {
  BmpIn b;
  b.width = b.height = 8, b.rgba = picture(), b.bitCount = bits, b.headerSize = header, b.topDown = topDown;
  return b;
}

// DXT1 blocks of one colour per 4 x 4 block (RGB565 endpoints both that colour), for every level.
std::vector<std::vector<uint8_t>> dxt1Levels(uint32_t faces) {
  std::vector<std::vector<uint8_t>> levels;
  for (uint32_t l = 0; l < 4; ++l) {
    std::vector<uint8_t> level;
    for (size_t i = 0; i < ddsLevelBytes("dxt1", 8, 8, l) / 8 * faces; ++i) {
      const uint16_t c = (i % 2 == 0) ? uint16_t((25 << 11) | (7 << 5) | 3) : uint16_t((3 << 11) | (7 << 5) | 25);
      level.insert(level.end(), {uint8_t(c), uint8_t(c >> 8), uint8_t(c), uint8_t(c >> 8), 0, 0, 0, 0});
    }
    levels.push_back(level);
  }
  return levels;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_image_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  const auto put = [&](const char* name, const std::vector<uint8_t>& bytes) { ok = writeFile(dir + "/" + name, bytes) && ok; };
  put("image_rgb24.tga", writeTga(tga(2, 24, false)));
  put("image_rgba32_top.tga", writeTga(tga(2, 32, true)));
  put("image_rle16.tga", writeTga(tga(10, 16, false)));
  put("image_mapped_rle.tga", writeTga(tga(9, 8, true)));
  put("image_grey.tga", writeTga(tga(3, 8, false)));
  put("image_8bit.bmp", writeBmp(bmp(8, 40, false)));
  put("image_4bit_core.bmp", writeBmp(bmp(4, 12, false)));
  put("image_24bit_top.bmp", writeBmp(bmp(24, 40, true)));
  BmpIn v5 = bmp(32, 124, false);
  v5.bitfields = true, v5.masks[0] = 0xFF0000, v5.masks[1] = 0xFF00, v5.masks[2] = 0xFF, v5.masks[3] = 0xFF000000;
  put("image_32bit_v5.bmp", writeBmp(v5));
  DdsIn d;
  d.width = d.height = 8, d.format = "dxt1", d.levels = dxt1Levels(1);
  put("image_dxt1_mips.dds", writeDds(d));
  d.cube = true, d.levels = dxt1Levels(6);
  put("image_dxt1_cube.dds", writeDds(d));
  DdsIn u;
  u.width = u.height = 8, u.format = "a8r8g8b8", u.levels = {picture()};
  put("image_a8r8g8b8.dds", writeDds(u));
  if (!ok) {
    std::fprintf(stderr, "write_image_fixtures: cannot write to %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
