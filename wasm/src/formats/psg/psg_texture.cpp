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
  if (!t.has(0, 0x14))
    return PSG_FAIL(t.offset, "TableOfContents (row %u) is %u bytes, its header needs 20", row, t.size);
  const uint32_t items = t.u32(0), pArray = t.u32(4);
  if (!t.has(pArray, uint64_t(items) * 24))
    return PSG_FAIL(t.offset, "TableOfContents declares %u entries of 24 bytes at +0x%X, object is %u bytes", items,
                    pArray, t.size);
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

// The Texture object's fields (§7.12).
struct TextureHeader {
  Object t;
  uint8_t fmt = 0, mips = 0, dimension = 0, cube = 0;
  uint32_t width = 0, height = 0, depth = 0;
  uint32_t blockBytes = 0;  // 0 = uncompressed A8R8G8B8
  bool linear = false;
};

// Format, size, mip count and dimension. Sets `skip` (with a warning) for a texture that is
// skipped rather than refused.
Status readTextureHeader(Context& ctx, uint32_t row, TextureHeader& h, Texture& tex, bool& skip) {
  Model& out = ctx.out;
  const Object& t = h.t = object(ctx.arena, row);
  skip = false;
  if (!t.has(0, 0x28)) return PSG_FAIL(t.offset, "Texture (row %u) is %u bytes, needs 40", row, t.size);
  h.fmt = t.p[0], h.mips = t.p[1], h.dimension = t.p[2], h.cube = t.p[3];
  h.width = t.u16(8), h.height = t.u16(10), h.depth = t.u16(12);
  const TocEntry* toc = ctx.tocFor(row);
  tex.name = toc && !toc->name.empty() ? toc->name : format("texture%u", row);
  if (toc) tex.guid = guidHex(toc->guid);
  // CELL_GCM_TEXTURE_*: 0x20 = linear (unswizzled), 0x40 = unnormalised.
  h.linear = (h.fmt & 0x20) != 0;
  switch (h.fmt & 0x9F) {
    case 0x86:
      tex.format = "dxt1";
      h.blockBytes = 8;
      break;
    case 0x87:
      tex.format = "dxt3";
      h.blockBytes = 16;
      break;
    case 0x88:
      tex.format = "dxt5";
      h.blockBytes = 16;
      break;
    case 0x85: tex.format = "rgba8"; break;
    default:
      out.warnings.push_back(format("%s: texture format 0x%02X is not supported (DXT1/3/5 and A8R8G8B8 are); skipped",
                                    tex.name.c_str(), h.fmt));
      skip = true;
      return Status();
  }
  if (h.width == 0 || h.height == 0 || h.width > 4096 || h.height > 4096)
    return PSG_FAIL(t.offset + 8, "Texture %s is %ux%u (1 to 4096 allowed)", tex.name.c_str(), h.width, h.height);
  Status cap = checkPixelCap("PSG", ctx.arena.file, t.offset + 8, h.width, h.height, h.cube ? 6 : 1);
  if (!cap.ok()) return cap;
  const uint32_t maxMips = log2u(h.width > h.height ? h.width : h.height) + 1;
  if (h.mips == 0 || h.mips > maxMips)
    return PSG_FAIL(t.offset + 1, "Texture %s declares %u mips, a %ux%u image has 1 to %u", tex.name.c_str(), h.mips,
                    h.width, h.height, maxMips);
  if (h.dimension != 2 || h.depth > 1) {
    out.warnings.push_back(format("%s: %u-dimensional texture (depth %u) skipped; only 2D and cube maps are decoded",
                                  tex.name.c_str(), h.dimension, h.depth));
    skip = true;
  }
  return Status();
}

// Where each mip level of each face lies in the payload.
struct MipChain {
  uint64_t levelBytes[16];
  uint64_t chain = 0;       // bytes of one face's levels
  uint64_t faceStride = 0;  // from one face to the next
  int faces = 1;
};

MipChain mipChain(const TextureHeader& h, uint32_t payloadSize) {
  MipChain m;
  for (uint32_t l = 0; l < h.mips; ++l) {
    const uint32_t w = h.width >> l ? h.width >> l : 1, hh = h.height >> l ? h.height >> l : 1;
    m.levelBytes[l] = h.blockBytes ? uint64_t((w + 3) / 4) * ((hh + 3) / 4) * h.blockBytes : uint64_t(w) * hh * 4;
    m.chain += m.levelBytes[l];
  }
  m.faces = h.cube ? 6 : 1;
  // Cube faces each hold a full mip chain; the RSX aligns every face to 128 bytes [spec: S].
  m.faceStride = m.chain;
  if (h.cube) {
    const uint64_t aligned = (m.chain + 127) & ~uint64_t(127);
    if (payloadSize >= 5 * aligned + m.chain && payloadSize != 6 * m.chain) m.faceStride = aligned;
  }
  return m;
}

// A8R8G8B8 (bytes A, R, G, B) -> RGBA8; Morton-swizzled unless the linear flag is set (or the
// level is not a power of two).
void unswizzleArgb(const uint8_t* p, uint32_t w, uint32_t h, bool linear, uint8_t* d) {
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

// Every level, faces concatenated per level.
void readMips(const TextureHeader& h, const MipChain& m, const uint8_t* src, Texture& tex) {
  tex.mips.resize(h.mips);
  uint64_t levelStart = 0;
  for (uint32_t l = 0; l < h.mips; ++l) {
    std::vector<uint8_t>& dst = tex.mips[l];
    dst.resize(size_t(m.levelBytes[l] * m.faces));
    for (int f = 0; f < m.faces; ++f) {
      const uint8_t* p = src + m.faceStride * f + levelStart;
      uint8_t* d = dst.data() + m.levelBytes[l] * f;
      if (h.blockBytes) {
        // DXT blocks are stored exactly as on PC/DDS (little-endian endpoints, plain block order:
        // every real file's DXT1 blocks have color0 > color1 read little-endian), so no fix-up.
        std::memcpy(d, p, size_t(m.levelBytes[l]));
        continue;
      }
      const uint32_t w = h.width >> l ? h.width >> l : 1, hh = h.height >> l ? h.height >> l : 1;
      unswizzleArgb(p, w, hh, h.linear, d);
    }
    levelStart += m.levelBytes[l];
  }
}

}  // namespace

Status decodeTexture(Context& ctx, uint32_t row) {
  const Arena& a = ctx.arena;
  Model& out = ctx.out;
  TextureHeader h;
  Texture tex;
  bool skip = false;
  Status s = readTextureHeader(ctx, row, h, tex, skip);
  if (!s.ok() || skip) return s;
  const Object& t = h.t;
  Ref res;
  if (!(s = a.expectResource(t.u32(0x18), t.offset + 0x18, "Texture.buffer", res)).ok()) return s;
  const Row& payload = a.rows[res.row];
  const MipChain m = mipChain(h, payload.size);
  const uint64_t needed = m.faceStride * (m.faces - 1) + m.chain;
  if (payload.size < needed)
    return PSG_FAIL(t.offset + 0x18,
                    "Texture %s: %s %ux%u, %u mips%s needs %" PRIu64 " bytes, its BaseResource (row %u) holds %u",
                    tex.name.c_str(), tex.format.c_str(), h.width, h.height, h.mips, h.cube ? " x 6 faces" : "", needed,
                    res.row, payload.size);
  if (!(s = ctx.spend(uint64_t(t.size) + needed, t.offset, "Texture with its mip chain")).ok()) return s;
  if (payload.size > m.faceStride * m.faces)
    out.warnings.push_back(format("%s: %" PRIu64 " bytes after the mip chain ignored", tex.name.c_str(),
                                  uint64_t(payload.size) - m.faceStride * m.faces));
  tex.width = h.width;
  tex.height = h.height;
  tex.cube = h.cube != 0;
  readMips(h, m, a.data + payload.offset, tex);
  out.info.emplace_back(
      format("texture %zu", out.textures.size()),
      format("%s %s %ux%u, %u mip%s%s", tex.guid.empty() ? tex.name.c_str() : tex.guid.c_str(), tex.format.c_str(),
             h.width, h.height, h.mips, h.mips == 1 ? "" : "s", h.cube ? ", cube" : ""));
  out.textures.push_back(std::move(tex));
  return Status();
}

}  // namespace psg
}  // namespace rs
