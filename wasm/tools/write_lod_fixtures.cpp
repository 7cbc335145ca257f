// write_lod_fixtures <outdir>: export trees whose meshes come in levels of detail, named as UE Viewer
// and FModel name them, for the scene's LOD and character-name rules. Under <outdir>/lod_export/:
//
// Every skinned mesh has the same skeleton Root > Spine > Neck > Head (bones rest at file z 0, 5, 15, 20,
// decoded y) and is a vertical strip of `segments` quads: 2 * (segments + 1) points, one wedge per point,
// every point weighted 1 to one bone. A level's decoded vertex count is therefore 2 * (segments + 1).
//
// ueviewer/Characters/Male/Bodies/  UE Viewer: LOD0 is X.psk, level N is X_LodN.psk
//   SK_MaleBase_01_ArmsForJaket   segments 16, 8, 4, 2  -> 34, 18, 10, 6 vertices  (material MI_Arms)
//   SK_MaleBase_01_Body           segments 12, 6, 3, 1  -> 26, 14, 8, 4            (MI_Body)
//   SK_MaleBase_01_Legs           segments 10, 5, 2, 1  -> 22, 12, 6, 4            (MI_Legs)
//   SK_MaleBase_01_Head           segments 6 (no other level) -> 14                (MI_Head)
//   SK_MaleBase_01_Idle.psa       the four bones, sequence "Idle", 2 frames at 10 fps
//   expected: one character of four parts showing LOD0, named after the body (the arms come first and
//   have more vertices); 13 meshes in all.
// ueviewer/Props/                    UE Viewer static meshes: X.pskx, X_Lod1.pskx (no bones)
//   SM_Barrel                     segments 6, 2 -> 14, 6 vertices
// fmodel/Characters/Goblin/          FModel / CUE4Parse: every level is X_LODN.psk, LOD0 included
//   SK_Goblin_Cape_LOD0, _LOD1    segments 4, 2    -> 10, 6 vertices
//   SK_Goblin_Torso_LOD0.._LOD2   segments 8, 4, 2 -> 18, 10, 6 vertices
//   expected: one character named after the part with the most vertices (the torso).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

namespace {

std::vector<psk::Bone> bones() {
  const char* names[4] = {"Root", "Spine", "Neck", "Head"};
  const float offsets[4] = {0, 5, 10, 5};
  std::vector<psk::Bone> out;
  for (int i = 0; i < 4; ++i) {
    psk::Bone b;
    b.name = names[i];
    b.parent = i == 0 ? 0 : i - 1;
    b.numChildren = i < 3 ? 1 : 0;
    b.position[2] = offsets[i];
    out.push_back(b);
  }
  return out;
}

// A strip of half-width w at depth y from z0 to z1 in `segments` quads, every point on `bone`
// (bone < 0: a static mesh without bones).
psk::Mesh strip(int segments, float w, float y, float z0, float z1, int32_t bone, const char* material) {
  psk::Mesh m;
  for (int s = 0; s <= segments; ++s) {
    float z = z0 + (z1 - z0) * float(s) / float(segments);
    for (int side = 0; side < 2; ++side) {
      uint32_t p = uint32_t(m.points.size() / 3);
      m.points.insert(m.points.end(), {side ? -w : w, y, z});
      m.wedges.push_back({p, side ? 0.0f : 1.0f, 1.0f - float(s) / float(segments), 0});
    }
  }
  for (int s = 0; s < segments; ++s) {
    uint32_t a = uint32_t(2 * s);
    // Written clockwise from the front, as ActorX writes faces.
    psk::Face f0, f1;
    f0.wedge[0] = a;
    f0.wedge[1] = a + 1;
    f0.wedge[2] = a + 3;
    f1.wedge[0] = a;
    f1.wedge[1] = a + 3;
    f1.wedge[2] = a + 2;
    m.faces.push_back(f0);
    m.faces.push_back(f1);
  }
  m.materials = {{material, 0, 0}};
  if (bone >= 0) {
    m.bones = bones();
    for (int32_t p = 0; p < int32_t(m.points.size() / 3); ++p) m.weights.push_back({1, p, bone});
  }
  return m;
}

bool write(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(path.parent_path());
  if (!writeFile(path.string(), bytes)) {
    std::fprintf(stderr, "write_lod_fixtures: cannot write %s\n", path.string().c_str());
    return false;
  }
  return true;
}

struct Part {
  const char* name;
  std::vector<int> segments;  // per level
  float w, y, z0, z1;
  int32_t bone;
  const char* material;
};

// UE Viewer names level 0 X and level N X_LodN; FModel names every level X_LODN.
bool writeLevels(const std::filesystem::path& dir, const Part& p, bool fmodel, const char* ext) {
  bool ok = true;
  for (size_t level = 0; level < p.segments.size(); ++level) {
    std::string name = p.name;
    if (fmodel)
      name += "_LOD" + std::to_string(level);
    else if (level > 0)
      name += "_Lod" + std::to_string(level);
    ok &= write(dir / (name + ext), psk::writePsk(strip(p.segments[level], p.w, p.y, p.z0, p.z1, p.bone, p.material)));
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_lod_fixtures <outdir>\n");
    return 2;
  }
  const std::filesystem::path root = std::filesystem::path(argv[1]) / "lod_export";
  bool ok = true;

  const std::filesystem::path bodies = root / "ueviewer" / "Characters" / "Male" / "Bodies";
  ok &=
      writeLevels(bodies, {"SK_MaleBase_01_ArmsForJaket", {16, 8, 4, 2}, 6, 0.2f, 12, 14, 1, "MI_Arms"}, false, ".psk");
  ok &= writeLevels(bodies, {"SK_MaleBase_01_Body", {12, 6, 3, 1}, 3, 0, 5, 15, 1, "MI_Body"}, false, ".psk");
  ok &= writeLevels(bodies, {"SK_MaleBase_01_Legs", {10, 5, 2, 1}, 2.5f, 0, 0, 5, 0, "MI_Legs"}, false, ".psk");
  ok &= writeLevels(bodies, {"SK_MaleBase_01_Head", {6}, 1.5f, 0, 15, 20, 3, "MI_Head"}, false, ".psk");
  psk::Animation idle;
  idle.bones = bones();
  psk::Sequence s;
  s.name = "Idle";
  s.fps = 10;
  s.frames = 2;
  for (int f = 0; f < 2; ++f) {
    for (const auto& b : idle.bones) {
      psk::Key k;
      k.position[2] = b.position[2] + (f && &b == &idle.bones[1] ? 0.5f : 0.0f);
      s.keys.push_back(k);
    }
  }
  idle.sequences.push_back(s);
  ok &= write(bodies / "SK_MaleBase_01_Idle.psa", psk::writePsa(idle));

  ok &= writeLevels(root / "ueviewer" / "Props", {"SM_Barrel", {6, 2}, 1, 0, 0, 3, -1, "MI_Barrel"}, false, ".pskx");

  const std::filesystem::path goblin = root / "fmodel" / "Characters" / "Goblin";
  ok &= writeLevels(goblin, {"SK_Goblin_Cape", {4, 2}, 3, -0.5f, 5, 15, 1, "MI_Cape"}, true, ".psk");
  ok &= writeLevels(goblin, {"SK_Goblin_Torso", {8, 4, 2}, 2.5f, 0, 4, 14, 1, "MI_Torso"}, true, ".psk");
  return ok ? 0 : 1;
}
