// Texture objects (0x000200E8) and their BaseResource payloads (spec §7.12), and the
// TableOfContents that names them by GUID (§7.2).
#include <cinttypes>
#include <cstring>

#include "formats/image/pixel_cap.h"
#include "formats/psg/psg_internal.h"

namespace rs {
namespace psg {

#define PSG_FAIL(at, ...) ::rs::fail("PSG", ctx.arena.file, size_t(at), __VA_ARGS__)

Status readToc(Context& ctx, uint32_t row) {
  const Arena& a = ctx.arena;
  Object t = object(a, row);
  if (!t.has(0, 0x14)) return PSG_FAIL(t.offset, "TableOfContents (row %u) is %u bytes, its header needs 20", row, t.size);
  const uint32_t items = t.u32(0), pArray = t.u32(4);
  if (!t.has(pArray, uint64_t(items) * 24))
    return PSG_FAIL(t.offset, "TableOfContents declares %u entries of 24 bytes at +0x%X, object is %u bytes", items, pArray, t.size);
  ctx.toc.reserve(ctx.toc.size() + items);
  for (uint32_t i = 0; i < items; ++i) {
    const uint32_t e = pArray + 24 * i;
    Ref r;
    Status s = a.resolve(t.u32(e + 20), t.offset + e + 20, "TableOfContents entry reference", r);
    if (!s.ok()) return s;
    if (r.null) continue;
    TocEntry te;
    te.row = r.row;
    te.guid = t.u64(e + 8);
    te.type = t.u32(e + 16);
    const uint32_t nameAt = t.u32(e);
    if (nameAt != 0) te.name = t.cstr(nameAt);
    ctx.tocOfRow.emplace(te.row, ctx.toc.size());
    ctx.toc.push_back(std::move(te));
  }
  return Status();
}

namespace {

// RSX swizzled (Morton) address of texel (x, y) in a power-of-two w x h image: x and y bits
// interleave, x first, until the smaller dimension runs out.
inline uint32_t swizzle(uint32_t x, uint32_t y, uint32_t log2w, uint32_t log2h) {
  uint32_t offset = 0, shift = 0;
  while (log2w | log2h) {
    if (log2w) {
      offset |= (x & 1) << shift;
      x >>= 1;
      ++shift;
      --log2w;
    }
    if (log2h) {
      offset |= (y & 1) << shift;
      y >>= 1;
      ++shift;
      --log2h;
    }
  }
  return offset;
}

uint32_t log2u(uint32_t v) {
  uint32_t r = 0;
  while ((1u << r) < v) ++r;
  return r;
}

}  // namespace

Status decodeTexture(Context& ctx, uint32_t row) {
  const Arena& a = ctx.arena;
  Model& out = ctx.out;
  Object t = object(a, row);
  if (!t.has(0, 0x28)) return PSG_FAIL(t.offset, "Texture (row %u) is %u bytes, needs 40", row, t.size);
  const uint8_t fmt = t.p[0], mips = t.p[1], dimension = t.p[2], cube = t.p[3];
  const uint32_t width = t.u16(8), height = t.u16(10), depth = t.u16(12);
  const TocEntry* toc = ctx.tocFor(row);
  Texture tex;
  tex.name = toc && !toc->name.empty() ? toc->name : format("texture%u", row);
  if (toc) tex.guid = guidHex(toc->guid);

  // CELL_GCM_TEXTURE_*: 0x20 = linear (unswizzled), 0x40 = unnormalised.
  const uint8_t base = fmt & 0x9F;
  const bool linear = (fmt & 0x20) != 0;
  uint32_t blockBytes = 0;  // 0 = uncompressed A8R8G8B8
  switch (base) {
    case 0x86: tex.format = "dxt1"; blockBytes = 8; break;
    case 0x87: tex.format = "dxt3"; blockBytes = 16; break;
    case 0x88: tex.format = "dxt5"; blockBytes = 16; break;
    case 0x85: tex.format = "rgba8"; break;
    default:
      out.warnings.push_back(format("%s: texture format 0x%02X is not supported (DXT1/3/5 and A8R8G8B8 are); skipped",
                                    tex.name.c_str(), fmt));
      return Status();
  }
  if (width == 0 || height == 0 || width > 4096 || height > 4096)
    return PSG_FAIL(t.offset + 8, "Texture %s is %ux%u (1 to 4096 allowed)", tex.name.c_str(), width, height);
  Status cap = checkPixelCap("PSG", a.file, t.offset + 8, width, height, cube ? 6 : 1);
  if (!cap.ok()) return cap;
  const uint32_t maxMips = log2u(width > height ? width : height) + 1;
  if (mips == 0 || mips > maxMips)
    return PSG_FAIL(t.offset + 1, "Texture %s declares %u mips, a %ux%u image has 1 to %u", tex.name.c_str(), mips, width,
                    height, maxMips);
  if (dimension != 2 || depth > 1) {
    out.warnings.push_back(format("%s: %u-dimensional texture (depth %u) skipped; only 2D and cube maps are decoded",
                                  tex.name.c_str(), dimension, depth));
    return Status();
  }
  Ref res;
  Status s = a.expectResource(t.u32(0x18), t.offset + 0x18, "Texture.buffer", res);
  if (!s.ok()) return s;
  const Row& payload = a.rows[res.row];

  uint64_t levelBytes[16];
  uint64_t chain = 0;
  for (uint32_t l = 0; l < mips; ++l) {
    uint32_t w = width >> l ? width >> l : 1, h = height >> l ? height >> l : 1;
    levelBytes[l] = blockBytes ? uint64_t((w + 3) / 4) * ((h + 3) / 4) * blockBytes : uint64_t(w) * h * 4;
    chain += levelBytes[l];
  }
  const int faces = cube ? 6 : 1;
  // Cube faces each hold a full mip chain; the RSX aligns every face to 128 bytes [spec: S].
  uint64_t faceStride = chain;
  if (cube) {
    const uint64_t aligned = (chain + 127) & ~uint64_t(127);
    if (payload.size >= 5 * aligned + chain && payload.size != 6 * chain) faceStride = aligned;
  }
  const uint64_t needed = faceStride * (faces - 1) + chain;
  if (payload.size < needed)
    return PSG_FAIL(t.offset + 0x18, "Texture %s: %s %ux%u, %u mips%s needs %" PRIu64 " bytes, its BaseResource (row %u) holds %u",
                    tex.name.c_str(), tex.format.c_str(), width, height, mips, cube ? " x 6 faces" : "", needed, res.row,
                    payload.size);
  if (!(s = ctx.spend(uint64_t(t.size) + needed, t.offset, "Texture with its mip chain")).ok()) return s;
  if (payload.size > faceStride * faces)
    out.warnings.push_back(format("%s: %" PRIu64 " bytes after the mip chain ignored", tex.name.c_str(),
                                  uint64_t(payload.size) - faceStride * faces));

  tex.width = width;
  tex.height = height;
  tex.cube = cube != 0;
  tex.mips.resize(mips);
  const uint8_t* src = a.data + payload.offset;
  uint64_t levelStart = 0;
  for (uint32_t l = 0; l < mips; ++l) {
    std::vector<uint8_t>& dst = tex.mips[l];
    dst.resize(size_t(levelBytes[l] * faces));
    for (int f = 0; f < faces; ++f) {
      const uint8_t* p = src + faceStride * f + levelStart;
      uint8_t* d = dst.data() + levelBytes[l] * f;
      if (blockBytes) {
        // DXT blocks are stored exactly as on PC/DDS (little-endian endpoints, plain block order:
        // every real file's DXT1 blocks have color0 > color1 read little-endian), so no fix-up.
        std::memcpy(d, p, size_t(levelBytes[l]));
        continue;
      }
      // A8R8G8B8 (bytes A, R, G, B) -> RGBA8; Morton-swizzled unless the linear flag is set.
      const uint32_t w = width >> l ? width >> l : 1, h = height >> l ? height >> l : 1;
      const bool pow2 = (w & (w - 1)) == 0 && (h & (h - 1)) == 0;
      const uint32_t lw = log2u(w), lh = log2u(h);
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          const uint32_t i = (linear || !pow2) ? y * w + x : swizzle(x, y, lw, lh);
          const uint8_t* px = p + size_t(i) * 4;
          uint8_t* o = d + (size_t(y) * w + x) * 4;
          o[0] = px[1];
          o[1] = px[2];
          o[2] = px[3];
          o[3] = px[0];
        }
    }
    levelStart += levelBytes[l];
  }
  out.info.emplace_back(format("texture %zu", out.textures.size()),
                        format("%s %s %ux%u, %u mip%s%s", tex.guid.empty() ? tex.name.c_str() : tex.guid.c_str(),
                               tex.format.c_str(), width, height, mips, mips == 1 ? "" : "s", cube ? ", cube" : ""));
  out.textures.push_back(std::move(tex));
  return Status();
}

}  // namespace psg
}  // namespace rs
