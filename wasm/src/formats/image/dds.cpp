// DirectDraw Surface: "DDS ", a 124-byte DDS_HEADER (flags at 8, height 12, width 16, mip count 28,
// DDS_PIXELFORMAT at 76: flags 80, FourCC 84, bit count 88, R/G/B/A masks 92..104; caps2 at 112),
// then each face's whole mip chain in turn (+X, −X, +Y, −Y, +Z, −Z for cube maps). Rows top first.
// A DXT level is max(1, (w + 3) / 4) × max(1, (h + 3) / 4) blocks of 8 (DXT1) or 16 bytes, where
// w = max(1, width >> level) and h likewise.
#include <cstring>

#include "convert/chunks.h"
#include "formats/image/image.h"
#include "formats/image/image_internal.h"
#include "formats/image/pixel_cap.h"
#include "io/bytes.h"

namespace rs {

namespace {

constexpr size_t kDataAt = 128;
constexpr uint32_t kDdsdMipmapCount = 0x20000;
constexpr uint32_t kDdpfAlphaPixels = 0x1, kDdpfFourCC = 0x4, kDdpfRgb = 0x40;
constexpr uint32_t kCaps2Cubemap = 0x200, kCaps2AllFaces = 0xFC00, kCaps2Volume = 0x200000;

#define DDS_FAIL(at, ...) ::rs::fail("DDS", file, size_t(at), __VA_ARGS__)

// How texels are stored: DXT blocks, or uncompressed pixels whose channels are whole bytes.
struct Layout {
  std::string format;                 // "dxt1", "dxt3", "dxt5" or "rgba8"
  uint32_t blockBytes = 0;            // DXT: bytes per 4x4 block; 0 = uncompressed
  uint32_t pixelBytes = 0;            // uncompressed: 3 or 4
  int channel[4] = {-1, -1, -1, -1};  // uncompressed: byte of R, G, B, A in a pixel; -1 = none (A: opaque)

  uint64_t levelBytes(uint32_t width, uint32_t height, uint32_t level) const {
    const uint64_t w = width >> level ? width >> level : 1, h = height >> level ? height >> level : 1;
    return blockBytes ? ((w + 3) / 4) * ((h + 3) / 4) * blockBytes : w * h * pixelBytes;
  }
};

// The byte a mask selects (0x00FF0000 -> 2), or -1 when it is not exactly one whole byte.
int maskByte(uint32_t mask) {
  for (int b = 0; b < 4; ++b)
    if (mask == 0xFFu << (8 * b)) return b;
  return -1;
}

RS_STEP Status readLayout(const uint8_t* d, const std::string& file, Layout& out) {
  const uint32_t pfFlags = load_u32le(d + 80);
  if (pfFlags & kDdpfFourCC) {
    char cc[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) cc[i] = (d[84 + i] >= 0x20 && d[84 + i] < 0x7F) ? char(d[84 + i]) : '?';
    if (!std::strcmp(cc, "DXT1"))
      out.format = "dxt1", out.blockBytes = 8;
    else if (!std::strcmp(cc, "DXT3"))
      out.format = "dxt3", out.blockBytes = 16;
    else if (!std::strcmp(cc, "DXT5"))
      out.format = "dxt5", out.blockBytes = 16;
    else
      return DDS_FAIL(84, "FourCC \"%s\" is not supported (DXT1, DXT3 and DXT5 are)", cc);
    return Status{};
  }
  if (!(pfFlags & kDdpfRgb)) return DDS_FAIL(80, "pixel format flags 0x%X name neither a FourCC nor RGB", pfFlags);
  const uint32_t bits = load_u32le(d + 88);
  const uint32_t r = load_u32le(d + 92), g = load_u32le(d + 96), b = load_u32le(d + 100), a = load_u32le(d + 104);
  out.format = "rgba8";
  out.pixelBytes = bits / 8;
  out.channel[0] = maskByte(r), out.channel[1] = maskByte(g), out.channel[2] = maskByte(b);
  out.channel[3] = (pfFlags & kDdpfAlphaPixels) ? maskByte(a) : -1;
  const bool alphaOk = !(pfFlags & kDdpfAlphaPixels) || out.channel[3] >= 0;
  const bool inPixel = out.channel[0] < int(out.pixelBytes) && out.channel[1] < int(out.pixelBytes) &&
                       out.channel[2] < int(out.pixelBytes) && out.channel[3] < int(out.pixelBytes);
  if ((bits != 24 && bits != 32) || out.channel[0] < 0 || out.channel[1] < 0 || out.channel[2] < 0 || !alphaOk ||
      !inPixel)
    return DDS_FAIL(88,
                    "%u-bit RGB with masks R %08X G %08X B %08X A %08X is not supported (8 bits per channel, "
                    "24 or 32 bits per pixel are)",
                    bits, r, g, b, a);
  return Status{};
}

uint32_t fullChainLevels(uint32_t width, uint32_t height) {
  uint32_t n = 1;
  for (uint32_t m = width > height ? width : height; m > 1; m >>= 1) ++n;
  return n;
}

// One uncompressed level of one face to RGBA8.
void expandLevel(const Layout& layout, const uint8_t* src, uint64_t pixels, uint8_t* o) {
  const int* c = layout.channel;
  for (uint64_t i = 0; i < pixels; ++i, src += layout.pixelBytes, o += 4) {
    o[0] = src[c[0]], o[1] = src[c[1]], o[2] = src[c[2]];
    o[3] = c[3] >= 0 ? src[c[3]] : 255;
  }
}

}  // namespace

RS_STEP Status decodeDds(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out.format = "dds";
  if (!data || size < kDataAt) return DDS_FAIL(0, "file is %zu bytes, shorter than the 128-byte header", size);
  if (std::memcmp(data, "DDS ", 4) != 0) return DDS_FAIL(0, "magic is not \"DDS \"");
  if (load_u32le(data + 4) != 124) return DDS_FAIL(4, "header size %u is not 124", load_u32le(data + 4));
  const uint32_t flags = load_u32le(data + 8), height = load_u32le(data + 12), width = load_u32le(data + 16);
  const uint32_t caps2 = load_u32le(data + 112);
  if (width == 0 || height == 0) return DDS_FAIL(12, "image is %u × %u pixels", width, height);
  if (caps2 & kCaps2Volume) return DDS_FAIL(112, "volume textures are not supported (caps2 0x%X)", caps2);
  const bool cube = caps2 & kCaps2Cubemap;
  if (cube && (caps2 & kCaps2AllFaces) != kCaps2AllFaces)
    return DDS_FAIL(112, "cube map with only some of its 6 faces (caps2 0x%X) is not supported", caps2);
  const uint32_t faces = cube ? 6 : 1;
  Status s = checkPixelCap("DDS", file, 16, width, height, faces);
  if (!s.ok()) return s;
  Layout layout;
  s = readLayout(data, file, layout);
  if (!s.ok()) return s;

  const uint32_t declared = (flags & kDdsdMipmapCount) && load_u32le(data + 28) ? load_u32le(data + 28) : 1;
  const uint32_t most = fullChainLevels(width, height);
  const uint32_t levels = declared < most ? declared : most;
  if (declared > most)
    out.warnings.push_back(format("%s: %u mip levels declared, a %u × %u image has %u; the rest are ignored",
                                  file.c_str(), declared, width, height, most));
  uint64_t chain = 0;
  for (uint32_t l = 0; l < levels; ++l) chain += layout.levelBytes(width, height, l);
  const uint64_t needed = chain * faces;
  if (needed > size - kDataAt)
    return DDS_FAIL(kDataAt, "%s %u × %u, %u mip level%s%s needs %llu bytes, %zu remain", layout.format.c_str(), width,
                    height, levels, levels == 1 ? "" : "s", cube ? " × 6 faces" : "", (unsigned long long)needed,
                    size - kDataAt);

  Texture& tex = image::beginTexture(out, "dds", file, width, height, layout.format.c_str());
  tex.cube = cube;
  tex.mips.resize(levels);
  uint64_t levelStart = 0;
  for (uint32_t l = 0; l < levels; ++l) {
    const uint64_t bytes = layout.levelBytes(width, height, l);
    const uint64_t texels = layout.blockBytes ? 0 : bytes / layout.pixelBytes;
    std::vector<uint8_t>& dst = tex.mips[l];
    dst.resize(size_t(layout.blockBytes ? bytes * faces : texels * 4 * faces));
    for (uint32_t f = 0; f < faces; ++f) {
      const uint8_t* src = data + kDataAt + chain * f + levelStart;
      if (layout.blockBytes)
        std::memcpy(dst.data() + bytes * f, src, size_t(bytes));
      else
        expandLevel(layout, src, texels, dst.data() + texels * 4 * f);
    }
    levelStart += bytes;
  }
  out.count("mips", levels);
  out.info.emplace_back("pixels", format("%s%s",
                                         layout.blockBytes        ? layout.format.c_str()
                                         : layout.pixelBytes == 4 ? "32-bit RGB(A)"
                                                                  : "24-bit RGB",
                                         cube ? ", cube map" : ""));
  return Status{};
}

}  // namespace rs
