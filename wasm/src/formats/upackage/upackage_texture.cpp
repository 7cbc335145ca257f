// Texture (+ procedural subclasses) and Palette (§10, §11.6) -> the image family's decoded texture.
#include <algorithm>

#include "convert/chunks.h"
#include "formats/image/pixel_cap.h"
#include "formats/upackage/upackage_internal.h"
#include "io/bytes.h"

namespace rs {
namespace upkg {
namespace {

constexpr size_t kMinMip = 15;  // SkipPos (v > 61), count, USize, VSize, UBits, VBits
constexpr uint32_t kPlaceholderSize = 8;

struct Mip {
  const uint8_t* data = nullptr;
  uint32_t bytes = 0;
  size_t at = 0;  // of the data's count, for messages
  int32_t u = 0, v = 0;
};

RS_STEP void readMips(Reader& r, const char* field, std::vector<Mip>& mips) {
  const uint32_t n = r.count(field, r.package().version > 61 ? kMinMip : kMinMip - 4);
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

// What a mesh reads of a slot texture given in parts: its properties only, which lead its data
// (a 512 x 512 skin's pixels are not needed to know whether it is masked).
constexpr size_t kPropertiesAsk = 1024;

namespace {

// A texture's properties from the head of its range [begin, end): all a mesh needs of it.
bool headProperties(const Package& pkg, const uint8_t* data, uint32_t exportIndex, size_t begin, size_t end,
                    Properties& props) {
  const PackageExport& ex = pkg.exports[exportIndex];
  Reader r(pkg, data, begin, end, ex.name, kPropertiesAsk);
  readProperties(r, ex.flags, props);
  return !r.failed();
}

}  // namespace

bool textureMasked(const Package& pkg, const uint8_t* data, int32_t ref) {
  if (ref <= 0) return false;
  const uint32_t i = uint32_t(ref - 1);
  const PackageExport& ex = pkg.exports[i];
  if (!isPackageTextureClass(ex.className) || equalsNoCase(ex.className, "Palette")) return false;
  size_t begin = 0, end = 0;
  if (!objectRange(pkg, i, begin, end).ok()) return false;
  Properties props;
  return headProperties(pkg, data, i, begin, end, props) && props.masked;
}

Status decodePalette(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  std::vector<uint8_t> rgba;
  Status st = readPalette(pkg, data, exportIndex, rgba);
  if (!st.ok()) return st;
  beginTextureModel(pkg, exportIndex, out);
  Texture& t = addTexture(out, out.name, 16, 16, "rgba8");
  t.mips.emplace_back(16 * 16 * 4, 0);
  std::copy(rgba.begin(), rgba.begin() + std::ptrdiff_t(std::min<size_t>(rgba.size(), 1024)), t.mips[0].begin());
  out.count("colors", double(rgba.size()) / 4);
  out.count("width", 16);
  out.count("height", 16);
  return Status();
}

namespace {

struct TextureData {
  Properties props;
  std::vector<Mip> mips, compMips;
  uint32_t sparks = 0;
};

// Of a package given in parts, a texture whose data is not read yet asks for its Palette export
// with it when its properties (read with its mesh, which needs them for bMasked) name one: one
// round brings both, where the palette took a round of its own once the pixels had come.
void askPaletteWithData(const Package& pkg, const uint8_t* data, uint32_t exportIndex, size_t begin, size_t end) {
  Properties props;
  if (presentEnd(pkg, begin) <= begin || !headProperties(pkg, data, exportIndex, begin, end, props)) return;
  if (props.palette <= 0) return;
  size_t paletteBegin = 0, paletteEnd = 0;
  if (!objectRange(pkg, uint32_t(props.palette - 1), paletteBegin, paletteEnd).ok()) return;
  if (presentEnd(pkg, paletteBegin) < paletteEnd) noteMissing(pkg, paletteBegin, paletteEnd);
}

// Properties, Mips, CompMips (when bHasComp), a FireTexture's sparks (§10), to the object's end.
RS_STEP Status readTextureObject(const Package& pkg, const uint8_t* data, uint32_t exportIndex, const std::string& what,
                                 TextureData& t, Model& out) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  const PackageExport& ex = pkg.exports[exportIndex];
  if (presentEnd(pkg, begin) < end) askPaletteWithData(pkg, data, exportIndex, begin, end);
  Reader r(pkg, data, begin, end, what);
  readProperties(r, ex.flags, t.props);
  readMips(r, "Mips", t.mips);
  if (t.props.hasComp) readMips(r, "CompMips", t.compMips);
  if (equalsNoCase(ex.className, "FireTexture")) {
    t.sparks = r.count("Sparks", 8);
    r.skip(size_t(t.sparks) * 8, "Sparks");
  }
  if (equalsNoCase(ex.className, "Texture") || isProcedural(ex.className)) {
    r.expectEnd("Texture data");
  } else if (!r.failed() && r.pos() != r.end()) {
    out.warnings.push_back(format("%s: %zu bytes of class %s after the mips ignored", what.c_str(), r.end() - r.pos(),
                                  ex.className.c_str()));
  }
  return r.status();
}

// P8 through the Palette export (§11.6): index 0 transparent when masked; grey levels when the
// palette is elsewhere or unreadable.
RS_STEP void p8Texture(const Package& pkg, const uint8_t* data, const std::string& what, const TextureData& td,
                       Model& out) {
  const Mip& m0 = td.mips[0];
  const Properties& props = td.props;
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
  const size_t pixels = size_t(m0.u) * size_t(m0.v);
  Texture& t = addTexture(out, out.name, uint32_t(m0.u), uint32_t(m0.v), "rgba8");
  t.mips.emplace_back(pixels * 4);
  uint8_t* px = t.mips[0].data();
  for (size_t i = 0; i < pixels; ++i) {
    const uint8_t* c = &palette[size_t(m0.data[i]) * 4];
    px[i * 4] = c[0], px[i * 4 + 1] = c[1], px[i * 4 + 2] = c[2];
    px[i * 4 + 3] = (props.masked && m0.data[i] == 0) ? 0 : 255;
  }
}

// CompMips as stored, every level while the sizes follow the chain.
RS_STEP void compTexture(const std::string& what, const TextureData& td, Model& out) {
  const std::vector<Mip>& cm = td.compMips;
  const char* f = compFormatOf(td.props.compFormat, cm[0]);
  if (!f) {
    out.warnings.push_back(
        format("%s: CompFormat %d with %u bytes for %d x %d is not a known DXT layout; CompMips ignored", what.c_str(),
               td.props.compFormat, cm[0].bytes, cm[0].u, cm[0].v));
    return;
  }
  if (cm[0].u <= 0 || cm[0].v <= 0) return;
  const uint32_t block = std::string(f) == "dxt1" ? 8 : 16;
  Texture& t = addTexture(out, out.name, uint32_t(cm[0].u), uint32_t(cm[0].v), f);
  for (size_t i = 0; i < cm.size() && i < 31; ++i) {
    const int32_t u = std::max(1, cm[0].u >> i), v = std::max(1, cm[0].v >> i);
    if (cm[i].u != u || cm[i].v != v || cm[i].bytes != blockBytes(u, v, block)) break;
    t.mips.emplace_back(cm[i].data, cm[i].data + cm[i].bytes);
  }
}

void recordTextureFacts(const Package& pkg, const TextureData& td, Model& out) {
  out.count("mips", double(td.mips.size()));
  out.count("compMips", double(td.compMips.size()));
  if (td.sparks) out.count("sparks", td.sparks);
  out.info.emplace_back("textureFormat", format("%d", td.props.format));
  if (td.props.masked) out.info.emplace_back("masked", "1");
  if (td.props.palette) out.info.emplace_back("palette", packageObjectPath(pkg, td.props.palette));
  if (td.props.hasComp) out.info.emplace_back("compFormat", format("%d", td.props.compFormat));
  if (!td.mips.empty()) {
    out.count("width", std::max(td.mips[0].u, 0));
    out.count("height", std::max(td.mips[0].v, 0));
  }
}

}  // namespace

Status decodeTexture(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  const PackageExport& ex = pkg.exports[exportIndex];
  const std::string what = describeExport(pkg, exportIndex);
  TextureData td;
  Status st = readTextureObject(pkg, data, exportIndex, what, td, out);
  if (!st.ok()) return st;
  beginTextureModel(pkg, exportIndex, out);
  recordTextureFacts(pkg, td, out);
  const uint8_t grey[4] = {128, 128, 128, 255};
  const uint8_t* fill = td.props.hasMipZero ? td.props.mipZero : grey;
  if (td.mips.empty() || td.mips[0].bytes == 0) {
    placeholder(out, out.name, fill,
                td.mips.empty()              ? std::string("no mips")
                : isProcedural(ex.className) ? "procedural texture (" + ex.className + ")"
                                             : std::string("empty mip 0"));
    return Status();
  }
  const Mip& m0 = td.mips[0];
  if (m0.u <= 0 || m0.v <= 0)
    return fail("UPACKAGE", pkg.file, m0.at, "%s: mip 0 is %d x %d", what.c_str(), m0.u, m0.v);
  st = checkPixelCap("UPACKAGE", pkg.file, m0.at, uint32_t(m0.u), uint32_t(m0.v));
  if (!st.ok()) return st;
  const uint64_t pixels = uint64_t(m0.u) * uint64_t(m0.v);
  const uint64_t want = pixels * (td.props.format == 5 ? 4 : 1);
  if ((td.props.format == 0 || td.props.format == 5) && m0.bytes != want)
    return fail("UPACKAGE", pkg.file, m0.at, "%s: mip 0 of %d x %d in Format %d holds %u bytes, not %llu", what.c_str(),
                m0.u, m0.v, td.props.format, m0.bytes, (unsigned long long)want);
  if (td.props.format == 0) {
    p8Texture(pkg, data, what, td, out);
  } else if (td.props.format == 5) {
    // RGBA8: bytes B, G, R, A per the UT v469 headers (unverified, §10).
    Texture& t = addTexture(out, out.name, uint32_t(m0.u), uint32_t(m0.v), "rgba8");
    t.mips.emplace_back(m0.data, m0.data + m0.bytes);
    uint8_t* px = t.mips[0].data();
    for (size_t i = 0; i < pixels; ++i) std::swap(px[i * 4], px[i * 4 + 2]);
  } else {
    placeholder(out, out.name, fill, format("texture Format %d is not decoded", td.props.format));
    out.warnings.push_back(
        format("%s: texture Format %d is not decoded; shown as a placeholder", what.c_str(), td.props.format));
  }
  if (!td.compMips.empty()) compTexture(what, td, out);
  return Status();
}

}  // namespace upkg
}  // namespace rs
