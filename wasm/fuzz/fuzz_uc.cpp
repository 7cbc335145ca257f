// libFuzzer: the .uc #exec parser on its own, and the placement a script gives a skeletal model.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/ue1/ue1.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  rs::UcScript script = rs::parseUc(text);
  rs::findUcMesh(script, "fuzz_d.3d", "fuzz_a.3d");
  for (const rs::UcTextureImport& t : script.textureImports) rs::ucBaseName(t.file, true);
  rs::findUcAnim(script, "fuzz.psa");
  const int found = rs::findUcModel(script, "fuzz.psk");
  if (found >= 0) {
    // A one-triangle, one-bone model placed as the script says: every number must stay finite.
    const rs::UcMesh& m = script.meshes[size_t(found)];
    rs::Model model;
    model.meshes.emplace_back();
    model.meshes[0].positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    model.meshes[0].normals = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    model.meshes[0].indices = {0, 1, 2};
    model.hasSkeleton = true;
    model.skeleton.names = {"root"};
    model.skeleton.parents = {-1};
    model.skeleton.restTranslation = {0, 0, 0};
    model.skeleton.restRotation = {0, 0, 0, 1};
    rs::SkeletalPlacement pl;
    for (int k = 0; k < 3; ++k) {
      pl.origin[k] = m.origin[k];
      pl.rotation[k] = m.rotation[k];
      if (m.hasScale) pl.scale[k] = m.scale[k];
    }
    rs::placeSkeletalModel(model, pl, "fuzz.uc");
    for (float v : model.meshes[0].positions)
      if (!(v == v) || v > 1e30f || v < -1e30f) __builtin_trap();
  }
  return 0;
}
