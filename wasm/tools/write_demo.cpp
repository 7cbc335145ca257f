// write_demo <outdir>: writes <outdir>/rigscope-demo.psk and <outdir>/rigscope-demo.psa — our own
// art, no game data. A 19-bone humanoid (~182 units tall, Z up, facing file -Y like an ActorX
// export) built from tapered, elliptical tubes per bone with 2-bone blends at the joints, two
// materials ("Body", "Head"), vertex colours, and three sequences: "Idle" (2 s breathing/sway),
// "Walk" (1 s loop) and "Wave" (1.5 s).
//
// Every bone's rest frame points its local +X along the bone (like 3ds Max bones), so almost all
// rest rotations are non-identity and the ActorX quaternion rule (root as stored, others stored
// conjugated) is exercised by the demo itself.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

namespace {

constexpr double kPi = 3.14159265358979323846;

struct V3 {
  double x, y, z;
};
V3 operator+(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V3 operator-(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V3 operator*(V3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 cross(V3 a, V3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
V3 normalize(V3 a) { return a * (1.0 / std::sqrt(dot(a, a))); }

struct Q {
  double x = 0, y = 0, z = 0, w = 1;
};
Q mul(Q a, Q b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
Q conj(Q q) { return {-q.x, -q.y, -q.z, q.w}; }
Q axisAngle(V3 axis, double deg) {
  double h = deg * kPi / 360.0, s = std::sin(h);
  axis = normalize(axis);
  return {axis.x * s, axis.y * s, axis.z * s, std::cos(h)};
}
V3 rotate(Q q, V3 v) {
  V3 u{q.x, q.y, q.z};
  V3 t = cross(u, v) * 2.0;
  return v + t * q.w + cross(u, t);
}
// Rotation whose columns are the orthonormal axes (x, y, z).
Q fromAxes(V3 x, V3 y, V3 z) {
  double m00 = x.x, m10 = x.y, m20 = x.z, m01 = y.x, m11 = y.y, m21 = y.z, m02 = z.x, m12 = z.y, m22 = z.z;
  double tr = m00 + m11 + m22;
  Q q;
  if (tr > 0) {
    double s = std::sqrt(tr + 1.0) * 2;
    q = {(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s};
  } else if (m00 > m11 && m00 > m22) {
    double s = std::sqrt(1.0 + m00 - m11 - m22) * 2;
    q = {0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
  } else if (m11 > m22) {
    double s = std::sqrt(1.0 + m11 - m00 - m22) * 2;
    q = {(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s};
  } else {
    double s = std::sqrt(1.0 + m22 - m00 - m11) * 2;
    q = {(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s};
  }
  return q;
}

struct BoneDef {
  std::string name;
  int parent;
  V3 head, tail;
  double spanA, spanB;  // geometry along the bone, units from the head
  double r0, r1;        // radius at spanA / spanB
  double depth, width;  // ellipse factors (front-back, left-right)
  bool sphere;          // head: rounded profile
  int material;
  uint8_t color[3];
};

std::vector<BoneDef> skeletonDefs() {
  std::vector<BoneDef> b = {
      {"pelvis", -1, {0, 0, 100}, {0, 0, 110}, -12, 10, 12, 12, 0.7, 1.2, false, 0, {70, 90, 160}},
      {"spine", 0, {0, 0, 110}, {0, 0, 128}, 0, 18, 11, 12.5, 0.7, 1.1, false, 0, {200, 70, 60}},
      {"chest", 1, {0, 0, 128}, {0, 0, 150}, 0, 22, 13, 11, 0.72, 1.25, false, 0, {210, 80, 70}},
      {"neck", 2, {0, 0, 150}, {0, 0, 158}, -1, 9, 4.5, 4, 1, 1, false, 1, {230, 190, 160}},
      {"head", 3, {0, 0, 158}, {0, 0, 182}, 0, 24, 10, 10, 1.05, 0.9, true, 1, {235, 200, 170}},
  };
  // Left side (+X: the character faces -Y), then mirrored.
  std::vector<BoneDef> left = {
      {"clavicle_l", 2, {3, 0, 147}, {17, 0, 146}, 0, 14, 4.5, 4.5, 1, 1, false, 0, {210, 80, 70}},
      {"upperarm_l", -1, {17, 0, 146}, {22, 0, 118}, -2, 28, 4.8, 3.8, 1, 1, false, 0, {210, 80, 70}},
      {"forearm_l", -1, {22, 0, 118}, {26, 0, 93}, 0, 25, 3.8, 2.8, 1, 1, false, 1, {230, 190, 160}},
      {"hand_l", -1, {26, 0, 93}, {27, 0, 79}, 0, 14, 3.2, 2.2, 0.6, 1.2, false, 1, {230, 190, 160}},
  };
  std::vector<BoneDef> leftLeg = {
      {"thigh_l", 0, {9, 0, 95}, {10, 0, 52}, -3, 43, 7.5, 5, 1, 1, false, 0, {50, 60, 120}},
      {"calf_l", -1, {10, 0, 52}, {10, 0, 9}, 0, 43, 5, 3.5, 1, 1, false, 0, {50, 60, 120}},
      {"foot_l", -1, {10, 0, 9}, {10, -16, 2}, -3, 17, 3.8, 3, 1, 1.1, false, 0, {60, 40, 30}},
  };
  auto addChain = [&](const std::vector<BoneDef>& chain) {
    for (int mirror = 0; mirror < 2; ++mirror) {
      int prev = -1;
      for (BoneDef d : chain) {
        if (mirror) {
          d.name.back() = 'r';
          d.head.x = -d.head.x;
          d.tail.x = -d.tail.x;
        }
        if (d.parent < 0) d.parent = prev;
        prev = int(b.size());
        b.push_back(d);
      }
    }
  };
  addChain(left);
  addChain(leftLeg);
  return b;
}

struct Rest {
  std::vector<Q> world;      // model-space rest rotation
  std::vector<Q> local;      // local rest rotation
  std::vector<V3> localPos;  // local rest translation
};

Rest restPose(const std::vector<BoneDef>& defs) {
  Rest r;
  for (size_t i = 0; i < defs.size(); ++i) {
    V3 x = normalize(defs[i].tail - defs[i].head);
    V3 ref{0, -1, 0};  // forward
    if (std::fabs(dot(x, ref)) > 0.9) ref = {0, 0, 1};
    V3 y = normalize(ref - x * dot(ref, x));
    V3 z = cross(x, y);
    Q w = fromAxes(x, y, z);
    r.world.push_back(w);
    if (defs[i].parent < 0) {
      r.local.push_back(w);
      r.localPos.push_back(defs[i].head);
    } else {
      Q pw = r.world[size_t(defs[i].parent)];
      r.local.push_back(mul(conj(pw), w));
      r.localPos.push_back(rotate(conj(pw), defs[i].head - defs[size_t(defs[i].parent)].head));
    }
  }
  return r;
}

// Stored ActorX rotation: root as is, every other bone conjugated.
void storeRotation(Q q, bool root, float* out) {
  if (!root) q = conj(q);
  out[0] = float(q.x);
  out[1] = float(q.y);
  out[2] = float(q.z);
  out[3] = float(q.w);
}

void buildMesh(const std::vector<BoneDef>& defs, const Rest& rest, rs::psk::Mesh& m) {
  const int sides = 12, rings = 8;
  for (size_t bi = 0; bi < defs.size(); ++bi) {
    const BoneDef& d = defs[bi];
    V3 x = rotate(rest.world[bi], {1, 0, 0});
    V3 y = rotate(rest.world[bi], {0, 1, 0});
    V3 z = rotate(rest.world[bi], {0, 0, 1});
    // Points: rings x sides, then two cap centres.
    const uint32_t firstPoint = uint32_t(m.points.size() / 3);
    std::vector<V3> ringCentre(rings);
    std::vector<double> ringAlong(rings);
    for (int r = 0; r < rings; ++r) {
      double t = double(r) / (rings - 1);
      double along = d.spanA + (d.spanB - d.spanA) * t;
      double radius = d.r0 + (d.r1 - d.r0) * t;
      if (d.sphere) radius = d.r0 * std::sqrt(std::fmax(0.06, 1.0 - (2 * t - 1) * (2 * t - 1)));
      ringCentre[size_t(r)] = d.head + x * along;
      ringAlong[size_t(r)] = along;
      for (int s = 0; s < sides; ++s) {
        double a = 2 * kPi * s / sides;
        V3 p = ringCentre[size_t(r)] + y * (radius * d.depth * std::cos(a)) + z * (radius * d.width * std::sin(a));
        m.points.insert(m.points.end(), {float(p.x), float(p.y), float(p.z)});
      }
    }
    V3 capA = ringCentre[0], capB = ringCentre[rings - 1];
    m.points.insert(m.points.end(), {float(capA.x), float(capA.y), float(capA.z)});
    m.points.insert(m.points.end(), {float(capB.x), float(capB.y), float(capB.z)});
    auto pointOf = [&](int r, int s) { return firstPoint + uint32_t(r * sides + (s % sides)); };
    const uint32_t capPointA = firstPoint + uint32_t(rings * sides), capPointB = capPointA + 1;

    // Weights: blend toward the parent near the joint (2-bone blend), else rigid.
    const double blend = std::fmin(6.0, 0.3 * (d.spanB - d.spanA));
    for (int r = 0; r <= rings; ++r) {
      double along = r < rings ? ringAlong[size_t(r)] : ringAlong[0];
      double wParent = 0;
      if (d.parent >= 0 && along < blend) wParent = std::fmin(0.5, 0.5 * (1.0 - along / blend));
      int count = r < rings ? sides : 1;
      for (int s = 0; s < count; ++s) {
        int32_t pt = int32_t(r < rings ? pointOf(r, s) : capPointA);
        if (wParent > 0) {
          m.weights.push_back({float(1 - wParent), pt, int32_t(bi)});
          m.weights.push_back({float(wParent), pt, int32_t(d.parent)});
        } else {
          m.weights.push_back({1.0f, pt, int32_t(bi)});
        }
      }
    }
    m.weights.push_back({1.0f, int32_t(capPointB), int32_t(bi)});

    // Wedges: side wedges with a seam column, separate cap wedges (own smoothing group).
    const uint32_t firstWedge = uint32_t(m.wedges.size());
    for (int r = 0; r < rings; ++r)
      for (int s = 0; s <= sides; ++s)
        m.wedges.push_back({pointOf(r, s), float(s) / sides, float(r) / (rings - 1), uint8_t(d.material)});
    auto sideWedge = [&](int r, int s) { return firstWedge + uint32_t(r * (sides + 1) + s); };
    const uint32_t capWedgeStart = uint32_t(m.wedges.size());
    for (int end = 0; end < 2; ++end) {
      int r = end ? rings - 1 : 0;
      for (int s = 0; s < sides; ++s) {
        double a = 2 * kPi * s / sides;
        m.wedges.push_back(
            {pointOf(r, s), float(0.5 + 0.5 * std::cos(a)), float(0.5 + 0.5 * std::sin(a)), uint8_t(d.material)});
      }
      m.wedges.push_back({end ? capPointB : capPointA, 0.5f, 0.5f, uint8_t(d.material)});
    }
    auto capWedge = [&](int end, int s) { return capWedgeStart + uint32_t(end * (sides + 1) + (s % sides)); };
    auto capCentreWedge = [&](int end) { return capWedgeStart + uint32_t(end * (sides + 1) + sides); };

    // Faces, oriented clockwise seen from outside in the file frame (as ActorX stores them).
    auto pos = [&](uint32_t wedge) {
      uint32_t p = m.wedges[wedge].point;
      return V3{m.points[p * 3], m.points[p * 3 + 1], m.points[p * 3 + 2]};
    };
    auto addFace = [&](uint32_t a, uint32_t b, uint32_t c, V3 outward, uint32_t sg) {
      V3 n = cross(pos(b) - pos(a), pos(c) - pos(a));
      rs::psk::Face f;
      f.wedge[0] = a;
      f.wedge[1] = b;
      f.wedge[2] = c;
      if (dot(n, outward) > 0) std::swap(f.wedge[1], f.wedge[2]);
      f.material = uint8_t(d.material);
      f.smoothing = sg;
      m.faces.push_back(f);
    };
    for (int r = 0; r + 1 < rings; ++r)
      for (int s = 0; s < sides; ++s) {
        uint32_t a = sideWedge(r, s), b = sideWedge(r, s + 1), c = sideWedge(r + 1, s + 1), e = sideWedge(r + 1, s);
        V3 mid = (pos(a) + pos(c)) * 0.5;
        V3 axisPoint = ringCentre[size_t(r)] + x * dot(mid - ringCentre[size_t(r)], x);
        V3 out = mid - axisPoint;
        addFace(a, b, c, out, 1);
        addFace(a, c, e, out, 1);
      }
    for (int s = 0; s < sides; ++s) {
      addFace(capCentreWedge(0), capWedge(0, s), capWedge(0, s + 1), x * -1.0, 2);
      addFace(capCentreWedge(1), capWedge(1, s), capWedge(1, s + 1), x, 2);
    }
  }
  // Vertex colours per wedge from the bone's tint (RGBA, as UE Viewer/CUE4Parse write them).
  m.colors.reserve(m.wedges.size() * 4);
  for (size_t bi = 0, w = 0; bi < defs.size(); ++bi) {
    const size_t perBone = size_t(8 * 13 + 2 * 13);
    for (size_t k = 0; k < perBone && w < m.wedges.size(); ++k, ++w)
      m.colors.insert(m.colors.end(), {defs[bi].color[0], defs[bi].color[1], defs[bi].color[2], 255});
  }
}

// Per-bone model-axis deltas for one frame (degrees about world axes) and root offset.
struct PoseDelta {
  std::vector<Q> d;
  V3 rootOffset{0, 0, 0};
};

int boneIndex(const std::vector<BoneDef>& defs, const char* name) {
  for (size_t i = 0; i < defs.size(); ++i)
    if (defs[i].name == name) return int(i);
  return 0;
}

rs::psk::Sequence makeSequence(const std::vector<BoneDef>& defs, const Rest& rest, const char* name, float fps,
                               uint32_t frames, void (*pose)(const std::vector<BoneDef>&, double, PoseDelta&)) {
  rs::psk::Sequence seq;
  seq.name = name;
  seq.fps = fps;
  seq.frames = frames;
  for (uint32_t f = 0; f < frames; ++f) {
    PoseDelta pd;
    pd.d.assign(defs.size(), Q());
    pose(defs, double(f) / frames, pd);
    for (size_t b = 0; b < defs.size(); ++b) {
      // Delta D about world axes at the joint, carried in the bone's rest frame:
      // local' = local * conj(W) * D * W.
      Q local = mul(rest.local[b], mul(conj(rest.world[b]), mul(pd.d[b], rest.world[b])));
      V3 p = rest.localPos[b];
      if (b == 0) p = p + pd.rootOffset;
      rs::psk::Key k;
      k.position[0] = float(p.x);
      k.position[1] = float(p.y);
      k.position[2] = float(p.z);
      storeRotation(local, b == 0, k.rotation);
      k.time = 1;
      seq.keys.push_back(k);
    }
  }
  return seq;
}

const V3 kX{1, 0, 0}, kY{0, 1, 0}, kZ{0, 0, 1};

void walkPose(const std::vector<BoneDef>& defs, double t, PoseDelta& p) {
  double ph = 2 * kPi * t, s = std::sin(ph), c = std::cos(ph);
  auto set = [&](const char* n, Q q) { p.d[size_t(boneIndex(defs, n))] = q; };
  // Rotation about +X by a positive angle moves a downward limb backward (+Y); forward is negative.
  set("thigh_l", axisAngle(kX, -28 * s));
  set("thigh_r", axisAngle(kX, 28 * s));
  set("calf_l", axisAngle(kX, 5 + 45 * std::fmax(0.0, c)));
  set("calf_r", axisAngle(kX, 5 + 45 * std::fmax(0.0, -c)));
  set("foot_l", axisAngle(kX, -12 * s));
  set("foot_r", axisAngle(kX, 12 * s));
  set("upperarm_l", axisAngle(kX, 22 * s));
  set("upperarm_r", axisAngle(kX, -22 * s));
  set("forearm_l", axisAngle(kX, -18 - 12 * std::fmax(0.0, -s)));
  set("forearm_r", axisAngle(kX, -18 - 12 * std::fmax(0.0, s)));
  set("pelvis", axisAngle(kZ, 6 * s));
  set("chest", axisAngle(kZ, -9 * s));
  set("spine", axisAngle(kX, 4));
  set("head", axisAngle(kZ, 3 * s));
  p.rootOffset = {0, 0, -2.5 + 2.5 * std::cos(2 * ph)};
}

void idlePose(const std::vector<BoneDef>& defs, double t, PoseDelta& p) {
  double ph = 2 * kPi * t;
  auto set = [&](const char* n, Q q) { p.d[size_t(boneIndex(defs, n))] = q; };
  double breath = std::sin(2 * ph);  // two breaths in the 2 s clip
  set("chest", axisAngle(kX, 1.5 * breath));
  set("spine", axisAngle(kY, 2 * std::sin(ph)));
  set("neck", axisAngle(kX, -1.0 * breath));
  set("head", axisAngle(kZ, 10 * std::sin(ph)));
  set("clavicle_l", axisAngle(kY, -1.5 * breath));
  set("clavicle_r", axisAngle(kY, 1.5 * breath));
  set("upperarm_l", axisAngle(kX, 3 * std::sin(ph + 0.5)));
  set("upperarm_r", axisAngle(kX, 3 * std::sin(ph + 1.5)));
  set("forearm_l", axisAngle(kX, -8));
  set("forearm_r", axisAngle(kX, -8));
  p.rootOffset = {0.8 * std::sin(ph), 0, 0.4 * breath};
}

void wavePose(const std::vector<BoneDef>& defs, double t, PoseDelta& p) {
  auto set = [&](const char* n, Q q) { p.d[size_t(boneIndex(defs, n))] = q; };
  // Raise (ease in over the first 20%), wave, lower (last 20%).
  double up = t < 0.2 ? t / 0.2 : (t > 0.8 ? (1 - t) / 0.2 : 1.0);
  up = up * up * (3 - 2 * up);
  // The right arm hangs on -X; rotating about +Y by a positive angle swings it out to -X and up.
  set("clavicle_r", axisAngle(kY, 15 * up));
  set("upperarm_r", axisAngle(kY, 135 * up));
  set("forearm_r", axisAngle(kY, up * (25 + 25 * std::sin(2 * kPi * 3 * t))));
  set("hand_r", axisAngle(kY, up * 10 * std::sin(2 * kPi * 3 * t + 0.6)));
  set("head", axisAngle(kZ, -12 * up));
  set("chest", axisAngle(kY, 4 * up));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_demo <outdir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::vector<BoneDef> defs = skeletonDefs();
  Rest rest = restPose(defs);

  rs::psk::Mesh mesh;
  mesh.materials = {{"Body", 0, 0}, {"Head", 0, 1}};
  for (size_t i = 0; i < defs.size(); ++i) {
    rs::psk::Bone b;
    b.name = defs[i].name;
    b.parent = defs[i].parent < 0 ? 0 : defs[i].parent;
    for (size_t k = 0; k < defs.size(); ++k) b.numChildren += defs[k].parent == int(i);
    storeRotation(rest.local[i], i == 0, b.rotation);
    b.position[0] = float(rest.localPos[i].x);
    b.position[1] = float(rest.localPos[i].y);
    b.position[2] = float(rest.localPos[i].z);
    b.length = float(std::sqrt(dot(defs[i].tail - defs[i].head, defs[i].tail - defs[i].head)));
    mesh.bones.push_back(b);
  }
  buildMesh(defs, rest, mesh);

  rs::psk::Animation anim;
  anim.bones = mesh.bones;
  anim.sequences.push_back(makeSequence(defs, rest, "Idle", 30, 60, idlePose));
  anim.sequences.push_back(makeSequence(defs, rest, "Walk", 30, 30, walkPose));
  anim.sequences.push_back(makeSequence(defs, rest, "Wave", 30, 45, wavePose));

  bool ok = rs::writeFile(dir + "/rigscope-demo.psk", rs::psk::writePsk(mesh)) &&
            rs::writeFile(dir + "/rigscope-demo.psa", rs::psk::writePsa(anim));
  if (!ok) {
    std::fprintf(stderr, "write_demo: cannot write to %s\n", dir.c_str());
    return 1;
  }
  std::printf("rigscope-demo.psk: %zu points, %zu wedges, %zu faces, %zu bones; rigscope-demo.psa: %zu sequences\n",
              mesh.points.size() / 3, mesh.wedges.size(), mesh.faces.size(), mesh.bones.size(), anim.sequences.size());
  return 0;
}
