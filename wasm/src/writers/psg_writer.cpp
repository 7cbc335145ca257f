#include "writers/psg_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "writers/writer_bytes.h"

namespace rs {
namespace {

enum : uint32_t {
  kVersionData = 0x00EB0008,
  kRenderModelData = 0x00EB0001,
  kMaterialData = 0x00EB0005,
  kOptiMesh = 0x00EB0023,
  kToc = 0x00EB000B,
  kTexture = 0x000200E8,
  kVdes = 0x000200E9,
  kVb = 0x000200EA,
  kIb = 0x000200EB,
  kMeshHelper = 0x00020081,
  kBaseResource = 0x00010034,
};
constexpr uint32_t kSubref = 0x00800000, kNull = 0x00400000;

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

struct Obj {
  uint32_t typeId = 0;
  uint32_t align = 16;
  std::vector<uint8_t> bytes;  // main-block objects
  bool resource = false;
  uint32_t gfxPtr = 0, resSize = 0;
};

struct Builder {
  uint32_t id = 0;
  std::vector<uint32_t> types;
  std::vector<Obj> objs;
  std::vector<std::pair<uint32_t, uint32_t>> subrefs;
  std::vector<uint8_t> gfx;
  uint32_t resourceAlign = 16;

  uint32_t typeIndex(uint32_t t) const {
    for (size_t i = 0; i < types.size(); ++i)
      if (types[i] == t) return uint32_t(i);
    return 0;
  }
  uint32_t addResource(const std::vector<uint8_t>& b, size_t align, uint32_t rowAlign) {
    gfx.resize(alignUp(gfx.size(), align), 0);
    Obj o;
    o.typeId = kBaseResource;
    o.align = rowAlign;
    o.resource = true;
    o.gfxPtr = uint32_t(gfx.size());
    o.resSize = uint32_t(b.size());
    gfx.insert(gfx.end(), b.begin(), b.end());
    objs.push_back(o);
    return uint32_t(objs.size() - 1);
  }

  std::vector<uint8_t> finish() {
    ByteWriter w;
    w.bigEndian = true;
    w.pad(0xC0);
    // Sections (spec §4).
    const size_t man = w.size();
    const uint32_t typesOff = 28, extOff = typesOff + 12 + 4 * uint32_t(types.size()), subOff = extOff + 36,
                   atomOff = subOff + 28;
    w.u32(0x00010004);
    w.u32(4);
    w.u32(12);
    w.u32(typesOff);
    w.u32(extOff);
    w.u32(subOff);
    w.u32(atomOff);
    w.u32(0x00010005);
    w.u32(uint32_t(types.size()));
    w.u32(12);
    for (uint32_t t : types) w.u32(t);
    w.u32(0x00010006);
    w.u32(3);
    w.u32(0x18);
    w.u32(id);
    w.u32(0xFFB00000);
    w.u32(id);
    w.u32(0);
    w.u32(0);
    w.u32(0);
    const size_t subSection = w.size();
    w.u32(0x00010007);
    w.u32(uint32_t(subrefs.size()));
    w.u32(0);
    w.u32(0);
    w.u32(0);
    w.u32(0);
    w.u32(uint32_t(subrefs.size()));
    w.u32(0x00010008);
    w.u32(0);
    w.u32(0);
    (void)man;
    // Objects.
    std::vector<uint32_t> ptr(objs.size());
    for (size_t i = 0; i < objs.size(); ++i) {
      if (objs[i].resource) {
        ptr[i] = objs[i].gfxPtr;
        continue;
      }
      w.pad(alignUp(w.size(), objs[i].align) - w.size());
      ptr[i] = uint32_t(w.size());
      w.raw(objs[i].bytes.data(), objs[i].bytes.size());
    }
    w.pad(alignUp(w.size(), 4) - w.size());
    const uint32_t dictStart = uint32_t(w.size());
    for (size_t i = 0; i < objs.size(); ++i) {
      w.u32(ptr[i]);
      w.u32(0);
      w.u32(objs[i].resource ? objs[i].resSize : uint32_t(objs[i].bytes.size()));
      w.u32(objs[i].align);
      w.u32(typeIndex(objs[i].typeId));
      w.u32(objs[i].typeId);
    }
    const uint32_t records = uint32_t(w.size());
    for (auto& s : subrefs) {
      w.u32(s.first);
      w.u32(s.second);
    }
    const uint32_t scratch = uint32_t(w.size());
    w.pad(24 * subrefs.size());
    const uint32_t mainSize = uint32_t(w.size());
    std::vector<uint8_t>& b = w.bytes;
    auto put = [&](size_t at, uint32_t v) {
      b[at] = uint8_t(v >> 24);
      b[at + 1] = uint8_t(v >> 16);
      b[at + 2] = uint8_t(v >> 8);
      b[at + 3] = uint8_t(v);
    };
    put(subSection + 16, scratch);
    put(subSection + 20, records);
    // Header (spec §2, §3).
    static const uint8_t magic[16] = {0x89, 'R', 'W', '4', 'p', 's', '3', 0, 0x0D, 0x0A, 0x1A, 0x0A, 1, 32, 4, 0};
    std::memcpy(b.data(), magic, 16);
    std::memcpy(b.data() + 0x10, "454", 4);
    std::memcpy(b.data() + 0x14, "000", 4);
    put(0x1C, id);
    put(0x20, uint32_t(objs.size()));
    put(0x24, uint32_t(objs.size()));
    put(0x28, 16);
    put(0x30, dictStart);
    put(0x34, 0xC0);
    for (int k = 0; k < 6; ++k) {
      put(0x44 + 8 * k, k == 0 ? mainSize : (k == 5 ? uint32_t(gfx.size()) : 0));
      put(0x48 + 8 * k, k == 0 ? 16 : (k == 5 ? resourceAlign : 1));
      put(0x74 + 8 * k, k == 0 ? 0xC0 : 0);
      put(0x78 + 8 * k, k == 0 ? 4 : 1);
    }
    b.insert(b.end(), gfx.begin(), gfx.end());
    return b;
  }
};

ByteWriter be() {
  ByteWriter w;
  w.bigEndian = true;
  return w;
}

uint32_t elementBytes(uint8_t type, uint8_t count) {
  switch (type) {
    case psgv::F: return 4u * count;
    case psgv::S1:
    case psgv::SF:
    case psgv::S32K: return 2u * count;
    case psgv::CMP: return 4;
    default: return count;
  }
}

int16_t clamp16(long v) { return int16_t(v < -32768 ? -32768 : (v > 32767 ? 32767 : v)); }
uint8_t clamp8(long v) { return uint8_t(v < 0 ? 0 : (v > 255 ? 255 : v)); }

// Encodes `count` float components as `type`; `rawInts` = integer semantics (positions divided by
// scale beforehand, palette slots, S32K).
void encode(ByteWriter& w, uint8_t type, uint8_t count, const float* v, bool rawInts) {
  switch (type) {
    case psgv::F:
      for (int c = 0; c < count; ++c) w.f32(v[c]);
      break;
    case psgv::SF:
      for (int c = 0; c < count; ++c) w.u16(psgHalf(v[c]));
      break;
    case psgv::S1:
      for (int c = 0; c < count; ++c) w.u16(uint16_t(clamp16(std::lround(rawInts ? v[c] : v[c] * 32767.0f))));
      break;
    case psgv::S32K:
      for (int c = 0; c < count; ++c) w.u16(uint16_t(clamp16(std::lround(v[c]))));
      break;
    case psgv::UB:
      for (int c = 0; c < count; ++c) w.u8(clamp8(std::lround(rawInts ? v[c] : v[c] * 255.0f)));
      break;
    case psgv::UB256:
      for (int c = 0; c < count; ++c) w.u8(clamp8(std::lround(v[c])));
      break;
    case psgv::CMP: {
      long x = std::lround(v[0] * 1023.0f), y = std::lround(v[1] * 1023.0f), z = std::lround(v[2] * 511.0f);
      w.u32((uint32_t(x) & 0x7FF) | ((uint32_t(y) & 0x7FF) << 11) | ((uint32_t(z) & 0x3FF) << 22));
      break;
    }
  }
}

void materialData(const std::vector<PsgMaterialIn>& mats, std::vector<uint8_t>& out) {
  uint32_t numChannels = 0;
  for (auto& m : mats) numChannels += uint32_t(m.channels.size());
  const uint32_t pMat = 0x14, pCh = pMat + 12 * uint32_t(mats.size()), pStr = pCh + 32 * numChannels;
  ByteWriter w = be(), strings = be();
  w.u32(uint32_t(mats.size()));
  w.u32(numChannels);
  w.u32(pMat);
  w.u32(pCh);
  w.u32(pStr);
  uint32_t ch = 0;
  for (auto& m : mats) {
    w.u32(uint32_t(m.channels.size()));
    w.u32(0);
    w.u32(pCh + 32 * ch);
    ch += uint32_t(m.channels.size());
  }
  for (auto& m : mats)
    for (auto& c : m.channels) {
      const uint32_t inputOff = pStr + uint32_t(strings.size());
      strings.raw(c.input.c_str(), c.input.size() + 1);
      char buf[40];
      std::snprintf(buf, sizeof buf, "0x%016llx.Texture", (unsigned long long)c.guid);
      const std::string stream = c.stream.empty() ? std::string(buf) : c.stream;
      const uint32_t streamOff = pStr + uint32_t(strings.size());
      strings.raw(stream.c_str(), stream.size() + 1);
      w.u32(inputOff);
      w.u16(0);
      w.u16(0xFFFF);
      w.u32(0xDEADBEEF);
      w.u32(0xDEADC0DE);
      w.u64(c.guid);
      w.u32(streamOff);
      w.u32(0);
    }
  w.raw(strings.bytes.data(), strings.size());
  out = std::move(w.bytes);
}

std::vector<uint8_t> texturePayload(const PsgTextureIn& t) {
  const int faces = t.cube ? 6 : 1;
  const bool rgba = (t.format & 0x9F) == 0x85;
  const bool linear = (t.format & 0x20) != 0;
  size_t chain = 0;
  for (size_t l = 0; l < t.levels.size(); ++l) chain += psgLevelBytes(t.format, t.width, t.height, uint32_t(l));
  const size_t faceStride = t.cube ? alignUp(chain, 128) : chain;
  std::vector<uint8_t> out(faceStride * faces, 0);
  size_t levelStart = 0;
  for (size_t l = 0; l < t.levels.size(); ++l) {
    const size_t n = psgLevelBytes(t.format, t.width, t.height, uint32_t(l));
    const uint32_t w = std::max(1, t.width >> l), h = std::max(1, t.height >> l);
    for (int f = 0; f < faces; ++f) {
      uint8_t* d = out.data() + faceStride * f + levelStart;
      const size_t have = t.levels[l].size();
      const uint8_t* s = t.levels[l].data() + std::min(have, n * f);
      const size_t copy = std::min(n, have > n * f ? have - n * f : 0);
      if (!rgba) {
        std::memcpy(d, s, copy);
        continue;
      }
      uint32_t lw = 0, lh = 0;
      while ((1u << lw) < w) ++lw;
      while ((1u << lh) < h) ++lh;
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
          const size_t src = (size_t(y) * w + x) * 4;
          if (src + 4 > copy) continue;
          uint32_t i = y * w + x;
          if (!linear) {  // Morton order, x bit first
            uint32_t off = 0, shift = 0, xx = x, yy = y, a = lw, b = lh;
            while (a | b) {
              if (a) {
                off |= (xx & 1) << shift++;
                xx >>= 1;
                --a;
              }
              if (b) {
                off |= (yy & 1) << shift++;
                yy >>= 1;
                --b;
              }
            }
            i = off;
          }
          uint8_t* px = d + size_t(i) * 4;
          px[0] = s[src + 3];  // A8R8G8B8: A, R, G, B
          px[1] = s[src];
          px[2] = s[src + 1];
          px[3] = s[src + 2];
        }
    }
    levelStart += n;
  }
  return out;
}

std::vector<uint8_t> textureObject(const PsgTextureIn& t, uint32_t bufferRow) {
  ByteWriter w = be();
  const uint8_t base = t.format & 0x9F;
  w.u8(t.format);
  w.u8(uint8_t(t.levels.size()));
  w.u8(2);
  w.u8(t.cube ? 1 : 0);
  w.u32(0x0000AAE4);
  w.u16(t.width);
  w.u16(t.height);
  w.u16(1);
  w.u8(0);
  w.u8(0);
  const uint32_t blocksWide = (t.width + 3) / 4;
  w.u32(base == 0x85 ? t.width * 4u : blocksWide * (base == 0x86 ? 8u : 16u));
  w.u32(0);
  w.u32(bufferRow);
  w.u32(t.cube ? 0x10002 : 2);
  w.u32(0);
  w.u16(0x5572);
  w.u8(0);
  w.u8(t.format);
  return w.bytes;
}

std::string tocName(const PsgTextureIn& t) {
  if (!t.name.empty()) return t.name;
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016llx.Texture", (unsigned long long)t.guid);
  return buf;
}

struct TocItem {
  std::string name;
  uint64_t guid;
  uint32_t type;
  uint32_t row;
};

std::vector<uint8_t> toc(const std::vector<TocItem>& items, uint32_t padding, bool alignTypeMap) {
  ByteWriter w = be(), names = be();
  const uint32_t pArray = 0x14, pNames = pArray + 24 * uint32_t(items.size());
  std::vector<uint32_t> nameOff;
  for (auto& it : items) {
    nameOff.push_back(it.name.empty() ? 0 : pNames + uint32_t(names.size()));
    if (!it.name.empty()) names.raw(it.name.c_str(), it.name.size() + 1);
  }
  uint32_t end = pNames + uint32_t(names.size());
  w.u32(uint32_t(items.size()));
  w.u32(pArray);
  w.u32(pNames);
  w.u32(0);
  w.u32(alignTypeMap ? uint32_t(alignUp(end, 4)) : end);
  for (size_t i = 0; i < items.size(); ++i) {
    w.u32(nameOff[i]);
    w.u32(padding);
    w.u64(items[i].guid);
    w.u32(items[i].type);
    w.u32(items[i].row);
  }
  w.raw(names.bytes.data(), names.size());
  w.pad(alignUp(w.size(), 4) - w.size());
  return w.bytes;
}

std::vector<uint8_t> versionData() {
  ByteWriter w = be();
  w.u32(25);
  w.u32(13);
  return w.bytes;
}

}  // namespace

uint16_t psgHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t e = int32_t((x >> 23) & 0xFF) - 127 + 15;
  uint32_t m = x & 0x7FFFFF;
  if (((x >> 23) & 0xFF) == 0xFF) return uint16_t(sign | 0x7C00 | (m ? 0x200 : 0));
  if (e >= 31) return uint16_t(sign | 0x7C00);
  if (e <= 0) {
    if (e < -10) return uint16_t(sign);
    m |= 0x800000;
    const uint32_t shift = uint32_t(14 - e);
    uint32_t h = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (uint32_t(e) << 10) | (m >> 13);
  const uint32_t rem = m & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

size_t psgLevelBytes(uint8_t format, uint32_t width, uint32_t height, uint32_t level) {
  const uint32_t w = std::max(1u, width >> level), h = std::max(1u, height >> level);
  const uint8_t base = format & 0x9F;
  if (base == 0x85) return size_t(w) * h * 4;
  return size_t((w + 3) / 4) * ((h + 3) / 4) * (base == 0x86 ? 8 : 16);
}

PsgBoneIn psgBone(const std::string& name, float tx, float ty, float tz) {
  PsgBoneIn b;
  b.name = name;
  const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, ty, tz, 1};
  std::memcpy(b.ibp, m, sizeof m);
  return b;
}

// The values vertex `v` stores for element `e`; true when they are written as plain integers.
bool elementSource(const PsgMeshIn& mesh, const PsgElementIn& e, size_t v, float src[4]) {
  bool rawInts = false;
  switch (e.slot) {
    case psgv::XYZ:
      for (int c = 0; c < 3; ++c) src[c] = mesh.positions[v * 3 + c];
      if (e.type == psgv::S1 || e.type == psgv::S32K) {
        for (int c = 0; c < 3; ++c) src[c] /= mesh.positionScale;
        rawInts = true;
      }
      break;
    case psgv::NORMAL:
      for (int c = 0; c < 3 && v * 3 + c < mesh.normals.size(); ++c) src[c] = mesh.normals[v * 3 + c];
      break;
    case psgv::COLOR0:
      for (int c = 0; c < 4 && v * 4 + c < mesh.colors.size(); ++c)
        src[c] =
            (e.type == psgv::UB || e.type == psgv::UB256) ? mesh.colors[v * 4 + c] : mesh.colors[v * 4 + c] / 255.0f;
      rawInts = true;
      break;
    case psgv::BLENDWEIGHT:
      for (int c = 0; c < 4 && v * 4 + c < mesh.skinWeights.size(); ++c) src[c] = mesh.skinWeights[v * 4 + c];
      break;
    case psgv::BLENDINDICES:
      for (int c = 0; c < 4 && v * 4 + c < mesh.skinSlots.size(); ++c) src[c] = mesh.skinSlots[v * 4 + c];
      rawInts = true;
      break;
    case psgv::TANGENT:
      for (int c = 0; c < 4 && v * 4 + c < mesh.tangents.size(); ++c) src[c] = mesh.tangents[v * 4 + c];
      break;
    default:
      if (e.slot >= psgv::TEX0 && size_t(e.slot - psgv::TEX0) < mesh.uvs.size()) {
        const auto& uv = mesh.uvs[e.slot - psgv::TEX0];
        for (int c = 0; c < 2 && v * 2 + c < uv.size(); ++c) src[c] = uv[v * 2 + c];
      }
      break;
  }
  return rawInts;
}

// VertexDescriptor (spec §7.6): stream 0, one 8-byte record per element.
std::vector<uint8_t> vertexDescriptor(const std::vector<PsgElementIn>& els, uint32_t stride, uint32_t typesFlags) {
  ByteWriter o = be();
  o.u32(0);
  o.u32(typesFlags);
  o.u16(1);
  o.u16(uint16_t(els.size()));
  o.u16(uint16_t((1u << els.size()) - 1));
  o.u16(0);
  for (auto& e : els) {
    o.u8(e.type);
    o.u8(e.count);
    o.u8(0);
    o.u8(uint8_t(e.offset));
    o.u16(uint16_t(stride));
    o.u8(e.slot);
    o.u8(1);
  }
  o.u32(0xFF00FF00);
  o.u32(0);
  return o.bytes;
}

namespace {

// The rows writePsgModel lays out (spec §10): 0 VersionData, 1 RenderMaterialData (if any), per
// mesh {BR, VB, BR, IB, Opti, VDES, MH}, RenderModelData, per texture {BR, Texture}, TOC.
struct ModelRows {
  bool hasMat;
  uint32_t meshes, matRow, firstMesh, rmdRow;
  explicit ModelRows(const PsgModelIn& model)
      : hasMat(!model.materials.empty()),
        meshes(uint32_t(model.meshes.size())),
        matRow(1),
        firstMesh(hasMat ? 2 : 1),
        rmdRow(firstMesh + 7 * meshes) {}
  uint32_t meshBase(uint32_t k) const { return firstMesh + 7 * k; }
};

struct Bounds {
  float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
  void add(const float* p) {
    for (int c = 0; c < 3; ++c) {
      mn[c] = std::min(mn[c], p[c]);
      mx[c] = std::max(mx[c], p[c]);
    }
  }
  void merge(const Bounds& b) {
    for (int c = 0; c < 3; ++c) {
      mn[c] = std::min(mn[c], b.mn[c]);
      mx[c] = std::max(mx[c], b.mx[c]);
    }
  }
};

// What the meshes leave for RenderModelData: the islands of every mesh in one array (its shared
// island arrays), where each mesh's start, the model's bounds, and the subreferences into it that
// are patched once its layout is known.
struct ModelIslands {
  std::vector<Bounds> islands;
  std::vector<uint32_t> firstIsland, subrefAreas, subrefAabbs;
  Bounds model;
  explicit ModelIslands(uint32_t meshes) : firstIsland(meshes), subrefAreas(meshes), subrefAabbs(meshes) {}
};

struct VertexLayout {
  std::vector<PsgElementIn> els;
  uint32_t stride = 0, typesFlags = 0;
};

// Element offsets (those left at -1 packed after the previous, 4-aligned) and the stride.
VertexLayout vertexLayout(const PsgMeshIn& mesh) {
  VertexLayout l;
  l.els = mesh.layout;
  uint32_t end = 0;
  for (auto& e : l.els) {
    if (e.offset < 0) e.offset = int(alignUp(end, 4));
    end = std::max<uint32_t>(end, uint32_t(e.offset) + elementBytes(e.type, e.count));
    l.typesFlags |= 1u << e.slot;
  }
  l.stride = mesh.stride > 0 ? uint32_t(mesh.stride) : uint32_t(alignUp(end, 4));
  return l;
}

std::vector<uint8_t> vertexBytes(const PsgMeshIn& mesh, const VertexLayout& l) {
  const size_t n = mesh.positions.size() / 3;
  ByteWriter vb = be();
  vb.bytes.reserve(n * l.stride);
  for (size_t v = 0; v < n; ++v) {
    const size_t start = vb.size();
    vb.pad(l.stride);
    for (auto& e : l.els) {
      float src[4] = {0, 0, 0, 0};
      const bool rawInts = elementSource(mesh, e, v, src);
      ByteWriter tmp = be();
      encode(tmp, e.type, e.count, src, rawInts);
      std::memcpy(vb.bytes.data() + start + e.offset, tmp.bytes.data(), tmp.size());
    }
  }
  return vb.bytes;
}

std::vector<uint8_t> indexBytes(const PsgMeshIn& mesh) {
  ByteWriter ib = be();
  for (uint32_t i : mesh.indices) {
    if (mesh.indexSize == 4)
      ib.u32(i);
    else
      ib.u16(uint16_t(i));
  }
  return ib.bytes;
}

// Graphics block: VB, pad16, IB, pad16 (spec §10.6); each buffer's object after its resource.
void addBuffers(Builder& B, const PsgMeshIn& mesh, const std::vector<uint8_t>& vertices) {
  const uint32_t vbRes = B.addResource(vertices, 16, 16);
  ByteWriter vb = be();
  vb.u32(vbRes);
  vb.u32(0);
  vb.u32(uint32_t(vertices.size()));
  vb.u32(0);
  B.objs.push_back(Obj{kVb, 4, vb.bytes, false, 0, 0});
  const uint32_t ibRes = B.addResource(indexBytes(mesh), 16, 16);
  B.gfx.resize(alignUp(B.gfx.size(), 16), 0);
  ByteWriter ib = be();
  ib.u32(ibRes);
  ib.u32(0);
  ib.u32(uint32_t(mesh.indices.size()));
  ib.u32(mesh.indexSize);
  ib.u32(0x01000000);
  B.objs.push_back(Obj{kIb, 4, ib.bytes, false, 0, 0});
}

// The mesh's islands (index counts; one of every index when none are given), their bounds appended.
std::vector<uint32_t> addIslands(const PsgMeshIn& mesh, std::vector<Bounds>& islands) {
  const size_t n = mesh.positions.size() / 3;
  std::vector<uint32_t> counts = mesh.islands;
  if (counts.empty()) counts.push_back(uint32_t(mesh.indices.size()));
  uint32_t startIndex = 0;
  for (uint32_t c : counts) {
    Bounds is;
    for (uint32_t i = startIndex; i < startIndex + c && i < mesh.indices.size(); ++i) {
      const uint32_t vi = mesh.indices[i];
      if (vi < n) is.add(&mesh.positions[vi * 3]);
    }
    islands.push_back(is);
    startIndex += c;
  }
  return counts;
}

// The subreferences RenderOptiMeshData holds: {its material (or kNull), RMD areas, RMD AABBs}.
std::array<uint32_t, 3> addMeshSubrefs(Builder& B, const PsgMeshIn& mesh, const ModelRows& rows) {
  uint32_t matRef = kNull;
  if (mesh.material >= 0 && rows.hasMat) {
    matRef = kSubref | uint32_t(B.subrefs.size());
    B.subrefs.push_back({rows.matRow, 0x14 + 12 * uint32_t(mesh.material)});
  }
  const uint32_t areas = uint32_t(B.subrefs.size());
  B.subrefs.push_back({rows.rmdRow, 0});  // patched by renderModelData once its layout is known
  const uint32_t aabbs = uint32_t(B.subrefs.size());
  B.subrefs.push_back({rows.rmdRow, 0});
  return {matRef, areas, aabbs};
}

// RenderOptiMeshData (spec §7.4): bounds, rows of the mesh's VDES/MH/IB/VB, its islands, palette.
std::vector<uint8_t> optiMeshData(const PsgMeshIn& mesh, uint32_t base, const Bounds& bounds,
                                  const std::array<uint32_t, 3>& refs, const std::vector<uint32_t>& counts) {
  const size_t n = mesh.positions.size() / 3;
  ByteWriter o = be();
  for (int c = 0; c < 3; ++c) o.f32(n ? bounds.mn[c] : 0);
  o.f32(0);
  for (int c = 0; c < 3; ++c) o.f32(n ? bounds.mx[c] : 0);
  o.f32(0);
  o.u32(uint32_t(n));
  o.u32(refs[0]);
  o.u32(base + 5);
  o.u32(base + 6);
  o.u32(base + 3);
  o.u32(base + 1);
  o.u32(uint32_t(counts.size()));
  o.u32(kSubref | refs[1]);
  o.u32(kSubref | refs[2]);
  o.u32(0x60);
  o.u32(uint32_t(mesh.palette.size()));
  o.u32(0x60 + 12 * uint32_t(counts.size()));
  o.pad(16);
  uint32_t s = 0;
  for (uint32_t c : counts) {
    o.u32(s);
    o.u32(c);
    o.u8(mesh.primType);
    o.pad(3);
    s += c;
  }
  for (uint16_t p : mesh.palette) o.u16(p);
  o.pad(alignUp(o.size(), 4) - o.size());
  return o.bytes;
}

// MeshHelper {numIB, numVB, IB refs, VB refs}.
std::vector<uint8_t> meshHelper(uint32_t base) {
  ByteWriter o = be();
  o.u32(1);
  o.u32(1);
  o.u32(base + 3);
  o.u32(base + 1);
  return o.bytes;
}

// Mesh k's seven rows: {BR, VB, BR, IB, Opti, VDES, MH}.
void addMesh(Builder& B, const PsgMeshIn& mesh, uint32_t k, const ModelRows& rows, ModelIslands& acc) {
  const uint32_t base = rows.meshBase(k);
  const size_t n = mesh.positions.size() / 3;
  const VertexLayout layout = vertexLayout(mesh);
  Bounds bounds;
  for (size_t v = 0; v < n; ++v) bounds.add(&mesh.positions[v * 3]);
  addBuffers(B, mesh, vertexBytes(mesh, layout));
  acc.firstIsland[k] = uint32_t(acc.islands.size());
  const std::vector<uint32_t> counts = addIslands(mesh, acc.islands);
  const std::array<uint32_t, 3> refs = addMeshSubrefs(B, mesh, rows);
  acc.subrefAreas[k] = refs[1];
  acc.subrefAabbs[k] = refs[2];
  B.objs.push_back(Obj{kOptiMesh, 16, optiMeshData(mesh, base, bounds, refs, counts), false, 0, 0});
  B.objs.push_back(Obj{kVdes, 4, vertexDescriptor(layout.els, layout.stride, layout.typesFlags), false, 0, 0});
  B.objs.push_back(Obj{kMeshHelper, 4, meshHelper(base), false, 0, 0});
  if (n) acc.model.merge(bounds);
}

// RenderModelData's shared island arrays: an AABB with its bounding radius per island (at least
// four records), then each island's area.
void islandArrays(ByteWriter& o, const std::vector<Bounds>& islands) {
  const uint32_t ni = uint32_t(islands.size());
  for (uint32_t i = 0; i < std::max(4u, ni); ++i) {
    if (i < ni) {
      const Bounds& is = islands[i];
      bool ok = std::isfinite(is.mn[0]);
      float d[3];
      for (int c = 0; c < 3; ++c) d[c] = ok ? is.mx[c] - is.mn[c] : 0;
      const float r = 0.5f * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      for (int c = 0; c < 3; ++c) o.f32(ok ? is.mn[c] : 0);
      o.f32(r);
      for (int c = 0; c < 3; ++c) o.f32(ok ? is.mx[c] : 0);
      o.f32(r);
    } else {
      o.pad(32);
    }
  }
  for (uint32_t i = 0; i < ni; ++i) {
    o.f32(1);
    o.f32(1);
    o.f32(1);
    o.f32(0);
  }
}

// RenderModelData (spec §7.3): bounds, bones' inverse bind poses, mesh rows, bone names, islands;
// the meshes' subreferences into its island arrays patched to their offsets.
std::vector<uint8_t> renderModelData(const PsgModelIn& model, const ModelRows& rows, const ModelIslands& acc,
                                     Builder& B) {
  const uint32_t nb = uint32_t(model.bones.size()), ni = uint32_t(acc.islands.size()), M = rows.meshes;
  const uint32_t pIBP = 0x40, pMesh = pIBP + 64 * nb, pNameTable = pMesh + 8 * M, pNames = pNameTable + 4 * nb;
  ByteWriter names = be();
  std::vector<uint32_t> nameOff;
  for (auto& b : model.bones) {
    nameOff.push_back(pNames + uint32_t(names.size()));
    names.raw(b.name.c_str(), b.name.size() + 1);
  }
  const uint32_t pAabbs = uint32_t(alignUp(pNames + names.size(), 16));
  const uint32_t pAreas = pAabbs + 32 * std::max(4u, ni);
  ByteWriter o = be();
  for (int c = 0; c < 3; ++c) o.f32(std::isfinite(acc.model.mn[c]) ? acc.model.mn[c] : 0);
  o.f32(0);
  for (int c = 0; c < 3; ++c) o.f32(std::isfinite(acc.model.mx[c]) ? acc.model.mx[c] : 0);
  o.f32(0);
  o.u32(pIBP);
  o.u32(pMesh);
  o.u32(pNameTable);
  o.u32(pNames);
  o.u16(uint16_t(nb));
  o.u16(uint16_t(M));
  o.u16(uint16_t(nb));
  o.u16(uint16_t(ni));
  o.u32(pAabbs);
  o.u32(pAreas);
  for (auto& b : model.bones)
    for (float f : b.ibp) o.f32(f);
  for (uint32_t k = 0; k < M; ++k) {
    o.u32(rows.meshBase(k) + 4);
    o.u32(0);
  }
  for (uint32_t off : nameOff) o.u32(off);
  o.raw(names.bytes.data(), names.size());
  o.pad(pAabbs - o.size());
  islandArrays(o, acc.islands);
  for (uint32_t k = 0; k < M; ++k) {
    B.subrefs[acc.subrefAreas[k]].second = pAreas + 16 * acc.firstIsland[k];
    B.subrefs[acc.subrefAabbs[k]].second = pAabbs + 32 * acc.firstIsland[k];
  }
  return o.bytes;
}

}  // namespace

std::vector<uint8_t> writePsgModel(const PsgModelIn& model) {
  Builder B;
  B.id = model.arenaId;
  B.types = {0,         0x10030,          0x10031, 0x10032, 0x10033, 0x10034, 0x10010,    kVersionData, kMaterialData,
             kOptiMesh, kRenderModelData, kToc,    kVb,     kIb,     kVdes,   kMeshHelper};
  if (!model.textures.empty()) B.types.push_back(kTexture);
  const ModelRows rows(model);
  B.objs.push_back(Obj{kVersionData, 16, versionData(), false, 0, 0});
  if (rows.hasMat) {
    Obj o;
    o.typeId = kMaterialData;
    materialData(model.materials, o.bytes);
    B.objs.push_back(std::move(o));
  }
  ModelIslands acc(rows.meshes);
  for (uint32_t k = 0; k < rows.meshes; ++k) addMesh(B, model.meshes[k], k, rows, acc);
  std::vector<uint8_t> rmd = renderModelData(model, rows, acc, B);
  B.objs.push_back(Obj{kRenderModelData, 16, std::move(rmd), false, 0, 0});

  std::vector<TocItem> items;
  items.push_back({model.name, model.guid, kRenderModelData, rows.rmdRow});
  for (const PsgTextureIn& t : model.textures) {
    B.gfx.resize(alignUp(B.gfx.size(), 128), 0);
    const uint32_t res = B.addResource(texturePayload(t), 128, 128);
    B.objs.push_back(Obj{kTexture, 4, textureObject(t, res), false, 0, 0});
    items.push_back({tocName(t), t.guid, 0xAC462E4A, uint32_t(B.objs.size() - 1)});
  }
  B.objs.push_back(Obj{kToc, 16, toc(items, 0xFEFFFFFF, false), false, 0, 0});
  return B.finish();
}

std::vector<uint8_t> writePsgTextures(const std::vector<PsgTextureIn>& textures, uint32_t arenaId) {
  Builder B;
  B.id = arenaId;
  B.resourceAlign = 128;
  B.types = {0, 0x10030, 0x10031, 0x10032, 0x10033, 0x10034, 0x10010, kTexture, kVersionData, kToc};
  std::vector<TocItem> items;
  for (const PsgTextureIn& t : textures) {
    const uint32_t res = B.addResource(texturePayload(t), 128, 128);
    B.objs.push_back(Obj{kTexture, 4, textureObject(t, res), false, 0, 0});
    items.push_back({tocName(t), t.guid, 0xAC462E4A, uint32_t(B.objs.size() - 1)});
  }
  B.objs.push_back(Obj{kToc, 16, toc(items, 0x9B0F1678, true), false, 0, 0});
  B.objs.push_back(Obj{kVersionData, 16, versionData(), false, 0, 0});
  return B.finish();
}

std::vector<uint8_t> psgTextureArenaSpliced(const uint8_t* object, size_t objectSize, const uint8_t* payload,
                                            size_t payloadSize) {
  const auto be32 = [](const std::vector<uint8_t>& b, size_t at) {
    return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
  };
  PsgTextureIn t;
  t.guid = 0x1122334455667788ull;
  t.format = 0x86;
  t.width = 4;
  t.height = 4;
  t.levels.push_back(std::vector<uint8_t>(8, 0));
  std::vector<uint8_t> arena = writePsgTextures({t});
  // Row 1 is the Texture object; its dictionary row holds the object's file offset.
  const uint32_t dict = be32(arena, 0x30);
  const uint32_t obj = be32(arena, dict + 24);
  uint8_t fields[40] = {};
  if (objectSize) std::memcpy(fields, object, objectSize < 40 ? objectSize : 40);
  std::memcpy(arena.data() + obj, fields, 40);
  // Payload: replace the graphics block with the second part and fix the sizes.
  arena.resize(be32(arena, 0x44));
  arena.insert(arena.end(), payload, payload + payloadSize);
  const uint32_t gfx = uint32_t(payloadSize);
  const uint8_t be[4] = {uint8_t(gfx >> 24), uint8_t(gfx >> 16), uint8_t(gfx >> 8), uint8_t(gfx)};
  std::memcpy(arena.data() + 0x6C, be, 4);      // graphics block size
  std::memcpy(arena.data() + dict + 8, be, 4);  // row 0, the BaseResource: its size
  return arena;
}

}  // namespace rs
