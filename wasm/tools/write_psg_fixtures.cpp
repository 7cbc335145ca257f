// write_psg_fixtures <outdir>: Skate 3 PS3 arenas for the JavaScript and browser tests.
//
// skinned_box.psg — model arena, decodes to:
//   name "skinned_box"; 1 mesh, 24 vertices (4 per face), 36 indices = 12 triangles in 2 islands
//   (groups {start 0, count 18}, {start 18, count 18}, material 0); box x,z in [-0.5, 0.5], y in [0, 2].
//   Faces in order +X, -X, +Y, -Y, +Z, -Z; each face's corners (-u,-v), (+u,-v), (+u,+v), (-u,+v)
//   with triangles (0,1,2), (0,2,3), CCW seen from outside; normals exactly the face axis (CMP);
//   UVs (three space: u, 1 - v of the file's SF values) (0,0), (1,0), (1,1), (0,1) per face corner.
//   Vertex 0 = (0.5, 0, 0.5), normal (1, 0, 0), uv (0, 0), bound to HIPS with weight 1.
//   Skeleton: HIPS (parent -1, rest t (0,0,0)), SPINE (parent 0, t (0,1,0)), SPINE1 (parent 1,
//   t (0,1,0)); identity rotations. Palette [2, 0, 1] (slot 0 = SPINE1, slot 1 = HIPS, slot 2 = SPINE):
//   vertices with y = 0 -> skinIndex (0, ...) weight 1 on HIPS (palette slot 1);
//   vertices with y = 2 -> SPINE1 191/255 (0.749020) + SPINE 64/255 (0.250980) (slots 0 and 2).
//   Material 0: name "material_0", guid "1122334455667788", textureNames[0] "0x1122334455667788.Texture".
//   Rest translations exact (HIPS (0,0,0) has no -0). Counts: objects 11, bones 3, meshes 1, vertices 24, triangles 12,
//   indices 36, islands 2.
//
// box_textures.psg — texture arena, decodes to one texture: guid "1122334455667788", name
//   "0x1122334455667788.Texture", format "dxt1", 64x64, 7 mips (2048, 512, 128, 32, 8, 8, 8 bytes).
//   Level 0 quadrants (rows top-down, as stored): top-left red (565 0xF800), top-right green (0x07E0),
//   bottom-left blue (0x001F), bottom-right white (0xFFFF); levels 1..6 solid: yellow (0xFFE0),
//   magenta (0xF81F), cyan (0x07FF), red, green, blue. Every block is {color0, color1 = 0, indices 0}.
#include <cstdio>
#include <string>

#include "writers/psg_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

namespace {

PsgModelIn skinnedBox() {
  PsgModelIn m;
  m.name = "skinned_box";
  m.bones = {psgBone("HIPS"), psgBone("SPINE", 0, -1, 0), psgBone("SPINE1", 0, -2, 0)};
  m.materials = {PsgMaterialIn{{{"diffuse", 0x1122334455667788ull, "box_diffuse_0x1122334455667788"}}}};
  PsgMeshIn b;
  b.layout = {{psgv::F, 3, psgv::XYZ},
              {psgv::CMP, 1, psgv::NORMAL},
              {psgv::SF, 2, psgv::TEX0},
              {psgv::UB, 4, psgv::BLENDWEIGHT},
              {psgv::UB256, 4, psgv::BLENDINDICES}};
  b.palette = {2, 0, 1};
  const float faces[6][3][3] = {
      // normal, u, v (u x v = normal)
      {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}}, {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},
      {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}, {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},  {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
  };
  const float half[3] = {0.5f, 1.0f, 0.5f}, center[3] = {0, 1, 0};
  const float su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
  b.uvs.resize(1);
  for (int f = 0; f < 6; ++f) {
    const uint32_t base = uint32_t(b.positions.size() / 3);
    for (int c = 0; c < 4; ++c) {
      float p[3];
      for (int k = 0; k < 3; ++k)
        p[k] = center[k] + (faces[f][0][k] + su[c] * faces[f][1][k] + sv[c] * faces[f][2][k]) * half[k];
      b.positions.insert(b.positions.end(), p, p + 3);
      b.normals.insert(b.normals.end(), faces[f][0], faces[f][0] + 3);
      b.uvs[0].insert(b.uvs[0].end(), {su[c] > 0 ? 1.0f : 0.0f, sv[c] > 0 ? 0.0f : 1.0f});
      if (p[1] < 1) {
        b.skinSlots.insert(b.skinSlots.end(), {1, 0, 0, 0});
        b.skinWeights.insert(b.skinWeights.end(), {1, 0, 0, 0});
      } else {
        b.skinSlots.insert(b.skinSlots.end(), {0, 2, 0, 0});
        b.skinWeights.insert(b.skinWeights.end(), {191 / 255.0f, 64 / 255.0f, 0, 0});
      }
    }
    b.indices.insert(b.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  b.islands = {18, 18};
  m.meshes = {b};
  return m;
}

void solid(std::vector<uint8_t>& out, uint16_t c565) {
  const uint8_t block[8] = {uint8_t(c565), uint8_t(c565 >> 8), 0, 0, 0, 0, 0, 0};
  out.insert(out.end(), block, block + 8);
}

PsgTextureIn boxTexture() {
  PsgTextureIn t;
  t.guid = 0x1122334455667788ull;
  t.format = 0x86;
  t.width = 64;
  t.height = 64;
  std::vector<uint8_t> level0;
  for (int by = 0; by < 16; ++by)
    for (int bx = 0; bx < 16; ++bx) solid(level0, by < 8 ? (bx < 8 ? 0xF800 : 0x07E0) : (bx < 8 ? 0x001F : 0xFFFF));
  t.levels.push_back(level0);
  const uint16_t colours[6] = {0xFFE0, 0xF81F, 0x07FF, 0xF800, 0x07E0, 0x001F};
  for (uint32_t l = 1; l < 7; ++l) {
    std::vector<uint8_t> level;
    for (size_t i = 0; i < psgLevelBytes(0x86, 64, 64, l) / 8; ++i) solid(level, colours[l - 1]);
    t.levels.push_back(level);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_psg_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = writeFile(dir + "/skinned_box.psg", writePsgModel(skinnedBox()));
  ok = writeFile(dir + "/box_textures.psg", writePsgTextures({boxTexture()})) && ok;
  if (!ok) {
    std::fprintf(stderr, "write_psg_fixtures: cannot write to %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
