// write_upackage_fixtures <outdir>: small UE1 packages for the tests and the fuzzer's seeds, one
// per layout the reader tells apart:
//   quad.u        v69 Mesh (packed vertices) with two P8 textures, one masked in group Skins
//   quad_dx.u     v68 LodMesh with Deus Ex 8-byte vertices (wedges, faces, materials)
//   quad_v61.u    v61 Mesh (Unreal 1: no lazy-array skips, NUL-terminated names)
//   dx_character.u v68 Deus Ex: a character of 72 sequences beside a larger static prop
//   effects.utx   v69 textures only: a P8 texture and a FireTexture (a procedural placeholder)
// Every other mesh is examplePackage's Quad (writers/upackage_examples.h): 4 vertices, 2 triangles, 3 frames.
#include <cstdio>
#include <string>
#include <vector>

#include "writers/upackage_examples.h"
#include "writers/upackage_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_upackage_fixtures <outdir>\n");
    return 2;
  }
  const std::string out = argv[1];
  UpkWritePackage effects;
  effects.textures.push_back(exampleTexture("Glow", "Fx", 16, 8, false));
  UpkWriteTexture fire;
  fire.name = "Flame";
  fire.group = "Fx";
  fire.className = "FireTexture";
  fire.width = fire.height = 64;
  fire.sparks = 3;
  effects.textures.push_back(fire);
  const std::vector<std::pair<std::string, UpkWritePackage>> files = {
      {"quad.u", examplePackage(69, false, false)},
      {"quad_dx.u", examplePackage(68, true, true)},
      {"quad_v61.u", examplePackage(61, false, false)},
      {"dx_character.u", exampleCharacterPackage()},
      {"effects.utx", effects},
  };
  bool ok = true;
  for (const auto& [name, package] : files) {
    if (!writeFile(out + "/" + name, writeUpackage(package))) {
      std::fprintf(stderr, "write_upackage_fixtures: cannot write %s/%s\n", out.c_str(), name.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
