#include "writers/zeroad_writer.h"

#include <cmath>

#include "writers/writer_bytes.h"

namespace rs {

namespace {

void header(ByteWriter& w, const char* magic, uint32_t version) {
  w.raw(magic, 4);
  w.u32(version);
  w.u32(0);  // payloadSize, patched at the end
}

void finishHeader(ByteWriter& w, bool overridePayload, uint32_t payload) {
  const uint32_t size = overridePayload ? payload : uint32_t(w.bytes.size() - 12);
  for (int i = 0; i < 4; ++i) w.bytes[8 + i] = uint8_t(size >> (8 * i));
}

void boneState(ByteWriter& w, const ZeroadBoneState& s) {
  for (float t : s.translation) w.f32(t);
  for (float q : s.rotation) w.f32(q);
}

float at(const std::vector<float>& v, size_t i) { return i < v.size() ? v[i] : 0.0f; }

// Rotates v by the conjugate of unit quaternion q.
void rotateInverse(const float* q, const float* v, float* out) {
  const float x = -q[0], y = -q[1], z = -q[2], w = q[3];
  // t = 2 * cross(q.xyz, v); v' = v + w t + cross(q.xyz, t)
  const float tx = 2 * (y * v[2] - z * v[1]);
  const float ty = 2 * (z * v[0] - x * v[2]);
  const float tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}

}  // namespace

std::vector<uint8_t> writePmd(const PmdDesc& d) {
  ByteWriter w;
  header(w, "PSMD", d.version);
  const size_t nv = d.positions.size() / 3;
  // A hostile UV-set count above 256 is declared but its floats are not written.
  const uint32_t uvSets = d.version >= 4 ? (d.uvSets > 256 ? 0 : d.uvSets) : 1;
  w.u32(d.overrideCounts ? d.numVertices : uint32_t(nv));
  if (d.version >= 4) w.u32(d.uvSets);
  for (size_t v = 0; v < nv; ++v) {
    for (int k = 0; k < 3; ++k) w.f32(d.positions[v * 3 + k]);
    for (int k = 0; k < 3; ++k) w.f32(at(d.normals, v * 3 + k));
    for (size_t k = 0; k < size_t(uvSets) * 2; ++k) w.f32(at(d.uvs, v * uvSets * 2 + k));
    for (int k = 0; k < 4; ++k) w.u8(v * 4 + k < d.blendBones.size() ? d.blendBones[v * 4 + k] : 0xFF);
    for (int k = 0; k < 4; ++k) w.f32(at(d.blendWeights, v * 4 + k));
  }
  w.u32(d.overrideCounts ? d.numFaces : uint32_t(d.indices.size() / 3));
  for (size_t i = 0; i + 2 < d.indices.size(); i += 3) {
    w.u16(d.indices[i]);
    w.u16(d.indices[i + 1]);
    w.u16(d.indices[i + 2]);
  }
  w.u32(d.overrideCounts ? d.numBones : uint32_t(d.bones.size()));
  for (const ZeroadBoneState& b : d.bones) boneState(w, b);
  if (d.version >= 2) {
    w.u32(d.overrideCounts ? d.numProps : uint32_t(d.props.size()));
    for (const ZeroadProp& p : d.props) {
      w.u32(uint32_t(p.name.size()));
      w.raw(p.name.data(), p.name.size());
      for (float t : p.translation) w.f32(t);
      for (float q : p.rotation) w.f32(q);
      w.u8(p.bone);
    }
  }
  finishHeader(w, d.overridePayloadSize, d.payloadSize);
  return w.bytes;
}

std::vector<uint8_t> writePssa(const PssaDesc& d) {
  ByteWriter w;
  header(w, "PSSA", d.version);
  w.u32(uint32_t(d.name.size()));
  w.raw(d.name.data(), d.name.size());
  w.f32(d.frameLength);
  w.u32(d.bones);
  w.u32(d.frames);
  const size_t n = d.overrideCounts ? d.keys.size() : size_t(d.bones) * d.frames;
  for (size_t i = 0; i < n; ++i) boneState(w, i < d.keys.size() ? d.keys[i] : ZeroadBoneState());
  finishHeader(w, false, 0);
  return w.bytes;
}

void makeBoneRelative(PmdDesc& d) {
  const size_t nv = d.positions.size() / 3;
  for (size_t v = 0; v < nv; ++v) {
    const uint8_t b = v * 4 < d.blendBones.size() ? d.blendBones[v * 4] : 0xFF;
    if (b >= d.bones.size()) continue;  // 0xFF or the bind shape: already model space
    const ZeroadBoneState& s = d.bones[b];
    float p[3] = {d.positions[v * 3] - s.translation[0], d.positions[v * 3 + 1] - s.translation[1],
                  d.positions[v * 3 + 2] - s.translation[2]};
    rotateInverse(s.rotation, p, &d.positions[v * 3]);
    if (d.normals.size() >= v * 3 + 3) {
      float n[3] = {d.normals[v * 3], d.normals[v * 3 + 1], d.normals[v * 3 + 2]};
      rotateInverse(s.rotation, n, &d.normals[v * 3]);
    }
  }
}

}  // namespace rs

// ---- Fixtures -------------------------------------------------------------------------------
namespace rs {

namespace {

// A box along +x from 0 to `length`, cross-section 2h x 2h centred on the x axis, `segments`
// rings of 4 vertices per side (each side has its own normals) plus 4-vertex end caps. Authored in
// three.js space (right-handed, CCW outward); `toGame` mirrors z into the file's left-handed space
// (the decoder mirrors back and keeps the index order).
struct Box {
  std::vector<float> p, n, uv;
  std::vector<uint16_t> idx;
};

void quad(Box& b, const float (*c)[3], const float* nrm, const float (*uv)[2]) {
  const uint16_t base = uint16_t(b.p.size() / 3);
  for (int i = 0; i < 4; ++i) {
    b.p.insert(b.p.end(), c[i], c[i] + 3);
    b.n.insert(b.n.end(), nrm, nrm + 3);
    b.uv.insert(b.uv.end(), uv[i], uv[i] + 2);
  }
  float e1[3], e2[3];
  for (int k = 0; k < 3; ++k) {
    e1[k] = c[1][k] - c[0][k];
    e2[k] = c[2][k] - c[0][k];
  }
  const float cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
              cz = e1[0] * e2[1] - e1[1] * e2[0];
  const bool ccw = cx * nrm[0] + cy * nrm[1] + cz * nrm[2] > 0;
  const uint16_t order[6] = {0, 1, 2, 0, 2, 3}, reversed[6] = {0, 2, 1, 0, 3, 2};
  for (int i = 0; i < 6; ++i) b.idx.push_back(uint16_t(base + (ccw ? order[i] : reversed[i])));
}

// Sides as strips: each side shares its ring vertices between consecutive segments.
Box makeBox(float length, float h, int segments) {
  Box b;
  // Side s: outward normal (y, z) and the two cross-section corners (y, z) along the side.
  const float sides[4][3][2] = {
      {{1, 0}, {h, -h}, {h, h}},     // +y
      {{0, 1}, {h, h}, {-h, h}},     // +z
      {{-1, 0}, {-h, h}, {-h, -h}},  // -y
      {{0, -1}, {-h, -h}, {h, -h}},  // -z
  };
  for (int s = 0; s < 4; ++s) {
    const float nrm[3] = {0, sides[s][0][0], sides[s][0][1]};
    const uint16_t base = uint16_t(b.p.size() / 3);
    for (int r = 0; r <= segments; ++r) {
      const float x = length * float(r) / float(segments);
      for (int e = 0; e < 2; ++e) {
        const float p[3] = {x, sides[s][1 + e][0], sides[s][1 + e][1]};
        b.p.insert(b.p.end(), p, p + 3);
        b.n.insert(b.n.end(), nrm, nrm + 3);
        b.uv.push_back(x / length);
        b.uv.push_back((float(s) + float(e)) / 4.0f);
      }
    }
    for (int r = 0; r < segments; ++r) {
      const uint16_t a = uint16_t(base + 2 * r), c = uint16_t(a + 2);
      // Corners a (x0,e0), a+1 (x0,e1), c+1 (x1,e1), c (x1,e0); wind CCW about the outward normal.
      const float* P0 = &b.p[size_t(a) * 3];
      const float* P1 = &b.p[size_t(a + 1) * 3];
      const float* P2 = &b.p[size_t(c + 1) * 3];
      float e1[3], e2[3];
      for (int k = 0; k < 3; ++k) {
        e1[k] = P1[k] - P0[k];
        e2[k] = P2[k] - P0[k];
      }
      const float d = (e1[1] * e2[2] - e1[2] * e2[1]) * nrm[0] + (e1[2] * e2[0] - e1[0] * e2[2]) * nrm[1] +
                      (e1[0] * e2[1] - e1[1] * e2[0]) * nrm[2];
      const uint16_t q[4] = {a, uint16_t(a + 1), uint16_t(c + 1), c};
      if (d > 0) {
        b.idx.insert(b.idx.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
      } else {
        b.idx.insert(b.idx.end(), {q[0], q[2], q[1], q[0], q[3], q[2]});
      }
    }
  }
  for (int end = 0; end < 2; ++end) {
    const float x = end ? length : 0.0f;
    const float nrm[3] = {end ? 1.0f : -1.0f, 0, 0};
    const float c[4][3] = {{x, -h, -h}, {x, h, -h}, {x, h, h}, {x, -h, h}};
    const float uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    quad(b, c, nrm, uv);
  }
  return b;
}

// Three.js space -> game space: z = -z (positions, normals); the index order stays.
void toGame(Box& b) {
  for (size_t i = 2; i < b.p.size(); i += 3) b.p[i] = -b.p[i];
  for (size_t i = 2; i < b.n.size(); i += 3) b.n[i] = -b.n[i];
}

void setState(ZeroadBoneState& s, float tx, float ty, float tz, float qx, float qy, float qz, float qw) {
  s.translation[0] = tx;
  s.translation[1] = ty;
  s.translation[2] = tz;
  s.rotation[0] = qx;
  s.rotation[1] = qy;
  s.rotation[2] = qz;
  s.rotation[3] = qw;
}

}  // namespace

PmdDesc zeroadArmModel() {
  Box b = makeBox(3.0f, 0.25f, 12);
  toGame(b);
  PmdDesc d;
  d.version = 4;
  d.uvSets = 1;
  d.positions = b.p;
  d.normals = b.n;
  d.uvs = b.uv;
  d.indices = b.idx;
  const size_t nv = b.p.size() / 3;
  d.blendBones.assign(nv * 4, 0xFF);
  d.blendWeights.assign(nv * 4, 0.0f);
  for (size_t v = 0; v < nv; ++v) {
    const float x = b.p[v * 3];
    uint8_t* bb = &d.blendBones[v * 4];
    float* bw = &d.blendWeights[v * 4];
    if (x == 1.0f || x == 2.0f) {  // joints: half and half
      bb[0] = uint8_t(x == 1.0f ? 0 : 1);
      bb[1] = uint8_t(bb[0] + 1);
      bw[0] = bw[1] = 0.5f;
    } else {
      bb[0] = uint8_t(x < 1.0f ? 0 : x < 2.0f ? 1 : 2);
      bw[0] = 1.0f;
    }
  }
  d.bones.resize(3);
  for (int i = 0; i < 3; ++i) setState(d.bones[i], float(i), 0, 0, 0, 0, 0, 1);
  d.props.resize(2);
  d.props[0].name = "prop_hand";
  d.props[0].bone = 2;
  d.props[0].translation[0] = 1.0f;
  d.props[0].translation[2] = 0.25f;
  d.props[1].name = "prop_head";
  d.props[1].bone = 0;
  d.props[1].translation[1] = 0.5f;
  d.props[1].rotation[1] = 0.70710678f;
  d.props[1].rotation[3] = 0.70710678f;
  return d;
}

PssaDesc zeroadArmWave() {
  PssaDesc d;
  d.name = "arm_wave";
  d.frameLength = 33.3f;
  d.bones = 3;
  d.frames = 20;
  d.keys.resize(60);
  for (uint32_t f = 0; f < 20; ++f) {
    setState(d.keys[f * 3 + 0], 0, 0, 0, 0, 0, 0, 1);
    setState(d.keys[f * 3 + 1], 1, 0, 0, 0, 0, 0, 1);
    const double half = double(f) * 5.0 * 3.14159265358979323846 / 360.0;
    setState(d.keys[f * 3 + 2], 2, 0, 0, 0, 0, float(std::sin(half)), float(std::cos(half)));
  }
  return d;
}

PssaDesc zeroadArmBad() {
  PssaDesc d;
  d.name = "arm_bad";
  d.frameLength = 33.3f;
  d.bones = 4;
  d.frames = 2;
  d.keys.resize(8);
  for (uint32_t f = 0; f < 2; ++f)
    for (uint32_t b = 0; b < 4; ++b) setState(d.keys[f * 4 + b], float(b), 0, 0, 0, 0, 0, 1);
  return d;
}

PmdDesc zeroadOldV1Model() {
  Box b = makeBox(2.0f, 0.25f, 4);
  toGame(b);
  PmdDesc d;
  d.version = 1;
  d.positions = b.p;
  d.normals = b.n;
  d.uvs = b.uv;
  d.indices = b.idx;
  const size_t nv = b.p.size() / 3;
  d.blendBones.assign(nv * 4, 0xFF);
  d.blendWeights.assign(nv * 4, 0.0f);
  for (size_t v = 0; v < nv; ++v) {
    d.blendBones[v * 4] = b.p[v * 3] <= 1.0f ? 0 : 1;
    d.blendWeights[v * 4] = 1.0f;
  }
  d.bones.resize(2);
  setState(d.bones[0], 0, 0, 0, 0, 0, 0, 1);
  setState(d.bones[1], 1, 0, 0, 0, 0.70710678f, 0, 0.70710678f);  // 90 degrees about +Y
  makeBoneRelative(d);
  return d;
}

}  // namespace rs
