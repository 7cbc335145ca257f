// Image decoders (TGA, BMP, DDS) and the pixel cap shared with PCX and PSG textures: writer round
// trips of every variant, real BMPs from the samples, and huge declared sizes refused before any
// allocation, with the allocator watched.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "formats/image/image.h"
#include "formats/image/pixel_cap.h"
#include "formats/psg/psg.h"
#include "formats/ue1/ue1.h"
#include "io/bytes.h"
#include "writers/image_writer.h"
#include "writers/psg_writer.h"
#include "writers/ue1_writer.h"

#include "test_support.h"

#include "counting_allocator.h"

using namespace rs;
using Bytes = std::vector<uint8_t>;
using Decode = std::function<Status(const Bytes&, Model&)>;

namespace {

// Peak allocation allowed for one decode: what the hostile suite allows every format.
constexpr size_t kFactor = 8;
constexpr size_t kSlack = 1 << 20;
// RLE TGA legitimately expands: a 2-byte packet is 128 grey pixels, 512 bytes of RGBA8.
constexpr size_t kRleFactor = 260;

// Decodes with the allocator watched; fails the test if the peak passes the budget.
Status watched(const Decode& decode, const Bytes& input, Model& m, size_t factor = kFactor) {
  const size_t base = gLive.load();
  gPeak = base;
  Status s = decode(input, m);
  const size_t used = gPeak.load() - base;
  EXPECT_LE(used, factor * input.size() + kSlack) << "input of " << input.size() << " bytes";
  return s;
}

const Decode tga = [](const Bytes& b, Model& m) { return decodeTga(b.data(), b.size(), "huge.tga", m); };
const Decode bmp = [](const Bytes& b, Model& m) { return decodeBmp(b.data(), b.size(), "huge.bmp", m); };
const Decode dds = [](const Bytes& b, Model& m) { return decodeDds(b.data(), b.size(), "huge.dds", m); };
const Decode any = [](const Bytes& b, Model& m) { return decodeImage(b.data(), b.size(), "huge.img", m); };

void putU16(Bytes& b, size_t at, uint32_t v) { b[at] = uint8_t(v), b[at + 1] = uint8_t(v >> 8); }
void putU32(Bytes& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + size_t(k)] = uint8_t(v >> (8 * k));
}

// A 9 x 6 test picture of 12 colours with horizontal runs (so RLE writes both packet kinds) and
// three alpha levels. Every colour differs in its top 5 bits and in red, so 15-bit and grey
// variants keep them apart.
Bytes picture(uint32_t w = 9, uint32_t h = 6, uint32_t colours = 12) {
  Bytes rgba(size_t(w) * h * 4);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint32_t c = (x / 3 + y * 2) % colours;
      uint8_t* p = &rgba[(size_t(y) * w + x) * 4];
      p[0] = uint8_t(16 + c * 20), p[1] = uint8_t(240 - c * 16), p[2] = uint8_t((c * 73) & 0xF8);
      p[3] = c % 3 == 0 ? 0 : c % 3 == 1 ? 255 : 136;
    }
  return rgba;
}

uint8_t bits5(uint8_t v) { return uint8_t(((v >> 3) * 255 + 15) / 31); }

// What a variant stores of a pixel, as the decoder gives it back.
using Quantise = std::function<void(uint8_t* p)>;
Bytes expected(Bytes rgba, const Quantise& q) {
  for (size_t i = 0; i < rgba.size(); i += 4) q(&rgba[i]);
  return rgba;
}
const Quantise exact = [](uint8_t*) {};
const Quantise opaque = [](uint8_t* p) { p[3] = 255; };
const Quantise rgb555 = [](uint8_t* p) { p[0] = bits5(p[0]), p[1] = bits5(p[1]), p[2] = bits5(p[2]), p[3] = 255; };
const Quantise argb1555 = [](uint8_t* p) {
  p[0] = bits5(p[0]), p[1] = bits5(p[1]), p[2] = bits5(p[2]), p[3] = p[3] >= 128 ? 255 : 0;
};
const Quantise grey = [](uint8_t* p) { p[1] = p[2] = p[0], p[3] = 255; };
const Quantise greyAlpha = [](uint8_t* p) { p[1] = p[2] = p[0]; };

Model decodeOk(const Decode& decode, const Bytes& bytes) {
  Model m;
  Status s = watched(decode, bytes, m, kRleFactor);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

}  // namespace

// ---------------------------------------------------------------- TGA

TEST(Tga, EveryTypeDepthAndOriginRoundTrips) {
  struct Case {
    uint8_t type, depth, mapBits, alphaBits;
    Quantise q;
    const char* name;
  };
  const Case cases[] = {
      {2, 24, 0, 0, opaque, "true-colour 24"},
      {2, 32, 0, 8, exact, "true-colour 32"},
      {2, 15, 0, 0, rgb555, "true-colour 15"},
      {2, 16, 0, 1, argb1555, "true-colour 16 + alpha bit"},
      {2, 16, 0, 0, rgb555, "true-colour 16, no alpha"},
      {1, 8, 24, 0, opaque, "mapped 24"},
      {1, 8, 32, 8, exact, "mapped 32"},
      {1, 8, 15, 0, rgb555, "mapped 15"},
      {1, 8, 16, 1, argb1555, "mapped 16 + alpha bit"},
      {1, 16, 24, 0, opaque, "mapped, 16-bit indices"},
      {3, 8, 0, 0, grey, "grey 8"},
      {3, 16, 0, 8, greyAlpha, "grey 16 with alpha"},
  };
  const Bytes rgba = picture();
  for (const Case& c : cases) {
    for (uint8_t type : {c.type, uint8_t(c.type + 8)}) {
      for (int origin = 0; origin < 4; ++origin) {
        TgaIn in;
        in.width = 9, in.height = 6, in.rgba = rgba;
        in.type = type, in.depth = c.depth, in.mapBits = c.mapBits, in.alphaBits = c.alphaBits;
        in.topDown = origin & 1, in.rightToLeft = origin & 2;
        in.mapFirst = origin == 3 ? 5 : 0;
        in.id = origin == 2 ? "made by image_writer" : "";
        const std::string label =
            std::string(c.name) + (type >= 9 ? ", RLE" : "") + ", origin " + std::to_string(origin);
        Model m = decodeOk(tga, writeTga(in));
        ASSERT_EQ(m.textures.size(), 1u) << label;
        const Texture& t = m.textures[0];
        EXPECT_EQ(m.format, "tga");
        EXPECT_EQ(t.format, "rgba8") << label;
        EXPECT_EQ(t.width, 9u);
        EXPECT_EQ(t.height, 6u);
        ASSERT_EQ(t.mips.size(), 1u);
        EXPECT_EQ(t.mips[0], expected(rgba, c.q)) << label;
        EXPECT_TRUE(m.warnings.empty()) << label << ": " << test::allWarnings(m);
      }
    }
  }
}

TEST(Tga, RlePacketsMayCrossRowsAndAreCountedInPixels) {
  // One run packet of 128 pixels covers rows 0..3 of a 32 x 4 image and nothing more is needed.
  Bytes b(18, 0);
  b[2] = 11, b[16] = 8, b[17] = 0x20;
  putU16(b, 12, 32), putU16(b, 14, 4);
  b.push_back(0xFF), b.push_back(77);
  Model m = decodeOk(tga, b);
  ASSERT_EQ(m.textures.size(), 1u);
  EXPECT_EQ(m.textures[0].mips[0], expected(Bytes(32 * 4 * 4, 77), grey));
}

TEST(Tga, ShortRleDataWarnsAndLeavesTheRestTransparent) {
  TgaIn in;
  in.width = 9, in.height = 6, in.rgba = picture(), in.type = 10, in.depth = 32, in.alphaBits = 8, in.topDown = true;
  Bytes b = writeTga(in);
  b.resize(b.size() - 20);
  Model m = decodeOk(tga, b);
  ASSERT_EQ(m.textures.size(), 1u);
  EXPECT_TRUE(test::hasWarning(m, "RLE data ends after")) << test::allWarnings(m);
  const Bytes& px = m.textures[0].mips[0];
  EXPECT_EQ(Bytes(px.end() - 4, px.end()), Bytes(4, 0));
}

TEST(Tga, AllZeroAlphaIsShownOpaque) {
  Bytes rgba = picture();
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 0;
  TgaIn in;
  in.width = 9, in.height = 6, in.rgba = rgba, in.depth = 32;
  Model m = decodeOk(tga, writeTga(in));
  EXPECT_EQ(m.textures[0].mips[0], expected(rgba, opaque));
  EXPECT_NE(test::infoOf(m, "alpha").find("shown opaque"), std::string::npos);
}

TEST(Tga, IndicesOutsideTheColourMapWarn) {
  TgaIn in;
  in.width = 9, in.height = 6, in.rgba = picture(), in.type = 1, in.depth = 8, in.mapFirst = 5;
  Bytes b = writeTga(in);
  b.back() = 2;  // below the first entry
  Model m = decodeOk(tga, b);
  EXPECT_TRUE(test::hasWarning(m, "1 pixels index outside the colour map (entries 5 to 16)")) << test::allWarnings(m);
}

TEST(Tga, BadHeadersNameTheFieldAndOffset) {
  TgaIn in;
  in.width = 9, in.height = 6, in.rgba = picture();
  const Bytes good = writeTga(in);
  const auto error = [](Bytes b) {
    Model m;
    Status s = watched(tga, b, m);
    EXPECT_FALSE(s.ok());
    return s.error;
  };
  Bytes b = good;
  b[2] = 4;
  EXPECT_EQ(error(b),
            "TGA huge.tga: image type 4 is not supported (1, 2, 3 and their RLE forms 9, 10, 11 are) (at byte 2)");
  b = good, b[16] = 12;
  EXPECT_EQ(error(b), "TGA huge.tga: true-colour pixels of 12 bits (15, 16, 24 or 32) (at byte 16)");
  b = good, b.resize(100);
  EXPECT_EQ(error(b), "TGA huge.tga: 9 × 6 pixels of 3 bytes need 162 bytes, 82 remain (at byte 18)");
  b = good, b.resize(200), b[0] = 255;
  EXPECT_EQ(error(b), "TGA huge.tga: image ID of 255 bytes runs past the end of the 200-byte file (at byte 0)");
  EXPECT_EQ(error(Bytes(good.begin(), good.begin() + 10)),
            "TGA huge.tga: file is 10 bytes, shorter than the 18-byte header (at byte 0)");
}

// ---------------------------------------------------------------- BMP

TEST(Bmp, EveryBitCountHeaderAndRowOrderRoundTrips) {
  struct Case {
    uint16_t bits;
    uint32_t header;
    bool bitfields;
    uint32_t masks[4];
    uint32_t colours;  // distinct colours in the picture (palettes)
    Quantise q;
    const char* name;
  };
  const Quantise rgb565 = [](uint8_t* p) {
    p[0] = bits5(p[0]), p[1] = uint8_t(((p[1] >> 2) * 255 + 31) / 63), p[2] = bits5(p[2]), p[3] = 255;
  };
  const Case cases[] = {
      {1, 40, false, {}, 2, opaque, "1-bit"},
      {4, 40, false, {}, 12, opaque, "4-bit"},
      {8, 40, false, {}, 12, opaque, "8-bit"},
      {8, 12, false, {}, 12, opaque, "8-bit, BITMAPCOREHEADER"},
      {24, 12, false, {}, 12, opaque, "24-bit, BITMAPCOREHEADER"},
      {16, 40, false, {}, 12, rgb555, "16-bit X1R5G5B5"},
      {16, 40, true, {0xF800, 0x07E0, 0x001F, 0}, 12, rgb565, "16-bit BI_BITFIELDS 565"},
      {16, 56, true, {0x7C00, 0x03E0, 0x001F, 0x8000}, 12, argb1555, "16-bit BI_BITFIELDS 1555 (v3)"},
      {24, 40, false, {}, 12, opaque, "24-bit"},
      {24, 52, false, {}, 12, opaque, "24-bit, v2 header"},
      {32, 40, false, {}, 12, exact, "32-bit BI_RGB with alpha"},
      {32, 40, true, {0xFF0000, 0xFF00, 0xFF, 0}, 12, opaque, "32-bit BI_BITFIELDS, no alpha mask"},
      {32, 108, true, {0xFF, 0xFF00, 0xFF0000, 0xFF000000}, 12, exact, "32-bit BI_BITFIELDS ABGR (v4)"},
      {32, 124, true, {0xFF000000, 0xFF0000, 0xFF00, 0xFF}, 12, exact, "32-bit BI_BITFIELDS RGBA (v5)"},
  };
  for (const Case& c : cases) {
    for (uint32_t w : {9u, 13u}) {  // 13: rows need padding at every bit count
      for (bool topDown : {false, true}) {
        if (topDown && c.header == 12) continue;  // BITMAPCOREHEADER sizes are unsigned
        const Bytes rgba = picture(w, 6, c.colours);
        BmpIn in;
        in.width = w, in.height = 6, in.rgba = rgba, in.bitCount = c.bits, in.headerSize = c.header;
        in.bitfields = c.bitfields, in.topDown = topDown;
        std::copy(c.masks, c.masks + 4, in.masks);
        const std::string label = std::string(c.name) + ", width " + std::to_string(w) + (topDown ? ", top-down" : "");
        Model m = decodeOk(bmp, writeBmp(in));
        ASSERT_EQ(m.textures.size(), 1u) << label;
        EXPECT_EQ(m.format, "bmp");
        EXPECT_EQ(m.textures[0].width, w);
        EXPECT_EQ(m.textures[0].mips[0], expected(rgba, c.q)) << label;
      }
    }
  }
}

TEST(Bmp, ThirtyTwoBitWithAnUnusedFourthByteIsOpaque) {
  Bytes rgba = picture();
  for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 0;
  BmpIn in;
  in.width = 9, in.height = 6, in.rgba = rgba, in.bitCount = 32;
  Model m = decodeOk(bmp, writeBmp(in));
  EXPECT_EQ(m.textures[0].mips[0], expected(rgba, opaque));
}

TEST(Bmp, MissingPaddingAfterTheLastRowIsAccepted) {
  BmpIn in;
  in.width = 9, in.height = 6, in.rgba = picture(), in.bitCount = 24;
  Bytes b = writeBmp(in);
  b.resize(b.size() - 1);  // rows are 27 bytes + 1 of padding
  Model m = decodeOk(bmp, b);
  EXPECT_EQ(m.textures[0].mips[0], expected(picture(), opaque));
  b.resize(b.size() - 1);
  Model cut;
  Status s = watched(bmp, b, cut);
  EXPECT_EQ(s.error,
            "BMP huge.bmp: 9 × 6 pixels at 24 bits need 167 bytes from byte 54, the file has 220 (at byte 10)");
}

TEST(Bmp, UnsupportedCompressionAndBitCountsNameTheirField) {
  BmpIn in;
  in.width = 9, in.height = 6, in.rgba = picture(), in.bitCount = 8;
  Bytes b = writeBmp(in);
  putU32(b, 30, 1);
  Model m;
  EXPECT_EQ(watched(bmp, b, m).error,
            "BMP huge.bmp: BI_RLE8 compression is not supported (BI_RGB and BI_BITFIELDS are) (at byte 30)");
  b = writeBmp(in);
  putU16(b, 28, 2);
  EXPECT_EQ(watched(bmp, b, m).error, "BMP huge.bmp: 2 bits per pixel (1, 4, 8, 16, 24 or 32) (at byte 28)");
  b = writeBmp(in);
  putU32(b, 14, 64);
  EXPECT_EQ(watched(bmp, b, m).error,
            "BMP huge.bmp: DIB header size 64 is not one of 12, 40, 52, 56, 108, 124 (at byte 14)");
}

TEST(Bmp, RealTexturesFromTheSamples) {
  int seen = 0;
  for (const char* path : {"vertex3d/assimp-mar_rifle/m_rifl.bmp", "vertex3d/partystuff/Textures/RedBullTex1.bmp",
                           "vertex3d/partystuff/Textures/SandwichTex2.bmp"}) {
    Bytes b;
    if (!test::readBytes(test::samplesDir("") + path, b)) continue;
    ++seen;
    Model m = decodeOk(bmp, b);
    ASSERT_EQ(m.textures.size(), 1u) << path;
    const Texture& t = m.textures[0];
    // 24-bit bottom-up BI_RGB files with the pixels at byte 54: the top-left pixel is the first of
    // the file's last row, the bottom-right the last of its first row.
    const uint32_t w = load_u32le(b.data() + 18), h = load_u32le(b.data() + 22), stride = (w * 3 + 3) / 4 * 4;
    EXPECT_EQ(t.width, w);
    EXPECT_EQ(t.height, h);
    const uint8_t* topLeft = b.data() + 54 + size_t(h - 1) * stride;
    const uint8_t* bottomRight = b.data() + 54 + size_t(w - 1) * 3;
    EXPECT_EQ(Bytes(t.mips[0].begin(), t.mips[0].begin() + 4), Bytes({topLeft[2], topLeft[1], topLeft[0], 255}))
        << path;
    EXPECT_EQ(Bytes(t.mips[0].end() - 4, t.mips[0].end()), Bytes({bottomRight[2], bottomRight[1], bottomRight[0], 255}))
        << path;
    EXPECT_EQ(test::infoOf(m, "pixels"), "24-bit BI_RGB, bottom-up");
  }
  if (!seen) GTEST_SKIP() << "samples not found: " << test::samplesDir("vertex3d");
}

// ---------------------------------------------------------------- DDS

namespace {

// Distinct bytes for every level and face, so order mistakes show.
std::vector<Bytes> ddsLevels(const std::string& format, uint32_t w, uint32_t h, uint32_t levels, uint32_t faces) {
  std::vector<Bytes> out;
  for (uint32_t l = 0; l < levels; ++l) {
    Bytes level(ddsLevelBytes(format, w, h, l) * faces);
    for (size_t i = 0; i < level.size(); ++i) level[i] = uint8_t(i * 7 + l * 41 + i / 97);
    out.push_back(level);
  }
  return out;
}

}  // namespace

TEST(Dds, DxtBlocksAndMipChainsPassThrough) {
  struct Case {
    const char* format;
    uint32_t w, h, levels;
  };
  // 12 x 5 is not a multiple of 4 high: its levels are 12x5, 6x2, 3x1, 1x1 -> 3x2, 2x1, 1x1, 1x1 blocks.
  for (const Case& c :
       {Case{"dxt1", 16, 16, 5}, Case{"dxt3", 64, 16, 7}, Case{"dxt5", 12, 5, 4}, Case{"dxt1", 8, 4, 1}}) {
    DdsIn in;
    in.width = c.w, in.height = c.h, in.format = c.format, in.levels = ddsLevels(c.format, c.w, c.h, c.levels, 1);
    Model m = decodeOk(dds, writeDds(in));
    ASSERT_EQ(m.textures.size(), 1u) << c.format;
    const Texture& t = m.textures[0];
    EXPECT_EQ(t.format, c.format);
    EXPECT_FALSE(t.cube);
    EXPECT_EQ(t.mips, in.levels) << c.format << " " << c.w << "x" << c.h;
    EXPECT_EQ(test::countOf(m, "mips"), c.levels);
  }
  EXPECT_EQ(ddsLevelBytes("dxt5", 12, 5, 1), 2u * 16);  // 6 x 2: 2 x 1 blocks
  EXPECT_EQ(ddsLevelBytes("dxt1", 12, 5, 3), 8u);       // 1 x 1: one block
}

TEST(Dds, CubeMapsKeepEveryFacePerLevel) {
  DdsIn in;
  in.width = in.height = 8, in.format = "dxt1", in.cube = true, in.levels = ddsLevels("dxt1", 8, 8, 4, 6);
  Model m = decodeOk(dds, writeDds(in));
  ASSERT_EQ(m.textures.size(), 1u);
  EXPECT_TRUE(m.textures[0].cube);
  EXPECT_EQ(m.textures[0].mips, in.levels);
  EXPECT_EQ(test::infoOf(m, "pixels"), "dxt1, cube map");
}

TEST(Dds, UncompressedLayoutsExpandToRgba) {
  for (const char* format : {"a8r8g8b8", "a8b8g8r8", "x8r8g8b8", "r8g8b8"}) {
    const bool alpha = format[0] == 'a';
    DdsIn in;
    in.width = 9, in.height = 6, in.format = format;
    in.levels = {picture(), expected(picture(4, 3), exact), expected(picture(2, 1), exact),
                 expected(picture(1, 1), exact)};
    Model m = decodeOk(dds, writeDds(in));
    ASSERT_EQ(m.textures.size(), 1u) << format;
    const Texture& t = m.textures[0];
    EXPECT_EQ(t.format, "rgba8");
    ASSERT_EQ(t.mips.size(), 4u);
    for (size_t l = 0; l < 4; ++l)
      EXPECT_EQ(t.mips[l], expected(in.levels[l], alpha ? exact : opaque)) << format << " level " << l;
  }
}

TEST(Dds, MipCountsBeyondTheChainAreCutWithAWarning) {
  DdsIn in;
  in.width = in.height = 4, in.format = "dxt5", in.levels = ddsLevels("dxt5", 4, 4, 3, 1);
  Bytes b = writeDds(in);
  putU32(b, 28, 0x7FFFFFFF);
  Model m = decodeOk(dds, b);
  EXPECT_EQ(m.textures[0].mips, in.levels);
  EXPECT_TRUE(test::hasWarning(m, "2147483647 mip levels declared, a 4 × 4 image has 3")) << test::allWarnings(m);
  in.declareMipCount = false;
  Model one = decodeOk(dds, writeDds(in));
  EXPECT_EQ(one.textures[0].mips.size(), 1u);
}

TEST(Dds, UnsupportedFormatsNameTheirField) {
  DdsIn in;
  in.width = in.height = 4, in.format = "dxt1", in.levels = ddsLevels("dxt1", 4, 4, 1, 1);
  Bytes b = writeDds(in);
  std::copy_n("ATI2", 4, b.begin() + 84);
  Model m;
  EXPECT_EQ(watched(dds, b, m).error,
            "DDS huge.dds: FourCC \"ATI2\" is not supported (DXT1, DXT3 and DXT5 are) (at byte 84)");
  b = writeDds(in);
  putU32(b, 112, 0x200 | 0x400);
  EXPECT_EQ(watched(dds, b, m).error,
            "DDS huge.dds: cube map with only some of its 6 faces (caps2 0x600) is not supported (at byte 112)");
  b = writeDds(in);
  b.resize(b.size() - 1);
  EXPECT_EQ(watched(dds, b, m).error, "DDS huge.dds: dxt1 4 × 4, 1 mip level needs 8 bytes, 7 remain (at byte 128)");
}

// ---------------------------------------------------------------- by content

TEST(Image, DecodeImageChoosesByContentNotName) {
  TgaIn t;
  t.width = 9, t.height = 6, t.rgba = picture();
  BmpIn b;
  b.width = 9, b.height = 6, b.rgba = picture();
  DdsIn d;
  d.width = d.height = 4, d.levels = ddsLevels("dxt1", 4, 4, 1, 1);
  EXPECT_EQ(decodeOk(any, writeTga(t)).format, "tga");
  EXPECT_EQ(decodeOk(any, writeBmp(b)).format, "bmp");
  EXPECT_EQ(decodeOk(any, writeDds(d)).format, "dds");
  Model m;
  EXPECT_EQ(watched(any, Bytes(100, 0x89), m).error,
            "IMAGE huge.img: not a TGA, BMP or DDS image (no \"DDS \" or \"BM\" signature, and byte 2 is not a TGA "
            "image type) (at byte 0)");
}

// ---------------------------------------------------------------- the pixel cap

TEST(PixelCap, HugeDeclaredSizesAreRefusedBeforeAllocating) {
  Model m;
  Bytes t(18 + 64, 0);  // a 24-bit TGA header declaring 16384 x 16384, and 64 bytes
  t[2] = 2, t[16] = 24;
  putU16(t, 12, 16384), putU16(t, 14, 16384);
  EXPECT_EQ(watched(tga, t, m).error,
            "TGA huge.tga: width 16384 × height 16384 at byte 12 is 268 Mpx, over the 64 Mpx limit");
  t[2] = 10;  // the same as RLE
  EXPECT_EQ(watched(tga, t, m).error,
            "TGA huge.tga: width 16384 × height 16384 at byte 12 is 268 Mpx, over the 64 Mpx limit");

  BmpIn bi;
  bi.width = 2, bi.height = 2, bi.rgba = picture(2, 2);
  Bytes b = writeBmp(bi);
  putU32(b, 18, 40000), putU32(b, 22, 40000);
  EXPECT_EQ(watched(bmp, b, m).error,
            "BMP huge.bmp: width 40000 × height 40000 at byte 18 is 1600 Mpx, over the 64 Mpx limit");
  putU32(b, 18, 0x7FFFFFFF), putU32(b, 22, 0x80000001);  // top-down, -2^31 + 1
  EXPECT_EQ(
      watched(bmp, b, m).error,
      "BMP huge.bmp: width 2147483647 × height 2147483647 at byte 18 is 4611686014132 Mpx, over the 64 Mpx limit");

  DdsIn di;
  di.width = di.height = 4, di.levels = ddsLevels("dxt1", 4, 4, 1, 1);
  Bytes d = writeDds(di);
  putU32(d, 12, 0xFFFFFFFF), putU32(d, 16, 0xFFFFFFFF);
  EXPECT_EQ(
      watched(dds, d, m).error,
      "DDS huge.dds: width 4294967295 × height 4294967295 at byte 16 is 18446744065120 Mpx, over the 64 Mpx limit");
  di.cube = true, di.levels = ddsLevels("dxt1", 4, 4, 1, 6);
  d = writeDds(di);
  putU32(d, 12, 4096), putU32(d, 16, 4096);
  EXPECT_EQ(watched(dds, d, m).error,
            "DDS huge.dds: width 4096 × height 4096 × 6 faces at byte 16 is 101 Mpx, over the 64 Mpx limit");

  Bytes p = writePcx8(2, 2, {0, 1, 2, 3}, Bytes(768, 9));
  putU16(p, 8, 16383), putU16(p, 10, 16383);
  const Decode pcx = [](const Bytes& in, Model& out) {
    return decodePcx(in.data(), in.size(), "huge.pcx", false, out);
  };
  EXPECT_EQ(watched(pcx, p, m).error,
            "PCX huge.pcx: width 16384 × height 16384 at byte 4 is 268 Mpx, over the 64 Mpx limit");

  // PSG: sizes stop at the RSX's 4096, so the cap bites on cube maps: 4096² × 6 faces. A 4 × 4
  // cube arena gets its Texture object's big-endian width and height (+8, +10) set to 4096; the
  // object is dictionary row 1 (the dictionary offset is at 0x30, a row's object offset first).
  PsgTextureIn cube;
  cube.guid = 0x1234, cube.format = 0x86, cube.width = cube.height = 4, cube.cube = true;
  cube.levels = {Bytes(48, 1)};
  Bytes psg = writePsgTextures({cube});
  const uint32_t object = load_u32be(psg.data() + load_u32be(psg.data() + 0x30) + 24);
  psg[object + 8] = psg[object + 10] = 0x10, psg[object + 9] = psg[object + 11] = 0;
  const Decode decodeArena = [](const Bytes& in, Model& out) {
    return decodePsg(in.data(), in.size(), "huge.psg", out);
  };
  EXPECT_EQ(watched(decodeArena, psg, m).error, "PSG huge.psg: width 4096 × height 4096 × 6 faces at byte " +
                                                    std::to_string(object + 8) + " is 101 Mpx, over the 64 Mpx limit");
}

TEST(PixelCap, SizesUnderTheCapThatTheDataCannotFillAreRefusedToo) {
  Model m;
  // 8000 x 8000 is exactly 64 Mpx: allowed by the cap, refused because 200 bytes cannot hold it.
  Bytes t(18 + 200, 0);
  t[2] = 11, t[16] = 8;
  putU16(t, 12, 8000), putU16(t, 14, 8000);
  EXPECT_EQ(
      watched(tga, t, m).error,
      "TGA huge.tga: 8000 × 8000 pixels cannot come from 200 bytes of RLE packets (at most 12800 pixels) (at byte 18)");
  t[2] = 3;
  EXPECT_EQ(watched(tga, t, m).error,
            "TGA huge.tga: 8000 × 8000 pixels of 1 bytes need 64000000 bytes, 200 remain (at byte 18)");

  BmpIn bi;
  bi.width = 2, bi.height = 2, bi.rgba = picture(2, 2);
  Bytes b = writeBmp(bi);
  putU32(b, 18, 8000), putU32(b, 22, 8000);
  EXPECT_EQ(
      watched(bmp, b, m).error,
      "BMP huge.bmp: 8000 × 8000 pixels at 24 bits need 192000000 bytes from byte 54, the file has 70 (at byte 10)");

  DdsIn di;
  di.width = di.height = 4, di.format = "a8r8g8b8", di.levels = {picture(4, 4)};
  Bytes d = writeDds(di);
  putU32(d, 12, 8000), putU32(d, 16, 8000);
  EXPECT_EQ(watched(dds, d, m).error,
            "DDS huge.dds: rgba8 8000 × 8000, 1 mip level needs 256000000 bytes, 64 remain (at byte 128)");
}

TEST(PixelCap, CapIsSixtyFourMillionPixels) {
  EXPECT_EQ(kMaxImagePixels, 64000000u);
  EXPECT_TRUE(checkPixelCap("X", "x", 0, 8000, 8000).ok());
  EXPECT_FALSE(checkPixelCap("X", "x", 0, 8000, 8001).ok());
  EXPECT_EQ(checkPixelCap("X", "x.x", 7, 4000, 3000, 6).error,
            "X x.x: width 4000 × height 3000 × 6 faces at byte 7 is 72 Mpx, over the 64 Mpx limit");
}

// ---------------------------------------------------------------- hostile sweeps

namespace {

// Every 2- and 4-byte field of the header overwritten with extremes, and seeded byte flips: each
// decode returns (an error naming its offset, or a model) within the allocation budget.
void sweep(const char* label, const Bytes& original, const Decode& decode, size_t factor = kFactor) {
  size_t cases = 0, errors = 0;
  const auto run = [&](const Bytes& b) {
    Model m;
    Status s = watched(decode, b, m, factor);
    ++cases;
    if (!s.ok()) {
      ++errors;
      EXPECT_NE(s.error.find("at byte"), std::string::npos) << s.error;
    }
  };
  for (size_t n = 0; n < std::min<size_t>(original.size(), 200); ++n)
    run(Bytes(original.begin(), original.begin() + long(n)));
  const uint32_t evil[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x0000FFFFu, 0x00008000u, 0x00010000u, 0, 1};
  for (size_t at = 0; at + 4 <= std::min<size_t>(original.size(), 160); ++at)
    for (uint32_t v : evil) {
      Bytes b = original;
      putU32(b, at, v);
      run(b);
      b = original;
      putU16(b, at, v);
      run(b);
    }
  std::mt19937 rng(99);
  for (int i = 0; i < 1000; ++i) {
    Bytes b = original;
    for (int k = 0; k < 1 + i % 4; ++k) b[rng() % std::min<size_t>(b.size(), 160)] ^= uint8_t(1 + rng() % 255);
    run(b);
  }
  std::printf("[ sweep ] %s: %zu cases, %zu errors\n", label, cases, errors);
}

}  // namespace

TEST(ImageSweep, TgaBmpDdsStayWithinTheAllocationBudget) {
  TgaIn t;
  t.width = 9, t.height = 6, t.rgba = picture();
  sweep("TGA raw", writeTga(t), any);
  t.type = 9, t.depth = 8;
  sweep("TGA mapped RLE", writeTga(t), any, kRleFactor);
  t.type = 10, t.depth = 32, t.alphaBits = 8;
  sweep("TGA true-colour RLE", writeTga(t), any, kRleFactor);
  BmpIn b;
  b.width = 9, b.height = 6, b.rgba = picture(), b.bitCount = 4;
  sweep("BMP 4-bit", writeBmp(b), any);
  b.bitCount = 32, b.bitfields = true, b.headerSize = 124;
  b.masks[0] = 0xFF0000, b.masks[1] = 0xFF00, b.masks[2] = 0xFF, b.masks[3] = 0xFF000000;
  sweep("BMP 32-bit v5", writeBmp(b), any);
  DdsIn d;
  d.width = d.height = 8, d.format = "dxt5", d.cube = true, d.levels = ddsLevels("dxt5", 8, 8, 4, 6);
  sweep("DDS DXT5 cube", writeDds(d), any);
  d.format = "a8r8g8b8", d.cube = false, d.levels = {picture(8, 8), picture(4, 4)};
  sweep("DDS A8R8G8B8", writeDds(d), any);
}
