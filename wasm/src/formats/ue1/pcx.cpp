// PCX (ZSoft) textures as used by UE1 imports: 8-bit, 1 plane, RLE, 256-colour palette at the end
// after a 0x0C marker; also 24-bit as 3 planes of 8 bits. Output: rgba8, rows top-down (row 0 is the
// top of the image), so with UE1 UVs (U/256, 1 − V/256) the front end uploads with flipY = true.
#include <cstring>

#include "convert/chunks.h"
#include "formats/image/pixel_cap.h"
#include "formats/ue1/ue1.h"
#include "io/bytes.h"

namespace rs {

namespace {

// The 128-byte header: window, bits, planes, line length.
struct PcxHeader {
  uint8_t version = 0, encoding = 0, bpp = 0, planes = 0;
  uint32_t width = 0, height = 0, bytesPerLine = 0;
};

RS_STEP Status readPcxHeader(const uint8_t* data, size_t size, const std::string& file, PcxHeader& h) {
  if (!data || size < 128) return fail("PCX", file, 0, "file is %zu bytes, shorter than the 128-byte header", size);
  if (data[0] != 0x0A) return fail("PCX", file, 0, "manufacturer byte is 0x%02X, not 0x0A", data[0]);
  h.version = data[1], h.encoding = data[2], h.bpp = data[3], h.planes = data[65];
  if (h.encoding > 1) return fail("PCX", file, 2, "encoding %u is unknown (0 = raw, 1 = RLE)", h.encoding);
  const uint32_t xmin = load_u16le(data + 4), ymin = load_u16le(data + 6), xmax = load_u16le(data + 8),
                 ymax = load_u16le(data + 10);
  h.bytesPerLine = load_u16le(data + 66);
  if (xmax < xmin || ymax < ymin) return fail("PCX", file, 4, "window %u,%u..%u,%u is empty", xmin, ymin, xmax, ymax);
  h.width = xmax - xmin + 1, h.height = ymax - ymin + 1;
  Status cap = checkPixelCap("PCX", file, 4, h.width, h.height);
  if (!cap.ok()) return cap;
  if (h.bpp != 8 || (h.planes != 1 && h.planes != 3))
    return fail("PCX", file, 3, "%u bits x %u planes is not supported (8x1 palettised or 8x3 RGB)", h.bpp, h.planes);
  if (h.bytesPerLine < h.width)
    return fail("PCX", file, 66, "BytesPerLine %u is less than the width %u", h.bytesPerLine, h.width);
  return Status();
}

// 8-bit palettised: the palette is the last 769 bytes (0x0C + 768), version 5. Returns it (or null)
// and where the pixel data ends.
RS_STEP const uint8_t* readPalette(const uint8_t* data, size_t size, const std::string& file, const PcxHeader& h,
                                   size_t& dataEnd, Model& out) {
  dataEnd = size;
  if (h.planes != 1) return nullptr;
  if (size >= 128 + 769 && data[size - 769] == 0x0C) {
    dataEnd = size - 769;
    if (h.version != 5)
      out.warnings.push_back(format("%s: version %u with a 256-colour palette", file.c_str(), h.version));
    return data + size - 768;
  }
  out.warnings.push_back(format("%s: no 256-colour palette after 0x0C at the end; shown as grey", file.c_str()));
  return nullptr;
}

// RLE: a byte 0xC0 | n repeats the next byte n times; anything else is one literal byte.
RS_STEP void unpackRle(const uint8_t* p, const uint8_t* end, const std::string& file, std::vector<uint8_t>& raw,
                       Model& out) {
  const size_t total = raw.size();
  size_t at = 0;
  bool overrun = false;
  while (at < total && p < end) {
    uint8_t c = *p++;
    size_t run = 1;
    if ((c & 0xC0) == 0xC0) {
      run = c & 0x3F;
      if (p >= end) break;
      c = *p++;
    }
    if (run > total - at) {
      run = total - at;
      overrun = true;
    }
    std::memset(raw.data() + at, c, run);
    at += run;
  }
  if (at < total)
    out.warnings.push_back(format("%s: pixel data ends after %zu of %llu bytes; the rest is black", file.c_str(), at,
                                  (unsigned long long)total));
  if (overrun) out.warnings.push_back(format("%s: an RLE run runs past the image; cut", file.c_str()));
}

// Scan lines (one plane after another per line) to RGBA rows.
RS_STEP std::vector<uint8_t> toRgba(const PcxHeader& h, const std::vector<uint8_t>& raw, const uint8_t* palette,
                                    bool maskIndexZero) {
  const uint64_t lineBytes = uint64_t(h.bytesPerLine) * h.planes;
  std::vector<uint8_t> rgba(size_t(h.width) * h.height * 4);
  uint8_t* o = rgba.data();
  for (uint32_t y = 0; y < h.height; ++y) {
    const uint8_t* line = raw.data() + size_t(y) * size_t(lineBytes);
    if (h.planes == 3) {
      for (uint32_t x = 0; x < h.width; ++x, o += 4) {
        o[0] = line[x];
        o[1] = line[h.bytesPerLine + x];
        o[2] = line[2 * size_t(h.bytesPerLine) + x];
        o[3] = 255;
      }
      continue;
    }
    for (uint32_t x = 0; x < h.width; ++x, o += 4) {
      const uint8_t i = line[x];
      if (palette) {
        o[0] = palette[i * 3], o[1] = palette[i * 3 + 1], o[2] = palette[i * 3 + 2];
      } else {
        o[0] = o[1] = o[2] = i;
      }
      o[3] = (maskIndexZero && i == 0) ? 0 : 255;
    }
  }
  return rgba;
}

}  // namespace

Status decodePcx(const uint8_t* data, size_t size, const std::string& file, bool maskIndexZero, Model& out) {
  out.format = "pcx";
  PcxHeader h;
  Status s = readPcxHeader(data, size, file, h);
  if (!s.ok()) return s;
  size_t dataEnd = size;
  const uint8_t* palette = readPalette(data, size, file, h, dataEnd, out);
  const uint64_t total = uint64_t(h.bytesPerLine) * h.planes * h.height;
  const uint64_t src = dataEnd - 128;
  // A 2-byte RLE run expands to at most 63 bytes: refuse images the data cannot possibly fill.
  if (total > src * 32 + 64 || (h.encoding == 0 && total > src))
    return fail("PCX", file, 128, "%u x %u image needs %llu bytes, %llu bytes of pixel data cannot fill it", h.width,
                h.height, (unsigned long long)total, (unsigned long long)src);
  std::vector<uint8_t> raw(size_t(total), 0);
  if (h.encoding == 0)
    std::memcpy(raw.data(), data + 128, size_t(total));
  else
    unpackRle(data + 128, data + dataEnd, file, raw, out);
  Texture tex;
  tex.name = ucBaseName(file, true);
  tex.width = h.width;
  tex.height = h.height;
  tex.format = "rgba8";
  tex.mips.push_back(toRgba(h, raw, palette, maskIndexZero));
  out.textures.push_back(std::move(tex));
  out.name = ucBaseName(file, true);
  out.count("width", h.width);
  out.count("height", h.height);
  out.info.emplace_back("pixels", h.planes == 3 ? "rgb24" : "indexed8");
  return Status{};
}

}  // namespace rs
