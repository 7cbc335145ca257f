#include "writers/image_writer.h"

#include <cstring>

#include "writers/writer_bytes.h"

namespace rs {

namespace {

// The distinct colours of an image, first seen first, and each pixel's index among them.
void buildPalette(const std::vector<uint8_t>& rgba, std::vector<uint32_t>& colours, std::vector<uint32_t>& index) {
  index.resize(rgba.size() / 4);
  for (size_t i = 0; i < index.size(); ++i) {
    uint32_t c;
    std::memcpy(&c, &rgba[i * 4], 4);
    size_t k = 0;
    while (k < colours.size() && colours[k] != c) ++k;
    if (k == colours.size()) colours.push_back(c);
    index[i] = uint32_t(k);
  }
}

// A pixel as A1R5G5B5 (alpha bit set when alpha >= 128).
uint16_t argb1555(const uint8_t* p) {
  return uint16_t(((p[3] >= 128) << 15) | ((p[0] >> 3) << 10) | ((p[1] >> 3) << 5) | (p[2] >> 3));
}

// One TGA pixel (or colour-map entry) of `bits` bits from RGBA8.
void tgaPixel(ByteWriter& w, const uint8_t* p, uint32_t bits, bool grey) {
  if (grey) {
    w.u8(p[0]);
    if (bits == 16) w.u8(p[3]);
    return;
  }
  if (bits == 15 || bits == 16) return w.u16(argb1555(p));
  w.u8(p[2]), w.u8(p[1]), w.u8(p[0]);
  if (bits == 32) w.u8(p[3]);
}

// Run-length packets over a sequence of encoded pixels of `bpp` bytes each.
void tgaRle(ByteWriter& w, const std::vector<uint8_t>& px, size_t bpp) {
  const size_t n = px.size() / bpp;
  const auto same = [&](size_t a, size_t b) { return std::memcmp(&px[a * bpp], &px[b * bpp], bpp) == 0; };
  size_t i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && run < 128 && same(i, i + run)) ++run;
    if (run >= 2) {
      w.u8(uint8_t(0x80 | (run - 1)));
      w.raw(&px[i * bpp], bpp);
      i += run;
      continue;
    }
    size_t lit = 1;
    while (i + lit < n && lit < 128 && !(i + lit + 1 < n && same(i + lit, i + lit + 1))) ++lit;
    w.u8(uint8_t(lit - 1));
    w.raw(&px[i * bpp], lit * bpp);
    i += lit;
  }
}

}  // namespace

std::vector<uint8_t> writeTga(const TgaIn& in) {
  const uint8_t kind = in.type & 3;
  const bool mapped = kind == 1, grey = kind == 3;
  std::vector<uint32_t> colours, index;
  if (mapped) buildPalette(in.rgba, colours, index);

  ByteWriter w;
  w.u8(uint8_t(in.id.size()));
  w.u8(mapped ? 1 : 0);
  w.u8(in.type);
  w.u16(mapped ? in.mapFirst : 0);
  w.u16(uint16_t(colours.size()));
  w.u8(mapped ? in.mapBits : 0);
  w.u16(0), w.u16(0);  // origin
  w.u16(uint16_t(in.width)), w.u16(uint16_t(in.height));
  w.u8(in.depth);
  w.u8(uint8_t(in.alphaBits | (in.rightToLeft ? 0x10 : 0) | (in.topDown ? 0x20 : 0)));
  w.fixed(in.id, in.id.size());
  for (uint32_t c : colours) tgaPixel(w, reinterpret_cast<const uint8_t*>(&c), in.mapBits, false);

  // Pixels in file order: rows bottom-up unless top-down, each right to left if asked.
  ByteWriter px;
  for (uint32_t r = 0; r < in.height; ++r) {
    const uint32_t y = in.topDown ? r : in.height - 1 - r;
    for (uint32_t c = 0; c < in.width; ++c) {
      const uint32_t x = in.rightToLeft ? in.width - 1 - c : c;
      const size_t i = size_t(y) * in.width + x;
      if (mapped) {
        const uint32_t v = index[i] + in.mapFirst;
        if (in.depth == 16)
          px.u16(uint16_t(v));
        else
          px.u8(uint8_t(v));
      } else {
        tgaPixel(px, &in.rgba[i * 4], in.depth, grey);
      }
    }
  }
  if (in.type >= 9)
    tgaRle(w, px.bytes, (in.depth + 7) / 8);
  else
    w.raw(px.bytes.data(), px.bytes.size());
  return std::move(w.bytes);
}

std::vector<uint8_t> writeBmp(const BmpIn& in) {
  const bool core = in.headerSize == 12, paletted = in.bitCount <= 8;
  std::vector<uint32_t> colours, index;
  if (paletted) buildPalette(in.rgba, colours, index);
  const uint32_t entryBytes = core ? 3 : 4;
  const uint32_t masksAfter = (in.bitfields && in.headerSize == 40) ? 12 : 0;
  const uint32_t pixelsAt = 14 + in.headerSize + masksAfter + uint32_t(colours.size()) * entryBytes;
  const uint32_t stride = (in.width * in.bitCount + 31) / 32 * 4;

  ByteWriter w;
  w.u8('B'), w.u8('M');
  w.u32(pixelsAt + stride * in.height);
  w.u32(0);
  w.u32(pixelsAt);
  w.u32(in.headerSize);
  if (core) {
    w.u16(uint16_t(in.width)), w.u16(uint16_t(in.height)), w.u16(1), w.u16(in.bitCount);
  } else {
    w.i32(int32_t(in.width));
    w.i32(in.topDown ? -int32_t(in.height) : int32_t(in.height));
    w.u16(1), w.u16(in.bitCount);
    w.u32(in.bitfields ? 3 : 0);
    w.u32(stride * in.height);
    w.i32(2835), w.i32(2835);  // 72 dpi
    w.u32(uint32_t(colours.size())), w.u32(0);
    const size_t extra = in.headerSize - 40;
    if (extra) {
      const size_t start = w.size();
      for (int c = 0; c < 4 && w.size() - start + 4 <= extra; ++c) w.u32(in.bitfields ? in.masks[c] : 0);
      w.pad(extra - (w.size() - start));
    }
  }
  if (masksAfter)
    for (int c = 0; c < 3; ++c) w.u32(in.masks[c]);
  for (uint32_t c : colours) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&c);
    w.u8(p[2]), w.u8(p[1]), w.u8(p[0]);
    if (!core) w.u8(0);
  }

  // The value of a pixel under a mask: the channel's top bits, shifted into place.
  const auto put = [](uint32_t mask, uint8_t v) -> uint32_t {
    if (!mask) return 0;
    uint32_t shift = 0, bits = 0;
    while (!((mask >> shift) & 1)) ++shift;
    while (shift + bits < 32 && ((mask >> (shift + bits)) & 1)) ++bits;
    const uint32_t top = bits >= 8 ? uint32_t(v) << (bits - 8) : uint32_t(v) >> (8 - bits);
    return top << shift;
  };
  uint32_t masks[4] = {in.masks[0], in.masks[1], in.masks[2], in.masks[3]};
  if (!in.bitfields && in.bitCount == 16) masks[0] = 0x7C00, masks[1] = 0x03E0, masks[2] = 0x001F, masks[3] = 0;
  if (!in.bitfields && in.bitCount == 32)
    masks[0] = 0xFF0000, masks[1] = 0xFF00, masks[2] = 0xFF, masks[3] = 0xFF000000;
  for (uint32_t r = 0; r < in.height; ++r) {
    const uint32_t y = in.topDown ? r : in.height - 1 - r;
    std::vector<uint8_t> row(stride, 0);
    for (uint32_t x = 0; x < in.width; ++x) {
      const size_t i = size_t(y) * in.width + x;
      const uint8_t* p = &in.rgba[i * 4];
      if (paletted) {
        const uint32_t perByte = 8 / in.bitCount;
        row[x / perByte] |= uint8_t(index[i] << (8 - in.bitCount * (x % perByte + 1)));
      } else if (in.bitCount == 24) {
        row[x * 3] = p[2], row[x * 3 + 1] = p[1], row[x * 3 + 2] = p[0];
      } else {
        const uint32_t v = put(masks[0], p[0]) | put(masks[1], p[1]) | put(masks[2], p[2]) | put(masks[3], p[3]);
        for (uint32_t b = 0; b < in.bitCount / 8u; ++b) row[x * (in.bitCount / 8u) + b] = uint8_t(v >> (8 * b));
      }
    }
    w.raw(row.data(), row.size());
  }
  return std::move(w.bytes);
}

size_t ddsLevelBytes(const std::string& format, uint32_t width, uint32_t height, uint32_t level) {
  const size_t w = width >> level ? width >> level : 1, h = height >> level ? height >> level : 1;
  if (format == "dxt1") return (w + 3) / 4 * ((h + 3) / 4) * 8;
  if (format == "dxt3" || format == "dxt5") return (w + 3) / 4 * ((h + 3) / 4) * 16;
  return w * h * 4;
}

std::vector<uint8_t> writeDds(const DdsIn& in) {
  const bool dxt = in.format.compare(0, 3, "dxt") == 0;
  // Uncompressed layouts: bits per pixel, R/G/B/A masks, and where each RGBA byte goes.
  uint32_t bits = 32, masks[4] = {0xFF0000, 0xFF00, 0xFF, 0xFF000000};
  if (in.format == "x8r8g8b8") masks[3] = 0;
  if (in.format == "a8b8g8r8") masks[0] = 0xFF, masks[2] = 0xFF0000;
  if (in.format == "r8g8b8") bits = 24, masks[3] = 0;

  ByteWriter w;
  w.fixed("DDS ", 4);
  w.u32(124);
  w.u32(0x1 | 0x2 | 0x4 | 0x1000 | (in.declareMipCount ? 0x20000 : 0));  // caps, height, width, pixel format, mip count
  w.u32(in.height), w.u32(in.width);
  w.u32(dxt ? uint32_t(ddsLevelBytes(in.format, in.width, in.height, 0)) : in.width * bits / 8);
  w.u32(0);
  w.u32(in.declareMipCount ? uint32_t(in.levels.size()) : 0);
  w.pad(44);
  w.u32(32);
  if (dxt) {
    w.u32(0x4);
    std::string cc = in.format;
    for (char& c : cc) c = char(c - 32 * (c >= 'a' && c <= 'z'));
    w.fixed(cc, 4);
    w.pad(20);
  } else {
    w.u32(0x40 | (masks[3] ? 0x1 : 0));
    w.u32(0);
    w.u32(bits);
    for (uint32_t m : masks) w.u32(m);
  }
  w.u32(0x1000 | (in.levels.size() > 1 ? 0x400008 : 0) | (in.cube ? 0x8 : 0));
  w.u32(in.cube ? 0x200 | 0xFC00 : 0);
  w.pad(12);

  const uint32_t faces = in.cube ? 6 : 1;
  for (uint32_t f = 0; f < faces; ++f) {
    for (size_t l = 0; l < in.levels.size(); ++l) {
      const size_t bytes = ddsLevelBytes(in.format, in.width, in.height, uint32_t(l));
      const uint8_t* src = in.levels[l].data() + bytes * f;
      if (dxt) {
        w.raw(src, bytes);
        continue;
      }
      for (size_t i = 0; i < bytes; i += 4) {
        uint32_t v = 0;
        for (int c = 0; c < 4; ++c)
          for (int b = 0; b < 4; ++b)
            if (masks[c] == 0xFFu << (8 * b)) v |= uint32_t(src[i + size_t(c)]) << (8 * b);
        for (uint32_t b = 0; b < bits / 8; ++b) w.u8(uint8_t(v >> (8 * b)));
      }
    }
  }
  return std::move(w.bytes);
}

}  // namespace rs
