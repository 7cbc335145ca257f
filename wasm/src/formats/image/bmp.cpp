// Windows BMP: a 14-byte file header ("BM", file size, pixel data offset at byte 10), a DIB header
// whose first u32 is its own size (12 = BITMAPCOREHEADER with u16 sizes; 40 = BITMAPINFOHEADER;
// 52, 56, 108, 124 = its v2..v5 extensions with the channel masks inside), masks after a 40-byte
// header when compression is BI_BITFIELDS, then the palette, then rows padded to 4 bytes,
// bottom-up unless the height is negative.
#include <algorithm>
#include <cstring>

#include "convert/chunks.h"
#include "formats/image/image.h"
#include "formats/image/image_internal.h"
#include "formats/image/pixel_cap.h"
#include "io/bytes.h"

namespace rs {

namespace {

constexpr size_t kFileHeaderBytes = 14;
constexpr uint32_t kBiRgb = 0, kBiRle8 = 1, kBiRle4 = 2, kBiBitfields = 3;

#define BMP_FAIL(at, ...) ::rs::fail("BMP", file, size_t(at), __VA_ARGS__)

// A channel mask such as 0x7C00 as its shift and width; a zero mask reads as 255 (opaque alpha).
struct Channel {
  uint32_t mask = 0, shift = 0, bits = 0;
  explicit Channel(uint32_t m = 0) : mask(m) {
    if (!m) return;
    while (!((m >> shift) & 1)) ++shift;
    while (bits < 32 - shift && ((m >> (shift + bits)) & 1)) ++bits;
  }
  uint8_t read(uint32_t v, uint8_t none) const {
    if (!mask) return none;
    const uint32_t c = (v & mask) >> shift;
    return bits > 8 ? uint8_t(c >> (bits - 8)) : image::scaleTo8(c & ((1u << bits) - 1), bits);
  }
};

struct Info {
  uint32_t headerSize = 0;
  uint32_t width = 0, height = 0;
  bool topDown = false;
  uint32_t bitCount = 0, compression = kBiRgb, colorsUsed = 0;
  uint32_t masks[4] = {0, 0, 0, 0};  // R, G, B, A
  size_t paletteAt = 0;              // first palette entry
  uint32_t paletteEntryBytes = 4;    // 3 in BITMAPCOREHEADER files
};

RS_STEP Status readInfo(const uint8_t* d, size_t size, const std::string& file, Info& in) {
  in.headerSize = load_u32le(d + 14);
  const uint32_t hs = in.headerSize;
  if (hs != 12 && hs != 40 && hs != 52 && hs != 56 && hs != 108 && hs != 124)
    return BMP_FAIL(14, "DIB header size %u is not one of 12, 40, 52, 56, 108, 124", hs);
  if (kFileHeaderBytes + hs > size)
    return BMP_FAIL(14, "DIB header of %u bytes runs past the end of the %zu-byte file", hs, size);
  in.paletteAt = kFileHeaderBytes + hs;
  if (hs == 12) {
    in.width = load_u16le(d + 18);
    in.height = load_u16le(d + 20);
    in.bitCount = load_u16le(d + 24);
    in.paletteEntryBytes = 3;
  } else {
    const int32_t w = load_i32le(d + 18), h = load_i32le(d + 22);
    if (w <= 0) return BMP_FAIL(18, "width %d is not positive", w);
    if (h == 0 || h == INT32_MIN) return BMP_FAIL(22, "height %d", h);
    in.width = uint32_t(w);
    in.topDown = h < 0;
    in.height = uint32_t(h < 0 ? -h : h);
    in.bitCount = load_u16le(d + 28);
    in.compression = load_u32le(d + 30);
    in.colorsUsed = load_u32le(d + 46);
    if (in.compression == kBiBitfields) {
      // v2+ headers hold the masks at bytes 54..65 (alpha at 66 from v3); a 40-byte header is
      // followed by them, and the palette (if any) comes after.
      const size_t at = 54;
      if (hs == 40) {
        if (at + 12 > size) return BMP_FAIL(at, "BI_BITFIELDS masks run past the end of the %zu-byte file", size);
        in.paletteAt += 12;
      }
      for (int c = 0; c < 3; ++c) in.masks[c] = load_u32le(d + at + 4 * c);
      if (hs >= 56) in.masks[3] = load_u32le(d + at + 12);
    }
  }
  if (in.width == 0 || in.height == 0) return BMP_FAIL(18, "image is %u × %u pixels", in.width, in.height);
  return Status{};
}

Status checkPixelFormat(const Info& in, const std::string& file) {
  const size_t bitsAt = in.headerSize == 12 ? 24 : 28;
  const uint32_t b = in.bitCount;
  if (b != 1 && b != 4 && b != 8 && b != 16 && b != 24 && b != 32)
    return BMP_FAIL(bitsAt, "%u bits per pixel (1, 4, 8, 16, 24 or 32)", b);
  if (in.compression == kBiRle8 || in.compression == kBiRle4)
    return BMP_FAIL(30, "%s compression is not supported (BI_RGB and BI_BITFIELDS are)",
                    in.compression == kBiRle8 ? "BI_RLE8" : "BI_RLE4");
  if (in.compression != kBiRgb && in.compression != kBiBitfields)
    return BMP_FAIL(30, "compression %u is not supported (0 = BI_RGB, 3 = BI_BITFIELDS)", in.compression);
  if (in.compression == kBiBitfields && b != 16 && b != 32)
    return BMP_FAIL(30, "BI_BITFIELDS with %u bits per pixel (16 or 32)", b);
  if (in.compression == kBiBitfields && (!in.masks[0] || !in.masks[1] || !in.masks[2]))
    return BMP_FAIL(54, "BI_BITFIELDS masks R %08X G %08X B %08X: a colour channel is empty", in.masks[0], in.masks[1],
                    in.masks[2]);
  return Status{};
}

// The palette of a 1/4/8-bit image as RGBA8 (entries are B, G, R[, reserved]). It ends where the
// pixels start: BITMAPCOREHEADER files have no count, and writers often store fewer entries.
RS_STEP Status readPalette(const uint8_t* d, size_t size, const std::string& file, const Info& in, uint32_t pixelsAt,
                           std::vector<uint8_t>& rgba) {
  const uint32_t most = 1u << in.bitCount;
  uint32_t count = in.colorsUsed && in.colorsUsed < most ? in.colorsUsed : most;
  if (pixelsAt >= in.paletteAt) count = std::min<uint64_t>(count, (pixelsAt - in.paletteAt) / in.paletteEntryBytes);
  const uint64_t bytes = uint64_t(count) * in.paletteEntryBytes;
  if (in.paletteAt > size || bytes > size - in.paletteAt)
    return BMP_FAIL(in.paletteAt, "palette of %u entries of %u bytes runs past the end of the %zu-byte file", count,
                    in.paletteEntryBytes, size);
  rgba.assign(size_t(most) * 4, 0);  // indices past the palette read as transparent black
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = d + in.paletteAt + size_t(i) * in.paletteEntryBytes;
    uint8_t* o = &rgba[size_t(i) * 4];
    o[0] = e[2], o[1] = e[1], o[2] = e[0], o[3] = 255;
  }
  return Status{};
}

// One row of file pixels to RGBA8.
void convertRow(const Info& in, const uint8_t* row, const std::vector<uint8_t>& palette, const Channel* ch,
                uint8_t* o) {
  const uint32_t w = in.width;
  switch (in.bitCount) {
    case 1:
    case 4:
    case 8: {
      const uint32_t perByte = 8 / in.bitCount, mask = (1u << in.bitCount) - 1;
      for (uint32_t x = 0; x < w; ++x, o += 4) {
        const uint32_t shift = 8 - in.bitCount * (x % perByte + 1);
        std::memcpy(o, &palette[((row[x / perByte] >> shift) & mask) * 4], 4);
      }
      return;
    }
    case 24:
      for (uint32_t x = 0; x < w; ++x, o += 4, row += 3) o[0] = row[2], o[1] = row[1], o[2] = row[0], o[3] = 255;
      return;
    default: {
      const bool wide = in.bitCount == 32;
      for (uint32_t x = 0; x < w; ++x, o += 4) {
        const uint32_t v = wide ? load_u32le(row + size_t(x) * 4) : load_u16le(row + size_t(x) * 2);
        o[0] = ch[0].read(v, 0), o[1] = ch[1].read(v, 0), o[2] = ch[2].read(v, 0), o[3] = ch[3].read(v, 255);
      }
    }
  }
}

}  // namespace

RS_STEP Status decodeBmp(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out.format = "bmp";
  if (!data || size < kFileHeaderBytes + 4)
    return BMP_FAIL(0, "file is %zu bytes, shorter than the file header and DIB header size", size);
  if (data[0] != 'B' || data[1] != 'M') return BMP_FAIL(0, "signature is not \"BM\"");
  Info in;
  Status s = readInfo(data, size, file, in);
  if (!s.ok()) return s;
  s = checkPixelCap("BMP", file, 18, in.width, in.height);
  if (!s.ok()) return s;
  s = checkPixelFormat(in, file);
  if (!s.ok()) return s;
  const uint32_t pixelsAt = load_u32le(data + 10);
  std::vector<uint8_t> palette;
  if (in.bitCount <= 8) {
    s = readPalette(data, size, file, in, pixelsAt, palette);
    if (!s.ok()) return s;
  }

  // Rows are padded to 4 bytes; the last row's padding is often missing, so it is not required.
  const uint64_t stride = (uint64_t(in.width) * in.bitCount + 31) / 32 * 4;
  const uint64_t lastRow = (uint64_t(in.width) * in.bitCount + 7) / 8;
  const uint64_t needed = stride * (in.height - 1) + lastRow;
  if (pixelsAt > size || needed > size - pixelsAt)
    return BMP_FAIL(10, "%u × %u pixels at %u bits need %llu bytes from byte %u, the file has %zu", in.width, in.height,
                    in.bitCount, (unsigned long long)needed, pixelsAt, size);

  // 16/32-bit BI_RGB have fixed layouts: X1R5G5B5, and B, G, R, reserved (read as alpha).
  uint32_t masks[4] = {in.masks[0], in.masks[1], in.masks[2], in.masks[3]};
  if (in.compression == kBiRgb && in.bitCount == 16)
    masks[0] = 0x7C00, masks[1] = 0x03E0, masks[2] = 0x001F, masks[3] = 0;
  if (in.compression == kBiRgb && in.bitCount == 32)
    masks[0] = 0x00FF0000, masks[1] = 0x0000FF00, masks[2] = 0x000000FF, masks[3] = 0xFF000000;
  const Channel ch[4] = {Channel(masks[0]), Channel(masks[1]), Channel(masks[2]), Channel(masks[3])};

  Texture& tex = image::beginTexture(out, "bmp", file, in.width, in.height, "rgba8");
  const size_t outStride = size_t(in.width) * 4;
  std::vector<uint8_t> rgba(outStride * in.height);
  for (uint32_t y = 0; y < in.height; ++y) {
    const uint32_t dst = in.topDown ? y : in.height - 1 - y;
    convertRow(in, data + pixelsAt + size_t(y) * size_t(stride), palette, ch, rgba.data() + dst * outStride);
  }
  if (masks[3] && image::opaqueWhenAlphaEmpty(rgba))
    out.info.emplace_back("alpha", "every alpha value is 0: shown opaque");
  tex.mips.push_back(std::move(rgba));
  out.info.emplace_back("pixels",
                        format("%u-bit %s, %s", in.bitCount, in.compression == kBiBitfields ? "BI_BITFIELDS" : "BI_RGB",
                               in.topDown ? "top-down" : "bottom-up"));
  return Status{};
}

}  // namespace rs
