// write_image_fixtures <outdir>: small TGA, BMP and DDS files for the browser tests and fuzz seeds,
// one per variant the decoders read. Every picture is 8 x 8: the left half red (200, 30, 30), the
// right half blue (30, 30, 200), the top row white, alpha 255 except pixel (7, 7) (bottom right),
// which is alpha 0 in the formats that carry alpha.
//
// texture_shapes.psg: a PS3 texture arena of 19 textures in every shape WebGL 2 is strict about
// (DXT mip chains of non-square and odd sizes, 1 x 1 and 2 x 2 bases, cube maps, A8R8G8B8): the
// page must upload all of them without a GL error. GUIDs 1..19 in this order:
//   DXT1 2048x512 (1 mip), DXT1 16x16 (5), DXT1 512x16 (1), DXT5 512x512 (10), DXT1 64x32 (7),
//   DXT3 8x8 (4), DXT1 cube 16x16 (3), DXT1 cube 128x128 (8), DXT5 100x60 (7), DXT1 6x10 (4),
//   DXT1 256x64 (9), A8R8G8B8 16x8 (5), DXT1 cube 32x32 (6), DXT5 4x4 (3), DXT1 1x1 (1),
//   DXT1 2x2 (2), DXT3 64x4 (7), DXT1 4x64 (7), DXT5 256x256 (9).
#include <cstdio>
#include <string>
#include <vector>

#include "writers/image_writer.h"
#include "writers/psg_writer.h"
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

std::vector<uint8_t> textureShapes() {
  struct Shape {
    uint8_t format;
    uint16_t width, height;
    uint32_t mips;
    bool cube;
  };
  const Shape shapes[] = {
      {0x86, 2048, 512, 1, false}, {0x86, 16, 16, 5, false}, {0x86, 512, 16, 1, false}, {0x88, 512, 512, 10, false},
      {0x86, 64, 32, 7, false},    {0x87, 8, 8, 4, false},   {0x86, 16, 16, 3, true},   {0x86, 128, 128, 8, true},
      {0x88, 100, 60, 7, false},   {0x86, 6, 10, 4, false},  {0x86, 256, 64, 9, false}, {0x85, 16, 8, 5, false},
      {0x86, 32, 32, 6, true},     {0x88, 4, 4, 3, false},   {0x86, 1, 1, 1, false},    {0x86, 2, 2, 2, false},
      {0x87, 64, 4, 7, false},     {0x86, 4, 64, 7, false},  {0x88, 256, 256, 9, false}};
  std::vector<PsgTextureIn> textures;
  uint64_t guid = 1;
  for (const Shape& s : shapes) {
    PsgTextureIn t;
    t.guid = guid++, t.format = s.format, t.width = s.width, t.height = s.height, t.cube = s.cube;
    for (uint32_t l = 0; l < s.mips; ++l)
      t.levels.emplace_back(psgLevelBytes(s.format, s.width, s.height, l) * (s.cube ? 6 : 1), uint8_t(l * 40 + 7));
    textures.push_back(t);
  }
  return writePsgTextures(textures);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_image_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  const auto put = [&](const char* name, const std::vector<uint8_t>& bytes) {
    ok = writeFile(dir + "/" + name, bytes) && ok;
  };
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
  put("texture_shapes.psg", textureShapes());
  if (!ok) {
    std::fprintf(stderr, "write_image_fixtures: cannot write to %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
