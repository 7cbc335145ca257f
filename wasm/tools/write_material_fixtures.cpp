// write_material_fixtures <outdir>: Unreal export folders, as UE Viewer (umodel) and FModel write them,
// for the material sidecar tests. Under <outdir>/unreal_export/, four trees hold the same mesh:
//
// SK_Hero.psk (file frame: right-handed, Z up; decoded (x, y, z) -> (x, z, -y)): one bone "Root", every
// point weighted 1 to it; two quads facing -Y in the file (the default three.js camera once decoded),
// one wedge per point, UV u = across, v = 0 at the quad's top (decoded (u, 1 - v): the image's top row
// lies on the quad's top edge):
//   material 0 "MI_Hero_Body": x -1..1, z 0..2    (decoded y 0..2)
//   material 1 "MI_Hero_Head": x -0.5..0.5, z 2.2..3.2
// The material names are unlike their textures' names, so name matching finds nothing.
//
// Images, 8x8 RGBA, rows 0-3 ("top") and 4-7 ("bottom") of the picture as an image viewer shows it:
//   T_Hero_Body_BC.png   top (230, 60, 60), bottom (140, 30, 30)                 base colour
//   T_Default_BC.png     (128, 128, 128) everywhere                             a parent's default, never shown
//   T_Hero_Body_N.png    DirectX normal map (green = down the image): top tilts 45 degrees toward the
//                        image's top (128, 75, 218), bottom toward its bottom (128, 180, 218)
//   T_Hero_Body_ARM.tga  (255, 140, 0): AO 1, roughness 0.55, metallic 0; bottom-left origin
//   T_Head_D.tga         top (60, 120, 230), bottom (30, 60, 150); top-left origin
//   T_Head_N.tga         flat (128, 128, 255); bottom-left origin
//
// ueviewer_mat/Game/Characters/Hero/       UE Viewer .mat (UE3 game)
//   Meshes/SK_Hero.psk, Materials/MI_Hero_Body.mat (Diffuse, Normal, Other[0] = the ARM map),
//   Materials/MI_Hero_Head.mat (Diffuse, Normal), Textures/ (all but T_Default_BC)
//   expected: Body BC + N + ARM, Head D + N, rule "UE Viewer .mat"
// ueviewer_props/Game/Characters/Hero/     UE Viewer .props.txt (UE4 game, files grouped by class)
//   Meshes/SK_Hero.psk
//   Materials/MaterialInstanceConstant/MI_Hero_Body.props.txt: Parent MI_Hero_Base, BaseColor = T_Hero_Body_BC
//   Materials/MaterialInstanceConstant/MI_Hero_Base.props.txt: Parent M_Character (not exported),
//     BaseColor = T_Default_BC (overridden by the child), NRM = T_Hero_Body_N, ORM = T_Hero_Body_ARM
//   Materials/MaterialInstanceConstant/MI_Hero_Head.props.txt: UE3 layout (ParameterName), no parent,
//     Diffuse = T_Head_D, Normal = T_Head_N
//   Textures/Texture2D/ (all six images)
//   expected: Body BC + N + ARM, rule "props.txt parent chain"; Head D + N, rule "props.txt"
// fmodel_json/Game/Characters/Hero/        FModel / CUE4Parse JSON
//   Meshes/SK_Hero.psk, Meshes/SK_Hero.json (the mesh's exports: not a material)
//   Materials/MI_Hero_Body.json: [MaterialInstanceConstant, Parent MI_Hero_Base, "Base Color" = T_Hero_Body_BC]
//   Materials/MI_Hero_Base.json: [MaterialInstanceConstant, "Base Color" = T_Default_BC, Normal, ORM]
//   Materials/MI_Hero_Head.json: CUE4Parse material export { Textures: { Diffuse, Normal } }
//   Textures/ (all six images)
//   expected: Body BC + N + ARM, rule "FModel .json parent chain"; Head D + N, rule "FModel .json"
// suffix_only/Game/Characters/Hero/        no sidecar at all
//   Meshes/SK_Hero.psk, Textures/T_Hero_Body_BC.png, T_Hero_Body_N.png, T_Hero_Body_ARM.tga, T_Head_D.tga
//   expected: Body BC + N + ARM, rule "suffix convention"; Head untextured (T_Head_D is not named after it)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

namespace {

struct Rgba {
  uint8_t r, g, b, a;
};

// 8x8 pixels, rows top first: `top` in rows 0-3, `bottom` in rows 4-7.
std::vector<Rgba> halves(Rgba top, Rgba bottom) {
  std::vector<Rgba> px;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) px.push_back(y < 4 ? top : bottom);
  return px;
}

uint32_t crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  }
  return c ^ 0xffffffffu;
}

void pngChunk(ByteWriter& w, const char* type, const std::vector<uint8_t>& data) {
  w.u32(uint32_t(data.size()));
  size_t start = w.size();
  w.raw(type, 4);
  w.raw(data.data(), data.size());
  w.u32(crc32(w.bytes.data() + start, w.size() - start));
}

// RGBA PNG with the image data in stored (uncompressed) deflate blocks: no compressor needed.
std::vector<uint8_t> png(const std::vector<Rgba>& px, uint32_t width, uint32_t height) {
  std::vector<uint8_t> raw;
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);  // filter: none
    for (uint32_t x = 0; x < width; ++x) {
      const Rgba& p = px[y * width + x];
      raw.insert(raw.end(), {p.r, p.g, p.b, p.a});
    }
  }
  ByteWriter z;
  z.bigEndian = true;
  z.u8(0x78);
  z.u8(0x01);
  for (size_t at = 0; at < raw.size() || at == 0; at += 65535) {
    size_t n = std::min<size_t>(65535, raw.size() - at);
    z.u8(at + n >= raw.size() ? 1 : 0);  // BFINAL, BTYPE 00 (stored)
    z.bigEndian = false;
    z.u16(uint16_t(n));
    z.u16(uint16_t(~n));
    z.bigEndian = true;
    z.raw(raw.data() + at, n);
  }
  uint32_t a = 1, b = 0;
  for (uint8_t v : raw) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  z.u32((b << 16) | a);

  ByteWriter w;
  w.bigEndian = true;
  const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};
  w.raw(signature, 8);
  ByteWriter header;
  header.bigEndian = true;
  header.u32(width);
  header.u32(height);
  for (uint8_t v : {8, 6, 0, 0, 0}) header.u8(v);  // 8 bits, RGBA, deflate, filters, no interlace
  pngChunk(w, "IHDR", header.bytes);
  pngChunk(w, "IDAT", z.bytes);
  pngChunk(w, "IEND", {});
  return w.bytes;
}

// Uncompressed 32-bit TGA (BGRA). Bottom-left origin stores the picture's bottom row first.
std::vector<uint8_t> tga(const std::vector<Rgba>& px, uint16_t width, uint16_t height, bool topLeft) {
  ByteWriter w;
  w.u8(0);  // no image ID
  w.u8(0);  // no colour map
  w.u8(2);  // uncompressed true colour
  w.pad(5);
  w.u16(0);
  w.u16(0);
  w.u16(width);
  w.u16(height);
  w.u8(32);
  w.u8(uint8_t(8 | (topLeft ? 0x20 : 0)));  // 8 alpha bits, origin
  for (uint16_t row = 0; row < height; ++row) {
    uint16_t y = topLeft ? row : uint16_t(height - 1 - row);
    for (uint16_t x = 0; x < width; ++x) {
      const Rgba& p = px[size_t(y) * width + x];
      for (uint8_t v : {p.b, p.g, p.r, p.a}) w.u8(v);
    }
  }
  return w.bytes;
}

void addQuad(psk::Mesh& m, float x0, float x1, float z0, float z1, uint8_t material) {
  const uint32_t base = uint32_t(m.points.size() / 3);
  // P0 (+x, bottom), P1 (-x, bottom), P2 (+x, top), P3 (-x, top); faces as in two_bone.psk.
  const float pts[4][2] = {{x1, z0}, {x0, z0}, {x1, z1}, {x0, z1}};
  for (const auto& p : pts) {
    m.points.insert(m.points.end(), {p[0], 0, p[1]});
    m.wedges.push_back({uint32_t(m.points.size() / 3 - 1), (p[0] - x0) / (x1 - x0), (z1 - p[1]) / (z1 - z0), material});
    m.weights.push_back({1, int32_t(m.points.size() / 3 - 1), 0});
  }
  const uint32_t faces[2][3] = {{0, 1, 3}, {0, 3, 2}};
  for (const auto& f : faces) {
    psk::Face face;
    for (int k = 0; k < 3; ++k) face.wedge[k] = base + f[k];
    face.material = material;
    m.faces.push_back(face);
  }
}

psk::Mesh hero() {
  psk::Mesh m;
  addQuad(m, -1, 1, 0, 2, 0);
  addQuad(m, -0.5f, 0.5f, 2.2f, 3.2f, 1);
  m.materials = {{"MI_Hero_Body", 0, 0}, {"MI_Hero_Head", 0, 1}};
  psk::Bone root;
  root.name = "Root";
  m.bones = {root};
  return m;
}

const char* TEX = "/Game/Characters/Hero/Textures/";
const char* MAT = "/Game/Characters/Hero/Materials/";

// UE Viewer's property dump of a UE4 material instance (CTypeInfo::SaveProps layout).
std::string ue4Props(const std::string& parent, const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "ScalarParameterValues[0] = {}\nTextureParameterValues[" + std::to_string(params.size()) + "] =\n{\n";
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& t = params[i].second;
    s += "    TextureParameterValues[" + std::to_string(i) + "] =\n    {\n        ParameterName = None\n";
    s += "        ParameterValue = Texture2D'" + std::string(TEX) + t + "." + t + "'\n";
    s += "        ParameterInfo = { Name=" + params[i].first + " }\n    }\n";
  }
  s += "}\nVectorParameterValues[0] = {}\n";
  s += "Parent = " + parent + "\n";
  s += "BasePropertyOverrides =\n{\n    bOverride_BlendMode = false\n    BlendMode = BLEND_Opaque (0)\n    "
       "bOverride_TwoSided = false\n"
       "    TwoSided = false\n    bOverride_OpacityMaskClipValue = false\n    OpacityMaskClipValue = 0.3333\n}\n";
  s += "FlattenedTexture = None\nMobileBaseTexture = None\nMobileNormalTexture = None\nbUseMobileSpecular = false\n";
  return s;
}

// UE Viewer's dump of a UE3 material instance: ParameterName, no ParameterInfo.
std::string ue3Props(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "TextureParameterValues[" + std::to_string(params.size()) + "] =\n{\n";
  for (size_t i = 0; i < params.size(); ++i) {
    s += "    TextureParameterValues[" + std::to_string(i) + "] =\n    {\n";
    s += "        ParameterName = " + params[i].first + "\n";
    s += "        ParameterValue = Texture2D'CH_Hero.Textures." + params[i].second + "'\n    }\n";
  }
  s += "}\nParent = None\n";
  return s;
}

// FModel's JSON of a material instance package: an array of exports.
std::string fmodelInstance(const std::string& name, const std::string& parent,
                           const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "[\n  {\n    \"Type\": \"MaterialInstanceConstant\",\n    \"Name\": \"" + name + "\",\n";
  s += "    \"Class\": \"UScriptClass'MaterialInstanceConstant'\",\n    \"Properties\": {\n";
  if (!parent.empty()) {
    s += "      \"Parent\": {\n        \"ObjectName\": \"MaterialInstanceConstant'" + parent + "'\",\n";
    s += "        \"ObjectPath\": \"" + std::string(MAT) + parent + ".0\"\n      },\n";
  }
  s += "      \"TextureParameterValues\": [";
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string& t = params[i].second;
    s += i ? ",\n" : "\n";
    s += "        {\n          \"ParameterInfo\": { \"Name\": \"" + params[i].first +
         "\", \"Association\": \"GlobalParameter\", \"Index\": -1 },\n";
    s += "          \"ParameterValue\": { \"ObjectName\": \"Texture2D'" + t + "'\", \"ObjectPath\": \"" +
         std::string(TEX) + t + ".0\" },\n";
    s += "          \"ExpressionGUID\": \"00000000000000000000000000000000\"\n        }";
  }
  s += "\n      ]\n    }\n  }\n]\n";
  return s;
}

struct Out {
  std::string root;
  bool ok = true;

  void bytes(const std::string& rel, const std::vector<uint8_t>& data) {
    const std::string path = root + rel;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec || !writeFile(path, data)) {
      std::fprintf(stderr, "write_material_fixtures: cannot write %s\n", path.c_str());
      ok = false;
    }
  }
  void text(const std::string& rel, const std::string& s) { bytes(rel, std::vector<uint8_t>(s.begin(), s.end())); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_material_fixtures <outdir>\n");
    return 2;
  }
  Out out{std::string(argv[1]) + "/unreal_export/"};
  const std::vector<uint8_t> mesh = psk::writePsk(hero());
  const std::vector<uint8_t> bodyBC = png(halves({230, 60, 60, 255}, {140, 30, 30, 255}), 8, 8);
  const std::vector<uint8_t> defaultBC = png(halves({128, 128, 128, 255}, {128, 128, 128, 255}), 8, 8);
  const std::vector<uint8_t> bodyN = png(halves({128, 75, 218, 255}, {128, 180, 218, 255}), 8, 8);
  const std::vector<uint8_t> bodyARM = tga(halves({255, 140, 0, 255}, {255, 140, 0, 255}), 8, 8, false);
  const std::vector<uint8_t> headD = tga(halves({60, 120, 230, 255}, {30, 60, 150, 255}), 8, 8, true);
  const std::vector<uint8_t> headN = tga(halves({128, 128, 255, 255}, {128, 128, 255, 255}), 8, 8, false);
  auto textures = [&](const std::string& dir, bool withDefault, bool withHeadNormal) {
    out.bytes(dir + "T_Hero_Body_BC.png", bodyBC);
    out.bytes(dir + "T_Hero_Body_N.png", bodyN);
    out.bytes(dir + "T_Hero_Body_ARM.tga", bodyARM);
    out.bytes(dir + "T_Head_D.tga", headD);
    if (withHeadNormal) out.bytes(dir + "T_Head_N.tga", headN);
    if (withDefault) out.bytes(dir + "T_Default_BC.png", defaultBC);
  };

  const std::string mat = "ueviewer_mat/Game/Characters/Hero/";
  out.bytes(mat + "Meshes/SK_Hero.psk", mesh);
  out.text(mat + "Materials/MI_Hero_Body.mat",
           "Diffuse=T_Hero_Body_BC\r\nNormal=T_Hero_Body_N\r\nOther[0]=T_Hero_Body_ARM\r\n");
  out.text(mat + "Materials/MI_Hero_Head.mat", "Diffuse=T_Head_D\r\nNormal=T_Head_N\r\n");
  textures(mat + "Textures/", false, true);

  const std::string props = "ueviewer_props/Game/Characters/Hero/";
  const std::string mic = props + "Materials/MaterialInstanceConstant/";
  out.bytes(props + "Meshes/SK_Hero.psk", mesh);
  out.text(mic + "MI_Hero_Body.props.txt",
           ue4Props("MaterialInstanceConstant'" + std::string(MAT) + "MI_Hero_Base.MI_Hero_Base'",
                    {{"BaseColor", "T_Hero_Body_BC"}}));
  out.text(mic + "MI_Hero_Base.props.txt",
           ue4Props("Material3'/Game/Characters/Shared/M_Character.M_Character'",
                    {{"BaseColor", "T_Default_BC"}, {"NRM", "T_Hero_Body_N"}, {"ORM", "T_Hero_Body_ARM"}}));
  out.text(mic + "MI_Hero_Head.props.txt", ue3Props({{"Diffuse", "T_Head_D"}, {"Normal", "T_Head_N"}}));
  textures(props + "Textures/Texture2D/", true, true);

  const std::string fm = "fmodel_json/Game/Characters/Hero/";
  out.bytes(fm + "Meshes/SK_Hero.psk", mesh);
  out.text(fm + "Meshes/SK_Hero.json",
           "[\n  {\n    \"Type\": \"SkeletalMesh\",\n    \"Name\": \"SK_Hero\",\n    \"Properties\": {\n      "
           "\"Materials\": []\n    }\n  }\n]\n");
  out.text(fm + "Materials/MI_Hero_Body.json",
           fmodelInstance("MI_Hero_Body", "MI_Hero_Base", {{"Base Color", "T_Hero_Body_BC"}}));
  out.text(fm + "Materials/MI_Hero_Base.json",
           fmodelInstance("MI_Hero_Base", "",
                          {{"Base Color", "T_Default_BC"}, {"Normal", "T_Hero_Body_N"}, {"ORM", "T_Hero_Body_ARM"}}));
  out.text(fm + "Materials/MI_Hero_Head.json", "{\n  \"Textures\": {\n    \"Diffuse\": \"" + std::string(TEX) +
                                                   "T_Head_D.T_Head_D\",\n    \"Normal\": \"" + std::string(TEX) +
                                                   "T_Head_N.T_Head_N\"\n  },\n  \"Parameters\": {}\n}\n");
  textures(fm + "Textures/", true, true);

  const std::string bare = "suffix_only/Game/Characters/Hero/";
  out.bytes(bare + "Meshes/SK_Hero.psk", mesh);
  textures(bare + "Textures/", false, false);
  return out.ok ? 0 : 1;
}
