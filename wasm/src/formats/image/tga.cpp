// Truevision TGA (TGA File Format Specification 2.0). An 18-byte header, an image ID, an optional
// colour map, then pixels: raw, or run-length packets (a byte n: bit 7 set = one pixel repeated
// (n & 0x7F) + 1 times, clear = (n & 0x7F) + 1 literal pixels). Pixels are little-endian BGR(A);
// 15/16-bit ones are A1R5G5B5. Rows run bottom-up unless descriptor bit 5 is set.
#include <algorithm>
#include <cstring>

#include "convert/chunks.h"
#include "formats/image/image.h"
#include "formats/image/image_internal.h"
#include "formats/image/pixel_cap.h"
#include "io/bytes.h"

namespace rs {

namespace {

constexpr size_t kHeaderBytes = 18;

enum class Kind { Mapped = 1, TrueColour = 2, Grey = 3 };

// One pixel (or colour-map entry) of `bits` bits to RGBA8.
struct PixelFormat {
  Kind kind;
  uint32_t bits;
  bool alphaBit;  // 16-bit: bit 15 is alpha (descriptor declares an attribute bit)

  void toRgba(const uint8_t* p, uint8_t* o) const {
    if (kind == Kind::Grey) {
      o[0] = o[1] = o[2] = p[0];
      o[3] = bits == 16 ? p[1] : 255;
      return;
    }
    switch (bits) {
      case 15:
      case 16: {
        const uint32_t v = load_u16le(p);
        o[0] = image::scaleTo8((v >> 10) & 31, 5);
        o[1] = image::scaleTo8((v >> 5) & 31, 5);
        o[2] = image::scaleTo8(v & 31, 5);
        o[3] = (bits == 16 && alphaBit && !(v & 0x8000)) ? 0 : 255;
        return;
      }
      case 24: o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = 255; return;
      default: o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = p[3]; return;
    }
  }
};

#define TGA_FAIL(at, ...) ::rs::fail("TGA", file, size_t(at), __VA_ARGS__)

struct Header {
  uint8_t idLength, mapType, type;
  uint32_t mapFirst, mapLength, mapBits;
  uint32_t width, height, depth;
  uint8_t descriptor;
  Kind kind() const { return Kind(type & 3); }
  bool rle() const { return type & 8; }
  uint32_t alphaBits() const { return descriptor & 15u; }
};

Status checkHeader(const Header& h, const std::string& file) {
  if (h.mapType > 1) return TGA_FAIL(1, "colour-map type %u is not 0 (none) or 1 (present)", h.mapType);
  if (h.type != 1 && h.type != 2 && h.type != 3 && h.type != 9 && h.type != 10 && h.type != 11)
    return TGA_FAIL(2, "image type %u is not supported (1, 2, 3 and their RLE forms 9, 10, 11 are)", h.type);
  if (h.width == 0 || h.height == 0) return TGA_FAIL(12, "image is %u × %u pixels", h.width, h.height);
  Status cap = checkPixelCap("TGA", file, 12, h.width, h.height);
  if (!cap.ok()) return cap;
  const auto trueColour = [](uint32_t b) { return b == 15 || b == 16 || b == 24 || b == 32; };
  switch (h.kind()) {
    case Kind::Mapped:
      if (h.mapType != 1) return TGA_FAIL(1, "colour-mapped image (type %u) without a colour map", h.type);
      if (h.depth != 8 && h.depth != 16)
        return TGA_FAIL(16, "colour-mapped image with %u-bit indices (8 or 16)", h.depth);
      if (!trueColour(h.mapBits)) return TGA_FAIL(7, "colour-map entries of %u bits (15, 16, 24 or 32)", h.mapBits);
      if (h.mapLength == 0) return TGA_FAIL(5, "colour map has no entries");
      break;
    case Kind::TrueColour:
      if (!trueColour(h.depth)) return TGA_FAIL(16, "true-colour pixels of %u bits (15, 16, 24 or 32)", h.depth);
      break;
    case Kind::Grey:
      if (h.depth != 8 && h.depth != 16) return TGA_FAIL(16, "grey pixels of %u bits (8, or 16 with alpha)", h.depth);
      break;
  }
  return Status{};
}

// The colour map as RGBA8 entries.
RS_STEP std::vector<uint8_t> readColourMap(const Header& h, const uint8_t* p) {
  const PixelFormat entry{Kind::TrueColour, h.mapBits, h.alphaBits() > 0};
  const uint32_t stride = (h.mapBits + 7) / 8;
  std::vector<uint8_t> rgba(size_t(h.mapLength) * 4);
  for (uint32_t i = 0; i < h.mapLength; ++i) entry.toRgba(p + size_t(i) * stride, &rgba[size_t(i) * 4]);
  return rgba;
}

// Converts pixels in file order; colour-mapped pixels look their index up, counting misses.
struct Converter {
  PixelFormat direct;
  bool mapped;
  uint32_t indexBytes;
  uint32_t mapFirst;
  const std::vector<uint8_t>* colourMap;
  size_t badIndices = 0;

  void operator()(const uint8_t* p, uint8_t* o) {
    if (!mapped) return direct.toRgba(p, o);
    const uint32_t index = indexBytes == 2 ? load_u16le(p) : p[0];
    const size_t entry = size_t(index) - mapFirst;
    if (index < mapFirst || entry * 4 >= colourMap->size()) {
      std::memset(o, 0, 4);
      ++badIndices;
      return;
    }
    std::memcpy(o, colourMap->data() + entry * 4, 4);
  }
};

// Run-length packets until every pixel is filled or the data ends; returns pixels filled.
RS_STEP size_t decodeRle(const uint8_t* p, const uint8_t* end, uint32_t bpp, Converter& convert,
                         std::vector<uint8_t>& rgba, bool& overrun) {
  const size_t total = rgba.size() / 4;
  size_t px = 0;
  while (px < total && p < end) {
    const uint8_t head = *p++;
    size_t n = (head & 0x7Fu) + 1;
    if (n > total - px) {
      n = total - px;
      overrun = true;
    }
    if (head & 0x80) {
      if (size_t(end - p) < bpp) break;
      uint8_t value[4];
      convert(p, value);
      p += bpp;
      for (size_t i = 0; i < n; ++i) std::memcpy(&rgba[(px + i) * 4], value, 4);
    } else {
      const size_t available = size_t(end - p) / bpp;
      const size_t take = std::min(n, available);
      for (size_t i = 0; i < take; ++i, p += bpp) convert(p, &rgba[(px + i) * 4]);
      if (take < n) return px + take;
    }
    px += n;
  }
  return px;
}

void reverseEachRow(std::vector<uint8_t>& rgba, uint32_t width, uint32_t height) {
  for (uint32_t y = 0; y < height; ++y) {
    uint8_t* row = rgba.data() + size_t(y) * width * 4;
    for (uint32_t a = 0, b = width - 1; a < b; ++a, --b) std::swap_ranges(row + a * 4, row + a * 4 + 4, row + b * 4);
  }
}

const char* kindName(Kind k) { return k == Kind::Mapped ? "colour-mapped" : k == Kind::Grey ? "grey" : "true-colour"; }

}  // namespace

RS_STEP Status decodeTga(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out.format = "tga";
  if (!data || size < kHeaderBytes)
    return TGA_FAIL(0, "file is %zu bytes, shorter than the %zu-byte header", size, kHeaderBytes);
  Header h{data[0],
           data[1],
           data[2],
           load_u16le(data + 3),
           load_u16le(data + 5),
           data[7],
           load_u16le(data + 12),
           load_u16le(data + 14),
           data[16],
           data[17]};
  Status s = checkHeader(h, file);
  if (!s.ok()) return s;

  const size_t mapAt = kHeaderBytes + h.idLength;
  if (mapAt > size) return TGA_FAIL(0, "image ID of %u bytes runs past the end of the %zu-byte file", h.idLength, size);
  const uint64_t mapBytes = h.mapType ? uint64_t(h.mapLength) * ((h.mapBits + 7) / 8) : 0;
  if (mapBytes > size - mapAt)
    return TGA_FAIL(5, "colour map of %u entries of %u bits at byte %zu needs %llu bytes, the file has %zu",
                    h.mapLength, h.mapBits, mapAt, (unsigned long long)mapBytes, size);
  const std::vector<uint8_t> colourMap =
      h.kind() == Kind::Mapped ? readColourMap(h, data + mapAt) : std::vector<uint8_t>();

  const size_t pixelsAt = mapAt + size_t(mapBytes);
  const uint32_t bpp = (h.depth + 7) / 8;
  const uint64_t total = uint64_t(h.width) * h.height;
  const uint64_t remaining = size - pixelsAt;
  // Refuse what the data cannot fill before allocating: raw pixels are bpp bytes each; an RLE
  // packet of 1 + bpp bytes holds at most 128 pixels.
  if (!h.rle() && total * bpp > remaining)
    return TGA_FAIL(pixelsAt, "%u × %u pixels of %u bytes need %llu bytes, %llu remain", h.width, h.height, bpp,
                    (unsigned long long)(total * bpp), (unsigned long long)remaining);
  const uint64_t rleMost = remaining / (1 + bpp) * 128;
  if (h.rle() && total > rleMost)
    return TGA_FAIL(pixelsAt, "%u × %u pixels cannot come from %llu bytes of RLE packets (at most %llu pixels)",
                    h.width, h.height, (unsigned long long)remaining, (unsigned long long)rleMost);

  Texture& tex = image::beginTexture(out, "tga", file, h.width, h.height, "rgba8");
  std::vector<uint8_t> rgba(size_t(total) * 4, 0);
  Converter convert{{h.kind(), h.depth, h.alphaBits() > 0}, h.kind() == Kind::Mapped, bpp, h.mapFirst, &colourMap};
  const uint8_t* p = data + pixelsAt;
  if (h.rle()) {
    bool overrun = false;
    const size_t filled = decodeRle(p, data + size, bpp, convert, rgba, overrun);
    if (filled < total)
      out.warnings.push_back(format("%s: RLE data ends after %zu of %llu pixels; the rest is transparent black",
                                    out.name.c_str(), filled, (unsigned long long)total));
    if (overrun) out.warnings.push_back(format("%s: an RLE packet runs past the last pixel; cut", out.name.c_str()));
  } else {
    for (size_t i = 0; i < total; ++i, p += bpp) convert(p, &rgba[i * 4]);
  }
  if (convert.badIndices)
    out.warnings.push_back(format("%s: %zu pixels index outside the colour map (entries %u to %u); shown transparent",
                                  out.name.c_str(), convert.badIndices, h.mapFirst, h.mapFirst + h.mapLength - 1));
  if (image::opaqueWhenAlphaEmpty(rgba)) out.info.emplace_back("alpha", "every alpha byte is 0: shown opaque");
  // Descriptor bit 5: rows top first; bit 4: pixels right to left.
  if (!(h.descriptor & 0x20)) image::flipRows(rgba, h.width, h.height);
  if (h.descriptor & 0x10) reverseEachRow(rgba, h.width, h.height);
  tex.mips.push_back(std::move(rgba));
  out.info.emplace_back("pixels",
                        format("%s %u-bit%s%s", kindName(h.kind()), h.kind() == Kind::Mapped ? h.mapBits : h.depth,
                               h.rle() ? ", RLE" : "", h.descriptor & 0x20 ? ", top-down" : ", bottom-up"));
  return Status{};
}

}  // namespace rs
