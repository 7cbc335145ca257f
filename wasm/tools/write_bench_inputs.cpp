// write_bench_inputs <outdir>: large, deterministic inputs for `npm run bench`, written with the
// project's own writers (no game data). Every value is a pure function of its indices.
//
//   bench.psk        PSK (FACE3200): a 1001 x 501 point grid rolled into a tube, 2 wedges per point
//                    (UV seam on alternate quad columns) = 1,003,002 wedges, 1,000,000 faces in 4
//                    materials, one smoothing group (normals computed), 250 bones in 10 chains of
//                    25, 4 influences per point (2,006,004 RAWWEIGHTS records), no VTXNORMS.
//   bench.psa        matching PSA: the same 250 bones, 3 sequences (60, 45, 30 frames).
//   bench_big.psa    PSA of 250 bones x 6,600 frames (12 sequences of 550) = 1.65M keys, ~52.8 MB.
//   bench_d.3d, bench_a.3d, bench.uc
//                    UE1: 2,048 vertices (a 64 x 32 grid), 3,906 triangles, 800 frames packed
//                    11:11:10 (~6.5 MB), 4 sequences in the .uc.
//   bench.pmd        0 A.D. PMD v4: 200,000 vertices, 100 bones, 4 influences per vertex; the 16-bit
//                    faces (130,050 of them) cover the first 65,536 vertices (a 256 x 256 grid).
//   bench_pssa.psa   0 A.D. PSSA: 100 bones x 2,000 frames.
//   bench.psg        Skate 3 PSG: one skinned mesh of 500,000 vertices (1000 x 500 grid; F32 xyz,
//                    CMP normal, half uv, UB weights, UB256 palette slots), 32-bit indices
//                    (998,002 triangles) in one island, 64 bones.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "writers/psg_writer.h"
#include "writers/psk_writer.h"
#include "writers/ue1_writer.h"
#include "writers/writer_bytes.h"
#include "writers/zeroad_writer.h"

using namespace rs;

namespace {

constexpr double kPi = 3.14159265358979323846;

bool put(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes) {
  std::string path = dir + "/" + name;
  if (!writeFile(path, bytes)) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("%s (%zu bytes)\n", path.c_str(), bytes.size());
  return true;
}

// A unit quaternion turning `deg` degrees about a fixed axis picked by `seed`.
void turn(int seed, double deg, float q[4]) {
  double ax = std::sin(seed * 1.3), ay = std::cos(seed * 0.7), az = std::sin(seed * 2.1 + 0.5);
  double len = std::sqrt(ax * ax + ay * ay + az * az);
  double h = deg * kPi / 360.0, s = std::sin(h) / len;
  q[0] = float(ax * s);
  q[1] = float(ay * s);
  q[2] = float(az * s);
  q[3] = float(std::cos(h));
}

constexpr int kPskBones = 250;

std::vector<psk::Bone> pskBones() {
  std::vector<psk::Bone> bones(kPskBones);
  for (int i = 0; i < kPskBones; ++i) {
    psk::Bone& b = bones[size_t(i)];
    b.name = "bone_" + std::to_string(i);
    // Root 0; 10 chains of 25 bones hanging off it (bone 1 + 25c starts chain c).
    b.parent = i == 0 ? 0 : ((i - 1) % 25 == 0 ? 0 : i - 1);
    turn(i, 10.0 + (i % 7), b.rotation);
    b.position[0] = i == 0 ? 0.0f : 4.0f;
    b.position[2] = i == 0 ? 0.0f : 1.0f;
  }
  for (int i = 1; i < kPskBones; ++i) bones[size_t(bones[size_t(i)].parent)].numChildren++;
  return bones;
}

psk::Sequence pskSequence(const std::string& name, uint32_t frames, int phase) {
  psk::Sequence s;
  s.name = name;
  s.fps = 30;
  s.frames = frames;
  s.keys.resize(size_t(frames) * kPskBones);
  for (uint32_t f = 0; f < frames; ++f)
    for (int b = 0; b < kPskBones; ++b) {
      psk::Key& k = s.keys[size_t(f) * kPskBones + size_t(b)];
      turn(b + phase, 20.0 * std::sin((f + phase) * 0.1 + b * 0.05), k.rotation);
      k.position[0] = b == 0 ? 0.0f : 4.0f;
      k.position[1] = float(0.1 * std::sin(f * 0.2 + b));
      k.position[2] = b == 0 ? float(std::sin(f * 0.05)) : 1.0f;
      k.time = 1;
    }
  return s;
}

bool writePskInputs(const std::string& dir) {
  const uint32_t cols = 1001, rows = 501;  // points; quads 1000 x 500 -> 1,000,000 faces
  psk::Mesh m;
  m.points.resize(size_t(cols) * rows * 3);
  m.wedges.resize(size_t(cols) * rows * 2);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const uint32_t p = r * cols + c;
      const double a = 2 * kPi * c / (cols - 1);
      m.points[p * 3] = float(40.0 * std::cos(a));
      m.points[p * 3 + 1] = float(40.0 * std::sin(a));
      m.points[p * 3 + 2] = float(r * 0.4);
      for (uint32_t k = 0; k < 2; ++k) {
        psk::Wedge& w = m.wedges[size_t(p) * 2 + k];
        w.point = p;
        w.u = float(c) / (cols - 1) + (k ? 0.5f : 0.0f);
        w.v = float(r) / (rows - 1);
        w.material = uint8_t(r * 4 / rows);
      }
    }
  m.faces.reserve(size_t(cols - 1) * (rows - 1) * 2);
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t c = 0; c + 1 < cols; ++c) {
      const uint32_t k = c & 1;  // the wedge of each corner point this quad uses
      auto w = [&](uint32_t cc, uint32_t rr) { return (rr * cols + cc) * 2 + k; };
      const uint8_t mat = uint8_t(r * 4 / rows);
      // File frame: clockwise faces.
      psk::Face f1, f2;
      f1.wedge[0] = w(c, r), f1.wedge[1] = w(c, r + 1), f1.wedge[2] = w(c + 1, r + 1);
      f2.wedge[0] = w(c, r), f2.wedge[1] = w(c + 1, r + 1), f2.wedge[2] = w(c + 1, r);
      f1.material = f2.material = mat;
      m.faces.push_back(f1);
      m.faces.push_back(f2);
    }
  for (int i = 0; i < 4; ++i) m.materials.push_back({"bench_mat_" + std::to_string(i), 0, i});
  m.bones = pskBones();
  // 4 influences per point: the chain bone for its row band and three neighbours.
  const uint32_t P = cols * rows;
  m.weights.reserve(size_t(P) * 4);
  const float ws[4] = {0.4f, 0.3f, 0.2f, 0.1f};
  for (uint32_t p = 0; p < P; ++p) {
    const uint32_t r = p / cols, c = p % cols;
    const int chain = int(c * 10 / cols), link = int(r * 24 / rows);
    for (int k = 0; k < 4; ++k) {
      int bone = 1 + chain * 25 + (link + k) % 25;
      m.weights.push_back({ws[k], int32_t(p), int32_t(bone)});
    }
  }
  psk::MeshOptions opt;
  opt.face32 = true;
  bool ok = put(dir, "bench.psk", writePsk(m, opt));

  psk::Animation anim;
  anim.bones = pskBones();
  anim.sequences.push_back(pskSequence("Idle", 60, 0));
  anim.sequences.push_back(pskSequence("Walk", 45, 11));
  anim.sequences.push_back(pskSequence("Wave", 30, 23));
  ok &= put(dir, "bench.psa", writePsa(anim));

  psk::Animation big;
  big.bones = pskBones();
  for (int s = 0; s < 12; ++s) big.sequences.push_back(pskSequence("Seq" + std::to_string(s), 550, s * 7));
  ok &= put(dir, "bench_big.psa", writePsa(big));
  return ok;
}

bool writeUe1Inputs(const std::string& dir) {
  const int cols = 64, rows = 32, frames = 800;
  const uint16_t nv = uint16_t(cols * rows);
  std::vector<Ue1WriteTriangle> tris;
  for (int r = 0; r + 1 < rows; ++r)
    for (int c = 0; c + 1 < cols; ++c) {
      const int corner[4][2] = {{c, r}, {c + 1, r}, {c + 1, r + 1}, {c, r + 1}};
      const int quad[2][3] = {{0, 1, 2}, {0, 2, 3}};
      for (const auto& q : quad) {
        Ue1WriteTriangle t;
        t.textureNum = uint8_t(c * 2 / cols);
        for (int k = 0; k < 3; ++k) {
          const int cc = corner[q[k]][0], rr = corner[q[k]][1];
          t.v[k] = uint16_t(rr * cols + cc);
          t.uv[k][0] = uint8_t(cc * 255 / (cols - 1));
          t.uv[k][1] = uint8_t(255 - rr * 255 / (rows - 1));
        }
        tris.push_back(t);
      }
    }
  std::vector<int32_t> xyz;
  xyz.reserve(size_t(frames) * nv * 3);
  for (int f = 0; f < frames; ++f)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        xyz.push_back(int32_t(std::lround(200.0 * std::sin(f * 0.05 + c * 0.2) * c / cols)));
        xyz.push_back(c * 30 - 960);
        xyz.push_back(r * 30 - 480);
      }
  bool ok = put(dir, "bench_d.3d", writeUe1Data(tris, nv));
  ok &= put(dir, "bench_a.3d", writeUe1Anim(xyz, nv, Ue1Encoding::Packed));
  UcBuilder uc("Bench", "Decoration");
  uc.meshImport("bench", "Models\\bench_a.3d", "Models\\bench_d.3d")
      .origin("bench", 0, 0, 0)
      .sequence("bench", "All", 0, frames, 30)
      .sequence("bench", "Still", 0, 1, 30)
      .sequence("bench", "Wave", 1, 399, 30)
      .sequence("bench", "Run", 400, 400, 30)
      .meshmapNew("bench", "bench")
      .scale("bench", 0.1, 0.1, 0.1);
  std::string text = uc.str();
  ok &= put(dir, "bench.uc", std::vector<uint8_t>(text.begin(), text.end()));
  return ok;
}

bool writeZeroadInputs(const std::string& dir) {
  const uint32_t nv = 200000, bones = 100, grid = 256;
  PmdDesc d;
  d.version = 4;
  d.positions.resize(size_t(nv) * 3);
  d.normals.resize(size_t(nv) * 3);
  d.uvs.resize(size_t(nv) * 2);
  d.blendBones.resize(size_t(nv) * 4);
  d.blendWeights.resize(size_t(nv) * 4);
  for (uint32_t v = 0; v < nv; ++v) {
    const uint32_t c = v % grid, r = v / grid;
    d.positions[v * 3] = float(c) * 0.1f;
    d.positions[v * 3 + 1] = float(r) * 0.1f;
    d.positions[v * 3 + 2] = float(0.5 * std::sin(c * 0.1) * std::cos(r * 0.1));
    d.normals[v * 3 + 2] = 1.0f;
    d.uvs[v * 2] = float(c) / grid;
    d.uvs[v * 2 + 1] = float(r % grid) / grid;
    const float ws[4] = {0.5f, 0.25f, 0.15f, 0.1f};
    for (uint32_t k = 0; k < 4; ++k) {
      d.blendBones[v * 4 + k] = uint8_t((r + c / 32 + k * 7) % bones);
      d.blendWeights[v * 4 + k] = ws[k];
    }
  }
  for (uint32_t r = 0; r + 1 < grid; ++r)
    for (uint32_t c = 0; c + 1 < grid; ++c) {
      const uint16_t a = uint16_t(r * grid + c), b = uint16_t(a + 1), cc = uint16_t(a + grid + 1),
                     dd = uint16_t(a + grid);
      d.indices.insert(d.indices.end(), {a, b, cc, a, cc, dd});
    }
  d.bones.resize(bones);
  for (uint32_t b = 0; b < bones; ++b) {
    d.bones[b].translation[0] = float(b % 10);
    const int row = int(b / 10);
    d.bones[b].translation[1] = float(row);
    turn(int(b), 5.0 * (b % 5), d.bones[b].rotation);
  }
  bool ok = put(dir, "bench.pmd", writePmd(d));

  PssaDesc a;
  a.name = "bench";
  a.bones = bones;
  a.frames = 2000;
  a.keys.resize(size_t(a.bones) * a.frames);
  for (uint32_t f = 0; f < a.frames; ++f)
    for (uint32_t b = 0; b < bones; ++b) {
      ZeroadBoneState& k = a.keys[size_t(f) * bones + b];
      k.translation[0] = float(b % 10);
      const int row = int(b / 10);
      k.translation[1] = float(row) + float(0.1 * std::sin(f * 0.1));
      turn(int(b), 30.0 * std::sin(f * 0.05 + b), k.rotation);
    }
  ok &= put(dir, "bench_pssa.psa", writePssa(a));
  return ok;
}

bool writePsgInputs(const std::string& dir) {
  const uint32_t cols = 1000, rows = 500, nb = 64;
  PsgModelIn m;
  m.name = "bench";
  for (uint32_t b = 0; b < nb; ++b) m.bones.push_back(psgBone("BONE" + std::to_string(b), 0, -float(b) * 0.1f, 0));
  m.materials = {PsgMaterialIn{{{"diffuse", 0x1122334455667788ull, ""}}}};
  PsgMeshIn mesh;
  mesh.layout = {{psgv::F, 3, psgv::XYZ},
                 {psgv::CMP, 1, psgv::NORMAL},
                 {psgv::SF, 2, psgv::TEX0},
                 {psgv::UB, 4, psgv::BLENDWEIGHT},
                 {psgv::UB256, 4, psgv::BLENDINDICES}};
  for (uint32_t b = 0; b < nb; ++b) mesh.palette.push_back(uint16_t((b * 37) % nb));
  const size_t nv = size_t(cols) * rows;
  mesh.positions.resize(nv * 3);
  mesh.normals.resize(nv * 3);
  mesh.uvs.resize(1);
  mesh.uvs[0].resize(nv * 2);
  mesh.skinSlots.resize(nv * 4);
  mesh.skinWeights.resize(nv * 4);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const size_t v = size_t(r) * cols + c;
      const double a = 2 * kPi * c / cols;
      mesh.positions[v * 3] = float(std::cos(a));
      mesh.positions[v * 3 + 1] = float(r) * 0.01f;
      mesh.positions[v * 3 + 2] = float(std::sin(a));
      mesh.normals[v * 3] = float(std::cos(a));
      mesh.normals[v * 3 + 2] = float(std::sin(a));
      mesh.uvs[0][v * 2] = float(c) / cols;
      mesh.uvs[0][v * 2 + 1] = float(r) / rows;
      const uint32_t slot = r * nb / rows;
      const float ws[4] = {128 / 255.0f, 64 / 255.0f, 40 / 255.0f, 23 / 255.0f};
      for (uint32_t k = 0; k < 4; ++k) {
        mesh.skinSlots[v * 4 + k] = uint8_t((slot + k) % nb);
        mesh.skinWeights[v * 4 + k] = ws[k];
      }
    }
  mesh.indices.reserve(size_t(cols - 1) * (rows - 1) * 6);
  for (uint32_t r = 0; r + 1 < rows; ++r)
    for (uint32_t c = 0; c + 1 < cols; ++c) {
      const uint32_t a = r * cols + c, b = a + 1, cc = a + cols + 1, dd = a + cols;
      mesh.indices.insert(mesh.indices.end(), {a, cc, b, a, dd, cc});
    }
  mesh.indexSize = 4;
  m.meshes = {mesh};
  return put(dir, "bench.psg", writePsgModel(m));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_bench_inputs <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = writePskInputs(dir);
  ok &= writeUe1Inputs(dir);
  ok &= writeZeroadInputs(dir);
  ok &= writePsgInputs(dir);
  return ok ? 0 : 1;
}
