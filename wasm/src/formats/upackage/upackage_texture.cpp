// Texture (+ procedural subclasses) and Palette (§10, §11.6) -> the image family's decoded texture.
#include <algorithm>

#include "formats/image/pixel_cap.h"
#include "formats/upackage/upackage_internal.h"
#include "io/bytes.h"

namespace rs {
namespace upkg {
namespace {

constexpr size_t kMinMip = 15;  // SkipPos, count, USize, VSize, UBits, VBits
constexpr uint32_t kPlaceholderSize = 8;

struct Mip {
  const uint8_t* data = nullptr;
  uint32_t bytes = 0;
  size_t at = 0;  // of the data's count, for messages
  int32_t u = 0, v = 0;
};

void readMips(Reader& r, const char* field, std::vector<Mip>& mips) {
  const uint32_t n = r.count(field, kMinMip);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    Mip m;
    const uint32_t skip = r.skipPos(field);
    m.at = r.pos();
    m.bytes = r.count(field, 1);
    m.data = r.take(m.bytes, field);
    r.checkSkip(skip, field);
    m.u = r.i32("mip USize");
    m.v = r.i32("mip VSize");
    r.u8("mip UBits");
    r.u8("mip VBits");
    mips.push_back(m);
  }
}

Model& beginTextureModel(const Package& pkg, uint32_t exportIndex, Model& out) {
  out.format = "upackage-texture";
  out.name = pkg.exports[exportIndex].name;
  return out;
}

Texture& addTexture(Model& out, const std::string& name, uint32_t w, uint32_t h, const char* format) {
  out.textures.emplace_back();
  Texture& t = out.textures.back();
  t.name = name;
  t.width = w;
  t.height = h;
  t.format = format;
  return t;
}

void placeholder(Model& out, const std::string& name, const uint8_t rgba[4], const std::string& why) {
  Texture& t = addTexture(out, name, kPlaceholderSize, kPlaceholderSize, "rgba8");
  t.mips.emplace_back(size_t(kPlaceholderSize) * kPlaceholderSize * 4);
  for (size_t i = 0; i < t.mips[0].size(); i += 4) std::copy(rgba, rgba + 4, t.mips[0].begin() + std::ptrdiff_t(i));
  out.info.emplace_back("placeholder", why);
}

// A Palette export's colours (§10): 256 × RGBA (RGB before v66), or a failure.
Status readPalette(const Package& pkg, const uint8_t* data, uint32_t exportIndex, std::vector<uint8_t>& rgba) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  Reader r(pkg, data, begin, end, describeExport(pkg, exportIndex));
  Properties props;
  readProperties(r, pkg.exports[exportIndex].flags, props);
  const size_t stride = pkg.version <= 65 ? 3 : 4;
  const uint32_t n = r.count("Colors", stride);
  const uint8_t* p = r.take(size_t(n) * stride, "Colors");
  r.expectEnd("Palette data");
  if (r.failed()) return r.status();
  rgba.assign(size_t(n) * 4, 255);
  for (uint32_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < 3; ++k) rgba[i * 4 + k] = p[i * stride + k];
    // Stored alpha is 255 everywhere; transparency comes from bMasked (§10).
  }
  return Status();
}

bool isProcedural(const std::string& c) {
  return equalsNoCase(c, "FireTexture") || equalsNoCase(c, "IceTexture") || equalsNoCase(c, "WaveTexture") ||
         equalsNoCase(c, "WetTexture") || equalsNoCase(c, "ScriptedTexture");
}

// DXT blocks of a u × v level.
uint64_t blockBytes(int32_t u, int32_t v, uint32_t blockSize) {
  return uint64_t((std::max(u, 1) + 3) / 4) * uint64_t((std::max(v, 1) + 3) / 4) * blockSize;
}

// CompMips (§10): codes differ between engines, so the data must also have the size of the
// format: UT v469's 3 = DXT1, 6/7 = DXT3/DXT5 in its numbering, 7/8 = DXT3/DXT5 in UE2's.
const char* compFormatOf(int32_t code, const Mip& m0) {
  const bool dxt1 = m0.bytes == blockBytes(m0.u, m0.v, 8), dxt16 = m0.bytes == blockBytes(m0.u, m0.v, 16);
  if (code == 3 && dxt1) return "dxt1";
  if ((code == 7 || code == 8) && dxt16) return "dxt5";
  if (code == 6 && dxt16) return "dxt3";
  return nullptr;
}

}  // namespace

bool textureMasked(const Package& pkg, const uint8_t* data, int32_t ref) {
  if (ref <= 0) return false;
  const uint32_t i = uint32_t(ref - 1);
  const PackageExport& ex = pkg.exports[i];
  if (!isPackageTextureClass(ex.className) || equalsNoCase(ex.className, "Palette")) return false;
  size_t begin = 0, end = 0;
  if (!objectRange(pkg, i, begin, end).ok()) return false;
  Reader r(pkg, data, begin, end, ex.name);
  Properties props;
  readProperties(r, ex.flags, props);
  return !r.failed() && props.masked;
}

Status decodePalette(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  std::vector<uint8_t> rgba;
  Status st = readPalette(pkg, data, exportIndex, rgba);
  if (!st.ok()) return st;
  beginTextureModel(pkg, exportIndex, out);
  Texture& t = addTexture(out, out.name, 16, 16, "rgba8");
  t.mips.emplace_back(16 * 16 * 4, 0);
  std::copy(rgba.begin(), rgba.begin() + std::ptrdiff_t(std::min<size_t>(rgba.size(), 1024)), t.mips[0].begin());
  out.count("colors", double(rgba.size() / 4));
  out.count("width", 16);
  out.count("height", 16);
  return Status();
}

Status decodeTexture(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  const PackageExport& ex = pkg.exports[exportIndex];
  const std::string what = describeExport(pkg, exportIndex);
  Reader r(pkg, data, begin, end, what);
  Properties props;
  readProperties(r, ex.flags, props);
  std::vector<Mip> mips, compMips;
  readMips(r, "Mips", mips);
  if (props.hasComp) readMips(r, "CompMips", compMips);
  uint32_t sparks = 0;
  if (equalsNoCase(ex.className, "FireTexture")) {
    sparks = r.count("Sparks", 8);
    r.skip(size_t(sparks) * 8, "Sparks");
  }
  const bool known = equalsNoCase(ex.className, "Texture") || isProcedural(ex.className);
  if (known) {
    r.expectEnd("Texture data");
  } else if (!r.failed() && r.pos() != r.end()) {
    out.warnings.push_back(format("%s: %zu bytes of class %s after the mips ignored", what.c_str(),
                                  r.end() - r.pos(), ex.className.c_str()));
  }
  if (r.failed()) return r.status();

  beginTextureModel(pkg, exportIndex, out);
  out.count("mips", double(mips.size()));
  out.count("compMips", double(compMips.size()));
  if (sparks) out.count("sparks", sparks);
  out.info.emplace_back("textureFormat", format("%d", props.format));
  if (props.masked) out.info.emplace_back("masked", "1");
  if (props.palette) out.info.emplace_back("palette", packageObjectPath(pkg, props.palette));
  if (props.hasComp) out.info.emplace_back("compFormat", format("%d", props.compFormat));
  const uint8_t grey[4] = {128, 128, 128, 255};
  const uint8_t* fill = props.hasMipZero ? props.mipZero : grey;
  if (mips.empty()) {
    placeholder(out, out.name, fill, "no mips");
    return Status();
  }
  const Mip& m0 = mips[0];
  out.count("width", std::max(m0.u, 0));
  out.count("height", std::max(m0.v, 0));
  if (m0.bytes == 0) {
    placeholder(out, out.name, fill, isProcedural(ex.className) ? "procedural texture (" + ex.className + ")" : "empty mip 0");
    return Status();
  }
  if (m0.u <= 0 || m0.v <= 0)
    return fail("UPACKAGE", pkg.file, m0.at, "%s: mip 0 is %d x %d", what.c_str(), m0.u, m0.v);
  Status cap = checkPixelCap("UPACKAGE", pkg.file, m0.at, uint32_t(m0.u), uint32_t(m0.v));
  if (!cap.ok()) return cap;
  const uint64_t pixels = uint64_t(m0.u) * uint64_t(m0.v);
  if (props.format == 0) {
    if (m0.bytes != pixels)
      return fail("UPACKAGE", pkg.file, m0.at, "%s: P8 mip 0 of %d x %d holds %u bytes, not %llu", what.c_str(), m0.u,
                  m0.v, m0.bytes, (unsigned long long)pixels);
    std::vector<uint8_t> palette;
    std::string why;
    if (props.palette > 0) {
      Status ps = readPalette(pkg, data, uint32_t(props.palette - 1), palette);
      if (!ps.ok()) out.warnings.push_back(ps.error), why = "its palette could not be read";
    } else if (props.palette < 0) {
      why = "its palette " + packageObjectPath(pkg, props.palette) + " is in another package";
    } else {
      why = "it has no palette";
    }
    if (palette.empty()) {
      // Grey levels keep the picture readable until the palette's package is dropped too.
      for (int i = 0; i < 256; ++i) palette.insert(palette.end(), {uint8_t(i), uint8_t(i), uint8_t(i), 255});
      out.warnings.push_back(what + ": shown in grey levels: " + why);
      out.info.emplace_back("placeholder", why);
    }
    palette.resize(256 * 4, 0);
    Texture& t = addTexture(out, out.name, uint32_t(m0.u), uint32_t(m0.v), "rgba8");
    t.mips.emplace_back(size_t(pixels) * 4);
    uint8_t* px = t.mips[0].data();
    for (size_t i = 0; i < pixels; ++i) {
      const uint8_t* c = &palette[size_t(m0.data[i]) * 4];
      px[i * 4] = c[0], px[i * 4 + 1] = c[1], px[i * 4 + 2] = c[2];
      px[i * 4 + 3] = (props.masked && m0.data[i] == 0) ? 0 : 255;
    }
  } else if (props.format == 5) {
    // RGBA8: bytes B, G, R, A per the UT v469 headers (unverified, §10).
    if (m0.bytes != pixels * 4)
      return fail("UPACKAGE", pkg.file, m0.at, "%s: RGBA8 mip 0 of %d x %d holds %u bytes, not %llu", what.c_str(),
                  m0.u, m0.v, m0.bytes, (unsigned long long)pixels * 4);
    Texture& t = addTexture(out, out.name, uint32_t(m0.u), uint32_t(m0.v), "rgba8");
    t.mips.emplace_back(m0.data, m0.data + m0.bytes);
    uint8_t* px = t.mips[0].data();
    for (size_t i = 0; i < pixels; ++i) std::swap(px[i * 4], px[i * 4 + 2]);
  } else {
    placeholder(out, out.name, fill, format("texture Format %d is not decoded", props.format));
    out.warnings.push_back(format("%s: texture Format %d is not decoded; shown as a placeholder", what.c_str(),
                                  props.format));
  }
  // CompMips as stored, every level whose size follows the chain.
  if (!compMips.empty()) {
    const char* f = compFormatOf(props.compFormat, compMips[0]);
    if (!f) {
      out.warnings.push_back(format("%s: CompFormat %d with %u bytes for %d x %d is not a known DXT layout; CompMips ignored",
                                    what.c_str(), props.compFormat, compMips[0].bytes, compMips[0].u, compMips[0].v));
    } else if (compMips[0].u > 0 && compMips[0].v > 0) {
      const uint32_t block = std::string(f) == "dxt1" ? 8 : 16;
      Texture& t = addTexture(out, out.name, uint32_t(compMips[0].u), uint32_t(compMips[0].v), f);
      for (size_t i = 0; i < compMips.size(); ++i) {
        const Mip& m = compMips[i];
        const int32_t u = std::max(1, compMips[0].u >> i), v = std::max(1, compMips[0].v >> i);
        if (m.u != u || m.v != v || m.bytes != blockBytes(u, v, block)) break;
        t.mips.emplace_back(m.data, m.data + m.bytes);
      }
    }
  }
  return Status();
}

}  // namespace upkg
}  // namespace rs
