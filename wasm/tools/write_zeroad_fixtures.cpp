// write_zeroad_fixtures <outdir>: small 0 A.D. files for the JavaScript and browser tests.
// Built by rs::zeroadArmModel() etc. (wasm/src/writers/zeroad_writer.cpp); zeroad_test checks the
// decoded facts below natively. "Three" values are what decodePmd/decodePssa return (z mirrored,
// quaternion x and y negated, index order kept); "file" values are the left-handed game space.
//
// arm.pmd — PMD version 4, 1 UV set, 112 vertices, 100 triangles, 3 bones, 2 props.
//   Mesh: a box along +x from x = 0 to 3, cross-section y, z in [-0.25, 0.25], each of the 4 sides
//   a strip of 13 rings (x = 0, 0.25, ..., 3) x 2 vertices with its own normal (104 vertices), plus
//   2 end caps of 4 vertices (8). UV set 0: u = x / 3 on the sides. CCW outward in three space.
//   Bones (flat; rest = absolute): bone_0 at (0,0,0), bone_1 at (1,0,0), bone_2 at (2,0,0), all
//   identity rotations. Blends: x < 1 -> bone 0 (w 1), 1 < x < 2 -> bone 1, x > 2 -> bone 2,
//   ring x = 1 -> bones 0 and 1 (0.5 each), ring x = 2 -> bones 1 and 2 (0.5 each); unused slots 0xFF.
//   Props: prop_hand on bone 2, file t = (1, 0, 0.25), q = identity -> three t = (1, 0, -0.25);
//          prop_head on bone 0, file t = (0, 0.5, 0), q = (0, 0.7071068, 0, 0.7071068) (90 deg about
//          +Y) -> three q = (0, -0.7071068, 0, 0.7071068).
//   No "bind shape" bone (no vertex uses index 3): the skeleton has exactly 3 bones.
//
// arm_wave.psa — PSSA version 1, name "arm_wave", 3 bones, 20 frames, frameLength 33.3 ms (f32).
//   Every frame: bone 0 = (0,0,0) identity, bone 1 = (1,0,0) identity, bone 2 at (2,0,0) turned by
//   theta_f = 5 * f degrees about +Z: q_f = (0, 0, sin(theta_f / 2), cos(theta_f / 2)), f = 0..19
//   (0, 5, 10, ..., 95 degrees; frame 18 = 90 degrees). A Z rotation is unchanged by the z mirror,
//   so three q_f is the same. Key times f * 0.0333 s; the looping clip adds a wrap key = frame 0 at
//   0.666 s; duration 0.666 s. Skinned with arm.pmd, a point (x, y, 0) with x > 2 goes to
//   (2 + (x-2) cos theta - y sin theta, (x-2) sin theta + y cos theta, 0): the tip centre (3, 0, 0)
//   is at (2, 1, 0) on frame 18.
//
// arm_bad.psa — PSSA, name "arm_bad", 4 bones, 2 frames (bone b at (b, 0, 0), identity), 33.3 ms:
//   refused with arm.pmd ("animation arm_bad.psa has 4 bones, model arm.pmd has 3").
//
// old_v1.pmd — PMD version 1 (no UV-count field, no prop section), 48 vertices, 36 triangles,
//   2 bones: bone_0 at (0,0,0) identity, bone_1 at (1,0,0) turned 90 deg about +Y (file q =
//   (0, 0.7071068, 0, 0.7071068), three q = (0, -0.7071068, 0, 0.7071068)). Mesh: a box along +x
//   from 0 to 2, cross-section [-0.25, 0.25]^2, 5 rings x 2 vertices per side + 2 caps; vertices
//   with x <= 1 on bone 0, the rest on bone 1, one influence each. Positions and normals are stored
//   relative to their bone; decoded (pre-skinned with the rest pose) they are the box again, in
//   three space x 0..2, y and z -0.25..0.25. Attachments: the engine's implied "root" (bone -1).
#include <cstdio>
#include <string>

#include "writers/writer_bytes.h"
#include "writers/zeroad_writer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_zeroad_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Item {
    const char* name;
    std::vector<uint8_t> bytes;
  };
  const Item items[] = {
      {"arm.pmd", rs::writePmd(rs::zeroadArmModel())},
      {"arm_wave.psa", rs::writePssa(rs::zeroadArmWave())},
      {"arm_bad.psa", rs::writePssa(rs::zeroadArmBad())},
      {"old_v1.pmd", rs::writePmd(rs::zeroadOldV1Model())},
  };
  for (const Item& it : items) {
    const std::string path = dir + "/" + it.name;
    if (!rs::writeFile(path, it.bytes)) {
      std::fprintf(stderr, "write_zeroad_fixtures: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("%s (%zu bytes)\n", path.c_str(), it.bytes.size());
  }
  return 0;
}
