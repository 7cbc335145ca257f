// write_psk_fixtures <outdir>: small ActorX files for the JavaScript tests.
//
// two_bone.psk (file frame: right-handed, Z up; decoded three.js frame: (x, y, z) -> (x, z, -y))
//   bones:  0 "Root"  at (0,0,0), identity, parent 0 (ActorX root convention)
//           1 "Bone1" at (0,0,10) relative to Root, identity, parent 0
//   points (file) -> decoded position          weights
//     P0 ( 1,0, 0) -> ( 1, 0,0)                 Root 1
//     P1 (-1,0, 0) -> (-1, 0,0)                 Root 1
//     P2 ( 1,0,10) -> ( 1,10,0)                 Root 0.5, Bone1 0.5
//     P3 (-1,0,10) -> (-1,10,0)                 Root 0.5, Bone1 0.5
//     P4 ( 1,0,20) -> ( 1,20,0)                 Bone1 1
//     P5 (-1,0,20) -> (-1,20,0)                 Bone1 1
//   one wedge per point (wedge i = point i), UV (u, v) = ((x + 1) / 2, z / 20) -> decoded (u, 1 - v)
//   faces (file, clockwise seen from -Y): (0,1,3) (0,3,2) (2,3,5) (2,5,4) -> decoded indices (0,3,1)
//   (0,2,3) (2,5,3) (2,4,5), counter-clockwise seen from three +Z: the strip faces the default camera
//   and its computed normals are (0,0,1); all on material 0 "Skin"
// two_bone.psa: same 2 bones; one sequence "Bend", 3 frames at 10 fps (loop: times 0, 0.1, 0.2 and the
//   wrap key at 0.3; duration 0.3). Root stays at the origin with identity rotation. Bone1 stays at
//   (0,0,10) (decoded (0,10,0)) and rotates about +X by 0, 45 and 90 degrees: decoded rotation
//   (sin(a/2), 0, 0, cos(a/2)); stored in the file conjugated, (-sin(a/2), 0, 0, cos(a/2)), per the
//   ActorX rule for non-root bones. Skinned decoded positions of P4 (1,20,0): frame 0 (1,20,0),
//   frame 1 (1, 10 + 10 cos 45°, 10 sin 45°) = (1, 17.0711, 7.0711), frame 2 (1, 10, 10).
//   P2/P3 sit on the pivot and do not move; P0/P1 never move.
// static.pskx: a unit cube (8 points, 24 wedges, 12 faces), REFSKELT/RAWWEIGHTS with 0 records.
// morph.psk: two_bone.psk plus morph target "Stretch": deltas (0, 2, 5) (file, un-mirrored) on P4 and
//   P5 -> decoded delta (0, 5, 2) on wedges 4 and 5 (y negated, then Z-up -> Y-up).
// hostile_names.psk / .psa: two_bone with markup in every name (bones, material, sequence).
// truncated.psk: two_bone.psk cut in the middle of FACE0000 (decoding must fail with an error).
// knight_head.psk, knight_body.psk, knight_armour.psk, knight.psa: see knightBones below.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

using namespace rs;

namespace {

psk::Mesh twoBoneMesh() {
  psk::Mesh m;
  m.points = {1, 0, 0, -1, 0, 0, 1, 0, 10, -1, 0, 10, 1, 0, 20, -1, 0, 20};
  for (uint32_t i = 0; i < 6; ++i) {
    float x = m.points[i * 3], z = m.points[i * 3 + 2];
    m.wedges.push_back({i, (x + 1) / 2, z / 20, 0});
  }
  const uint32_t faces[4][3] = {{0, 1, 3}, {0, 3, 2}, {2, 3, 5}, {2, 5, 4}};
  for (const auto& f : faces) {
    psk::Face face;
    face.wedge[0] = f[0];
    face.wedge[1] = f[1];
    face.wedge[2] = f[2];
    m.faces.push_back(face);
  }
  m.materials = {{"Skin", 0, 0}};
  psk::Bone root;
  root.name = "Root";
  root.parent = 0;
  root.numChildren = 1;
  psk::Bone b1;
  b1.name = "Bone1";
  b1.parent = 0;
  b1.position[2] = 10;
  m.bones = {root, b1};
  m.weights = {{1, 0, 0}, {1, 1, 0}, {0.5f, 2, 0}, {0.5f, 2, 1}, {0.5f, 3, 0}, {0.5f, 3, 1}, {1, 4, 1}, {1, 5, 1}};
  return m;
}

psk::Animation twoBoneAnim(const std::vector<psk::Bone>& bones, const std::string& seqName) {
  psk::Animation a;
  a.bones = bones;
  psk::Sequence s;
  s.name = seqName;
  s.fps = 10;
  s.frames = 3;
  const double angles[3] = {0, 45, 90};
  for (double deg : angles) {
    psk::Key root;
    s.keys.push_back(root);
    psk::Key k;
    k.position[2] = 10;
    double h = deg * 3.14159265358979323846 / 360.0;
    k.rotation[0] = float(-std::sin(h));  // stored conjugated (non-root bone)
    k.rotation[3] = float(std::cos(h));
    s.keys.push_back(k);
  }
  a.sequences.push_back(s);
  return a;
}

psk::Mesh cube() {
  psk::Mesh m;
  for (int i = 0; i < 8; ++i) {
    m.points.push_back(float(i & 1));
    m.points.push_back(float((i >> 1) & 1));
    m.points.push_back(float((i >> 2) & 1));
  }
  // Quads as point lists, counter-clockwise from outside; written reversed (clockwise) like ActorX.
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    uint32_t base = uint32_t(m.wedges.size());
    const float uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 4; ++k) m.wedges.push_back({uint32_t(q[k]), uv[k][0], uv[k][1], 0});
    const uint32_t tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
    for (const auto& t : tris) {
      psk::Face f;
      f.wedge[0] = base + t[0];
      f.wedge[1] = base + t[2];
      f.wedge[2] = base + t[1];
      f.smoothing = 0;  // flat
      m.faces.push_back(f);
    }
  }
  m.materials = {{"Crate", 0, 0}};
  return m;
}

// knight_*.psk / knight.psa: a character in three parts that share one skeleton. The head's
// skeleton (Root > Spine > Neck > Head) is a superset of the body's (Root > Spine > Neck) and the
// armour's (Root > Spine): whatever order they arrive in, they make one character on the head's
// skeleton. Bones rest at world z 0, 5, 15, 20 (decoded y). knight.psa has the four bones and one
// sequence "Nod", 4 frames at 8 fps, turning Spine and Head about +X by 0, 20, 40, 60 degrees.
std::vector<psk::Bone> knightBones(size_t count) {
  const char* names[4] = {"Root", "Spine", "Neck", "Head"};
  const float offsets[4] = {0, 5, 10, 5};
  std::vector<psk::Bone> bones;
  for (size_t i = 0; i < count; ++i) {
    psk::Bone b;
    b.name = names[i];
    b.parent = i == 0 ? 0 : int32_t(i - 1);
    b.numChildren = i + 1 < count ? 1 : 0;  // a chain
    b.position[2] = offsets[i];
    bones.push_back(b);
  }
  return bones;
}

// A quad of half-width w from z0 to z1 at depth y, every point on one bone.
psk::Mesh knightPart(size_t boneCount, float w, float y, float z0, float z1, int32_t bone, const char* material) {
  psk::Mesh m;
  m.points = {w, y, z0, -w, y, z0, w, y, z1, -w, y, z1};
  for (uint32_t i = 0; i < 4; ++i) m.wedges.push_back({i, i % 2 ? 0.0f : 1.0f, i < 2 ? 0.0f : 1.0f, 0});
  psk::Face a, b;
  a.wedge[0] = 0;
  a.wedge[1] = 1;
  a.wedge[2] = 3;
  b.wedge[0] = 0;
  b.wedge[1] = 3;
  b.wedge[2] = 2;
  m.faces = {a, b};
  m.materials = {{material, 0, 0}};
  m.bones = knightBones(boneCount);
  for (int32_t p = 0; p < 4; ++p) m.weights.push_back({1, p, bone});
  return m;
}

psk::Animation knightNod() {
  psk::Animation a;
  a.bones = knightBones(4);
  psk::Sequence s;
  s.name = "Nod";
  s.fps = 8;
  s.frames = 4;
  for (int f = 0; f < 4; ++f) {
    for (size_t b = 0; b < 4; ++b) {
      psk::Key k;
      k.position[2] = a.bones[b].position[2];
      if (b == 1 || b == 3) {
        double h = 20.0 * f * 3.14159265358979323846 / 360.0;
        k.rotation[0] = float(-std::sin(h));  // stored conjugated (non-root bone)
        k.rotation[3] = float(std::cos(h));
      }
      s.keys.push_back(k);
    }
  }
  a.sequences.push_back(s);
  return a;
}

bool write(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (!writeFile(path, bytes)) {
    std::fprintf(stderr, "write_psk_fixtures: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_psk_fixtures <outdir>\n");
    return 2;
  }
  const std::string dir = std::string(argv[1]) + "/";
  bool ok = true;

  psk::Mesh two = twoBoneMesh();
  std::vector<uint8_t> twoBytes = psk::writePsk(two);
  ok &= write(dir + "two_bone.psk", twoBytes);
  ok &= write(dir + "two_bone.psa", psk::writePsa(twoBoneAnim(two.bones, "Bend")));

  ok &= write(dir + "static.pskx", psk::writePsk(cube()));

  // two_bone_cap.psk: a separate part (a cap on top of the strip) whose only bone is "Bone1":
  // dropped with two_bone.psk it must play on the strip's skeleton.
  psk::Mesh cap;
  cap.points = {2, 0, 20, -2, 0, 20, 2, 0, 24, -2, 0, 24};
  for (uint32_t i = 0; i < 4; ++i) cap.wedges.push_back({i, i % 2 ? 0.0f : 1.0f, i < 2 ? 0.0f : 1.0f, 0});
  psk::Face c0, c1;
  c0.wedge[0] = 0;
  c0.wedge[1] = 1;
  c0.wedge[2] = 3;
  c1.wedge[0] = 0;
  c1.wedge[1] = 3;
  c1.wedge[2] = 2;
  cap.faces = {c0, c1};
  cap.materials = {{"Cap", 0, 0}};
  psk::Bone capBone = two.bones[1];
  capBone.parent = 0;
  capBone.position[2] = 10;
  cap.bones = {capBone};
  cap.weights = {{1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {1, 3, 0}};
  ok &= write(dir + "two_bone_cap.psk", psk::writePsk(cap));

  ok &= write(dir + "knight_head.psk", psk::writePsk(knightPart(4, 2, 0, 18, 24, 3, "Face")));
  ok &= write(dir + "knight_body.psk", psk::writePsk(knightPart(3, 3, 0, 0, 15, 1, "Tunic")));
  ok &= write(dir + "knight_armour.psk", psk::writePsk(knightPart(2, 3.5f, -0.5f, 6, 12, 1, "Plate")));
  ok &= write(dir + "knight.psa", psk::writePsa(knightNod()));

  psk::Mesh morph = twoBoneMesh();
  psk::MorphTarget stretch;
  stretch.name = "Stretch";
  for (int32_t p : {4, 5}) {
    psk::MorphDelta d;
    d.position[1] = 2;
    d.position[2] = 5;
    d.point = p;
    stretch.deltas.push_back(d);
  }
  morph.morphs = {stretch};
  ok &= write(dir + "morph.psk", psk::writePsk(morph));

  psk::Mesh hostile = twoBoneMesh();
  hostile.bones[0].name = "<img src=x onerror=alert(1)>";
  hostile.bones[1].name = "\"><script>alert(2)</script>";
  hostile.materials[0].name = "<svg onload=alert(3)>&amp;";
  ok &= write(dir + "hostile_names.psk", psk::writePsk(hostile));
  ok &= write(dir + "hostile_names.psa", psk::writePsa(twoBoneAnim(hostile.bones, "<iframe src=javascript:alert(4)>")));

  // Cut in the middle of FACE0000: find its header and keep half of its records.
  size_t cut = twoBytes.size() / 2;
  for (size_t pos = 0; pos + 32 <= twoBytes.size(); pos += 1) {
    if (std::string(reinterpret_cast<const char*>(&twoBytes[pos]), 8) == "FACE0000") {
      cut = pos + 32 + 2 * 12 + 5;
      break;
    }
  }
  ok &= write(dir + "truncated.psk", std::vector<uint8_t>(twoBytes.begin(), twoBytes.begin() + long(cut)));
  return ok ? 0 : 1;
}
