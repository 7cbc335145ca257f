// 0 A.D. PMD decoder. Layout and engine semantics: shared/specs/zeroad-pmd-psa.md §2 and §5.
//
// The section counts come before their records, but the vertex block (first) needs the bone count
// (last), so a first sweep validates and locates every section, then the vertices are decoded in
// one pass with the bones already known.
#include "formats/zeroad/pmd.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "convert/chunks.h"
#include "convert/math.h"
#include "convert/skin.h"
#include "formats/zeroad/zeroad_common.h"
#include "io/byte_reader.h"
#include "io/bytes.h"

namespace rs {

namespace {

const char* const kFormat = "PMD";
constexpr uint32_t kMaxUvSets = 255;      // no writer emits more than 2; refuses absurd allocations
constexpr uint32_t kMaxBones = 65534;     // skinIndex is u16 and the identity bone needs one more
constexpr uint64_t kBoneStateBytes = 28;  // f32 translation[3], f32 rotation[4]
constexpr uint64_t kMinPropBytes = 33;    // u32 nameLength, f32 t[3], f32 q[4], u8 bone

// A bone's rest state as the 3x4 matrix T(t)·R(q) (column vectors), in game space.
struct BoneMatrix {
  float m[3][4];
};

BoneMatrix boneMatrix(const float* t, const float* q) {
  const float x = q[0], y = q[1], z = q[2], w = q[3];
  BoneMatrix b;
  b.m[0][0] = 1 - 2 * (y * y + z * z);
  b.m[0][1] = 2 * (x * y - w * z);
  b.m[0][2] = 2 * (x * z + w * y);
  b.m[1][0] = 2 * (x * y + w * z);
  b.m[1][1] = 1 - 2 * (x * x + z * z);
  b.m[1][2] = 2 * (y * z - w * x);
  b.m[2][0] = 2 * (x * z - w * y);
  b.m[2][1] = 2 * (y * z + w * x);
  b.m[2][2] = 1 - 2 * (x * x + y * y);
  b.m[0][3] = t[0];
  b.m[1][3] = t[1];
  b.m[2][3] = t[2];
  return b;
}

// ---- sweep 1: every count against the bytes that remain (spec §2) -----------------------------

struct Sections {
  uint32_t version = 0, layout = 0;  // layout: the version read (newer ones as 4)
  uint32_t numVertices = 0, numUvSets = 1, numFaces = 0, numBones = 0, numProps = 0;
  uint64_t vertexBytes = 0;
  size_t vertexOffset = 0, faceOffset = 0, boneOffset = 0;
};

// Vertices, faces and bones: counted, checked and located; the reader left at the prop points.
RS_STEP Status locateSections(ByteReader& r, const std::string& file, Model& out, Sections& s) {
  r.seek(12);
  if (!r.u32le(s.numVertices)) return fail(kFormat, file, r.offset(), "numVertices missing");
  if (s.layout >= 4) {
    if (!r.u32le(s.numUvSets)) return fail(kFormat, file, r.offset(), "numUVSets missing");
    if (s.numUvSets > kMaxUvSets)
      return fail(kFormat, file, r.offset() - 4, "numUVSets is %u (at most %u is plausible)", s.numUvSets, kMaxUvSets);
  }
  s.vertexBytes = 44 + 8 * uint64_t(s.numUvSets);
  s.vertexOffset = r.offset();
  if (!r.has(s.numVertices, s.vertexBytes))
    return fail(kFormat, file, s.vertexOffset, "%u vertices of %llu bytes do not fit in the %zu bytes left",
                s.numVertices, (unsigned long long)s.vertexBytes, r.remaining());
  r.skip(size_t(s.numVertices * s.vertexBytes));
  if (!r.u32le(s.numFaces)) return fail(kFormat, file, r.offset(), "numFaces missing");
  s.faceOffset = r.offset();
  if (!r.has(s.numFaces, 6))
    return fail(kFormat, file, s.faceOffset, "%u faces of 6 bytes do not fit in the %zu bytes left", s.numFaces,
                r.remaining());
  r.skip(size_t(s.numFaces) * 6);
  if (!r.u32le(s.numBones)) return fail(kFormat, file, r.offset(), "numBones missing");
  s.boneOffset = r.offset();
  if (!r.has(s.numBones, kBoneStateBytes))
    return fail(kFormat, file, s.boneOffset, "%u bones of 28 bytes do not fit in the %zu bytes left", s.numBones,
                r.remaining());
  if (s.numBones > kMaxBones)
    return fail(kFormat, file, s.boneOffset - 4, "numBones is %u (more than %u cannot be skinned)", s.numBones,
                kMaxBones);
  r.skip(size_t(s.numBones) * kBoneStateBytes);
  if (s.numBones > 254)
    out.warnings.push_back(
        format("%u bones: blend indices are bytes, so bones from 255 on cannot carry vertices", s.numBones));
  return Status();
}

// Problems found in the prop points, reported once.
struct PropStats {
  size_t badBones = 0, badFloats = 0;
};

// One prop point: name, transform (mirrored like the model) and bone. 0xFF = model origin;
// == numBones is the bind-shape slot, which is the model transform too.
Status readPropPoint(ByteReader& r, const std::string& file, uint32_t i, uint32_t numBones, Attachment& a,
                     PropStats& st) {
  const size_t at = r.offset();
  uint32_t nameLength = 0;
  if (!r.u32le(nameLength)) return fail(kFormat, file, at, "prop point %u: nameLength missing", i);
  if (!r.has(uint64_t(nameLength) + 29))
    return fail(kFormat, file, at, "prop point %u: name of %u bytes and its transform do not fit in the %zu bytes left",
                i, nameLength, r.remaining());
  a.name = fixedName(r.here(), nameLength);
  r.skip(nameLength);
  const uint8_t* p = r.here();
  for (int k = 0; k < 3; ++k) a.translation[k] = load_f32le(p + 4 * k);
  for (int k = 0; k < 4; ++k) a.rotation[k] = load_f32le(p + 12 + 4 * k);
  const uint8_t bone = p[28];
  r.skip(29);
  if (!zeroad::finite3(a.translation)) {
    a.translation[0] = a.translation[1] = a.translation[2] = 0.0f;
    ++st.badFloats;
  }
  normalizeQuat(a.rotation);  // NaN or zero -> identity
  zeroad::mirrorVector(a.translation);
  zeroad::mirrorQuat(a.rotation);
  if (bone == 0xFF || bone == numBones) {
    a.bone = -1;
  } else if (bone > numBones) {
    a.bone = -1;
    ++st.badBones;
  } else {
    a.bone = bone;
  }
  return Status();
}

// Prop points (v2+). Names make the records variable-sized, so they are parsed in the first sweep.
// v1 and v2 get the engine's implied `root` prop (identity, on the model origin).
RS_STEP Status readPropPoints(ByteReader& r, const std::string& file, Sections& s, Model& out) {
  if (s.layout <= 2) {
    Attachment root;
    root.name = "root";
    out.attachments.push_back(root);
  }
  if (s.layout < 2) return Status();
  if (!r.u32le(s.numProps)) return fail(kFormat, file, r.offset(), "numPropPoints missing");
  if (!r.has(s.numProps, kMinPropBytes))
    return fail(kFormat, file, r.offset(), "%u prop points of at least 33 bytes do not fit in the %zu bytes left",
                s.numProps, r.remaining());
  out.attachments.reserve(out.attachments.size() + s.numProps);
  PropStats st;
  for (uint32_t i = 0; i < s.numProps; ++i) {
    Attachment a;
    Status e = readPropPoint(r, file, i, s.numBones, a, st);
    if (!e.ok()) return e;
    if (s.layout <= 2 && a.name == "root") continue;  // already implied
    out.attachments.push_back(std::move(a));
  }
  if (st.badFloats)
    out.warnings.push_back(format("%zu prop points have a non-finite translation; set to 0", st.badFloats));
  if (st.badBones)
    out.warnings.push_back(
        format("%zu prop points name a bone past the %u bones; attached to the model root", st.badBones, s.numBones));
  return Status();
}

// ---- bones: rest states are absolute model-space transforms (flat skeleton) -------------------

// Returns the game-space matrices for the v1/v2 pre-skin, plus one identity slot for the
// bind-shape index.
RS_STEP std::vector<BoneMatrix> readRestBones(const uint8_t* data, const Sections& s, Model& out) {
  const uint32_t numBones = s.numBones;
  std::vector<BoneMatrix> rest(size_t(numBones) + 1);
  Skeleton& sk = out.skeleton;
  sk.names.reserve(numBones + 1);
  sk.parents.assign(numBones, -1);
  sk.restTranslation.resize(size_t(numBones) * 3);
  sk.restRotation.resize(size_t(numBones) * 4);
  size_t badBones = 0;
  for (uint32_t b = 0; b < numBones; ++b) {
    const uint8_t* p = data + s.boneOffset + size_t(b) * kBoneStateBytes;
    float t[3], q[4];
    for (int k = 0; k < 3; ++k) t[k] = load_f32le(p + 4 * k);
    for (int k = 0; k < 4; ++k) q[k] = load_f32le(p + 12 + 4 * k);
    if (!zeroad::finite3(t) || !zeroad::finite4(q)) {
      ++badBones;
      if (!zeroad::finite3(t)) t[0] = t[1] = t[2] = 0.0f;
    }
    normalizeQuat(q);
    rest[b] = boneMatrix(t, q);
    zeroad::mirrorVector(t);
    zeroad::mirrorQuat(q);
    std::memcpy(&sk.restTranslation[size_t(b) * 3], t, sizeof t);
    std::memcpy(&sk.restRotation[size_t(b) * 4], q, sizeof q);
    sk.names.push_back("bone_" + std::to_string(b));
  }
  const float t0[3] = {0, 0, 0}, q0[4] = {0, 0, 0, 1};
  rest[numBones] = boneMatrix(t0, q0);
  if (badBones)
    out.warnings.push_back(
        format("%zu rest bone states hold NaN or infinite values; replaced by identity parts", badBones));
  return rest;
}

// ---- vertices -----------------------------------------------------------------------------------

// What went wrong across the vertices, reported once.
struct VertexStats {
  size_t outOfRange = 0, negativeWeights = 0, zeroWeightVertices = 0, unboundVertices = 0, badFloats = 0;
  size_t badNormals = 0, influences = 0;
  bool usesBindShape = false;
};

// A vertex's influences.
struct Influences {
  uint16_t bone[4];
  float weight[4];
  int n = 0;      // influences kept
  int slots = 0;  // slots before the first 0xFF
};

// The first 0xFF ends the list; a zero weight is not an influence; index == numBones is the bind
// shape (identity bone). A skinned vertex left without influence is bound rigidly (the engine would
// sum nothing and collapse it to the origin): to the first bone its blend names (zero weights),
// else to the bind shape (no influences at all).
Influences readBlend(const uint8_t* bones, const uint8_t* weights, uint32_t numBones, bool skinned, VertexStats& st) {
  Influences bl;
  int firstNamed = -1;
  for (int k = 0; k < 4 && bones[k] != 0xFF; ++k) {
    ++bl.slots;
    const uint32_t b = bones[k];
    if (b > numBones) {
      ++st.outOfRange;
      continue;
    }
    if (firstNamed < 0) firstNamed = int(b);
    const float w = load_f32le(weights + 4 * k);
    if (!(w > 0.0f) || !std::isfinite(w)) {
      if (w != 0.0f) ++st.negativeWeights;
      continue;
    }
    bl.bone[bl.n] = uint16_t(b);
    bl.weight[bl.n] = w;
    ++bl.n;
  }
  st.influences += size_t(bl.n);
  if (bl.n == 0 && skinned) {
    if (firstNamed >= 0) {
      bl.bone[0] = uint16_t(firstNamed);
      ++st.zeroWeightVertices;
    } else {
      bl.bone[0] = uint16_t(numBones);
      ++st.unboundVertices;
    }
    bl.weight[0] = 1.0f;
    bl.n = 1;
  }
  return bl;
}

// v1/v2 vertices are bone-relative: pre-skin with the rest pose exactly as CModelDef::Load does
// (raw weights).
void preSkin(const Influences& bl, const std::vector<BoneMatrix>& rest, float* pos, float* nrm) {
  float sp[3] = {0, 0, 0}, sn[3] = {0, 0, 0};
  for (int k = 0; k < bl.n; ++k) {
    const BoneMatrix& M = rest[bl.bone[k]];
    for (int i = 0; i < 3; ++i) {
      sp[i] += bl.weight[k] * (M.m[i][0] * pos[0] + M.m[i][1] * pos[1] + M.m[i][2] * pos[2] + M.m[i][3]);
      sn[i] += bl.weight[k] * (M.m[i][0] * nrm[0] + M.m[i][1] * nrm[1] + M.m[i][2] * nrm[2]);
    }
  }
  if (bl.slots > 1) {
    const float len = std::sqrt(sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]);
    if (len > 1e-20f)
      for (float& c : sn) c /= len;
  }
  std::memcpy(pos, sp, 3 * sizeof(float));
  std::memcpy(nrm, sn, 3 * sizeof(float));
}

// Every vertex in one pass: position, normal, UV sets, blend.
RS_STEP void readVertices(const uint8_t* data, const Sections& s, const std::vector<BoneMatrix>& rest, Mesh& mesh,
                          SkinBuilder& skin, VertexStats& st) {
  const bool boneRelative = s.layout <= 2;
  const bool skinned = s.numBones > 0;
  const size_t blendAt = 24 + 8 * size_t(s.numUvSets);
  forChunks(s.numVertices, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      const uint8_t* p = data + s.vertexOffset + v * size_t(s.vertexBytes);
      float pos[3], nrm[3];
      for (int k = 0; k < 3; ++k) pos[k] = load_f32le(p + 4 * k);
      for (int k = 0; k < 3; ++k) nrm[k] = load_f32le(p + 12 + 4 * k);
      for (uint32_t u = 0; u < s.numUvSets; ++u) {
        // COLLADA/OpenGL UVs (v = 0 at the bottom of the image): exactly three's flipY convention.
        mesh.uvs[u][v * 2] = load_f32le(p + 24 + 8 * u);
        mesh.uvs[u][v * 2 + 1] = load_f32le(p + 28 + 8 * u);
      }
      const Influences bl = readBlend(p + blendAt, p + blendAt + 4, s.numBones, skinned, st);
      if (boneRelative && bl.n > 0) preSkin(bl, rest, pos, nrm);
      if (skinned)
        for (int k = 0; k < bl.n; ++k) {
          skin.add(v, bl.bone[k], bl.weight[k]);
          st.usesBindShape |= bl.bone[k] == s.numBones;
        }
      if (!zeroad::finite3(pos)) {  // checked after the pre-skin, which can overflow too
        ++st.badFloats;
        for (float& c : pos) c = std::isfinite(c) ? c : 0.0f;
      }
      if (!zeroad::finite3(nrm)) {
        ++st.badNormals;  // real files have them (skeleton.pmd); rebuilt from the faces later
        nrm[0] = nrm[1] = nrm[2] = std::numeric_limits<float>::quiet_NaN();
      }
      zeroad::mirrorVector(pos);
      zeroad::mirrorVector(nrm);
      std::memcpy(&mesh.positions[v * 3], pos, sizeof pos);
      std::memcpy(&mesh.normals[v * 3], nrm, sizeof nrm);
    }
  });
}

RS_STEP void reportVertexStats(const VertexStats& st, uint32_t numBones, Model& out) {
  if (st.outOfRange)
    out.warnings.push_back(
        format("%zu blend slots name a bone past the %u bones (and the bind shape); ignored", st.outOfRange, numBones));
  if (st.negativeWeights)
    out.warnings.push_back(format("%zu blend slots have a negative or non-finite weight; ignored", st.negativeWeights));
  if (st.zeroWeightVertices)
    out.warnings.push_back(
        format("%zu vertices have only zero-weight blends (the engine would collapse them to the origin); bound to "
               "their first bone with weight 1",
               st.zeroWeightVertices));
  if (st.unboundVertices)
    out.warnings.push_back(format("%zu vertices have no influences; bound to the bind shape", st.unboundVertices));
  if (st.badFloats)
    out.warnings.push_back(format("%zu vertex positions hold NaN or infinite values; set to 0", st.badFloats));
}

// Four strongest influences per vertex, and the identity "bind shape" bone when a vertex uses it.
RS_STEP void finishSkeleton(SkinBuilder& skin, const VertexStats& st, uint32_t numBones, Mesh& mesh, Model& out) {
  Skeleton& sk = out.skeleton;
  const SkinStats ss = skin.finish(uint16_t(numBones));
  if (ss.renormalised)
    out.warnings.push_back(format("%zu vertices' weights did not sum to 1; renormalised", ss.renormalised));
  mesh.skinIndex = std::move(skin.index);
  mesh.skinWeight = std::move(skin.weight);
  if (st.usesBindShape) {
    sk.helper = int32_t(sk.names.size());
    sk.names.push_back("bind shape");
    sk.parents.push_back(-1);
    const float t0[3] = {0, 0, 0}, q0[4] = {0, 0, 0, 1};
    sk.restTranslation.insert(sk.restTranslation.end(), t0, t0 + 3);
    sk.restRotation.insert(sk.restRotation.end(), q0, q0 + 4);
  }
  sk.flat = true;
  out.hasSkeleton = true;
}

// ---- faces: u16 triangles, index order kept (see zeroad_common.h) -------------------------------

RS_STEP void readFaces(const uint8_t* data, const Sections& s, Mesh& mesh, Model& out) {
  mesh.indices.reserve(size_t(s.numFaces) * 3);
  size_t badFaces = 0;
  forChunks(s.numFaces, [&](size_t begin, size_t end) {
    for (size_t f = begin; f < end; ++f) {
      const uint8_t* p = data + s.faceOffset + f * 6;
      const uint32_t a = load_u16le(p), b = load_u16le(p + 2), c = load_u16le(p + 4);
      if (a >= s.numVertices || b >= s.numVertices || c >= s.numVertices) {
        ++badFaces;
        continue;
      }
      mesh.indices.push_back(a);
      mesh.indices.push_back(b);
      mesh.indices.push_back(c);
    }
  });
  if (badFaces)
    out.warnings.push_back(format("%zu faces index past the %u vertices; dropped", badFaces, s.numVertices));
}

// Area-weighted face normals for the vertices whose file normal is NaN or infinite.
RS_STEP void rebuildBadNormals(size_t badNormals, Mesh& mesh, Model& out) {
  const size_t nv = mesh.positions.size() / 3;
  std::vector<float> faceNormals(nv * 3, 0.0f);
  accumulateFaceNormals(mesh.positions.data(), mesh.indices.data(), mesh.indices.size(), faceNormals.data());
  normalizeNormals(faceNormals.data(), nv);
  for (size_t v = 0; v < nv; ++v)
    if (!zeroad::finite3(&mesh.normals[v * 3])) std::memcpy(&mesh.normals[v * 3], &faceNormals[v * 3], 12);
  out.warnings.push_back(format("%zu vertex normals hold NaN or infinite values; rebuilt from the faces", badNormals));
}

RS_STEP void recordFacts(const Sections& s, const VertexStats& st, const Mesh& mesh, Model& out) {
  out.count("version", s.version);
  out.count("vertices", s.numVertices);
  out.count("faces", s.numFaces);
  out.count("triangles", uint32_t(mesh.indices.size() / 3));
  out.count("uvSets", s.numUvSets);
  out.count("bones", s.numBones);
  out.count("props", s.numProps);
  out.count("influences", double(st.influences));
  out.info.emplace_back("version", std::to_string(s.version));
  if (s.layout <= 2) out.info.emplace_back("vertices", "bone-relative (pre-skinned with the rest pose)");
  if (st.usesBindShape)
    out.info.emplace_back("bind shape", format("bone %u is the identity bind-shape bone", s.numBones));
}

}  // namespace

Status decodePmd(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out = Model();
  out.format = "pmd";
  out.bindBy = "index";
  out.name = file;
  Sections s;
  Status st = zeroad::readHeader(data, size, "PSMD", kFormat, file, s.version, out);
  if (!st.ok()) return st;
  if (s.version > 4)
    out.warnings.push_back(format("version %u is newer than 4; read as version 4, as the engine does", s.version));
  s.layout = s.version > 4 ? 4 : s.version;
  ByteReader r(data, size);
  if (!(st = locateSections(r, file, out, s)).ok()) return st;
  if (!(st = readPropPoints(r, file, s, out)).ok()) return st;
  if (r.remaining() > 0)
    out.warnings.push_back(
        format("%zu bytes after the last section (from byte %zu) ignored", r.remaining(), r.offset()));

  const std::vector<BoneMatrix> rest = readRestBones(data, s, out);
  const size_t nv = s.numVertices;
  out.meshes.resize(1);
  Mesh& mesh = out.meshes[0];
  mesh.name = zeroad::fileStem(file);
  mesh.positions.resize(nv * 3);
  mesh.normals.resize(nv * 3);
  mesh.uvs.resize(nv > 0 ? s.numUvSets : 0);
  for (auto& set : mesh.uvs) set.resize(nv * 2);
  const bool skinned = s.numBones > 0;
  SkinBuilder skin(skinned ? nv : 0);
  VertexStats vs;
  readVertices(data, s, rest, mesh, skin, vs);
  reportVertexStats(vs, s.numBones, out);
  if (skinned)
    finishSkeleton(skin, vs, s.numBones, mesh, out);
  else
    out.skeleton = Skeleton();
  readFaces(data, s, mesh, out);
  if (vs.badNormals) rebuildBadNormals(vs.badNormals, mesh, out);
  mesh.groups.push_back(Group{0, uint32_t(mesh.indices.size()), 0});
  Material mat;
  mat.name = mesh.name;
  mat.blend = Blend::Opaque;
  out.materials.push_back(mat);
  recordFacts(s, vs, mesh, out);
  return Status();
}

static double countOf(const Model& m, const char* key) {
  for (const auto& c : m.counts)
    if (c.first == key) return c.second;
  return -1;
}

static std::string baseName(const std::string& file) {
  size_t slash = file.find_last_of("/\\");
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

std::string zeroadPairingError(const Model& pmd, const Model& pssa) {
  const double mb = countOf(pmd, "bones"), ab = countOf(pssa, "bones");
  if (mb == ab) return std::string();
  return format("animation %s has %.0f bones, model %s has %.0f", baseName(pssa.name).c_str(), ab,
                baseName(pmd.name).c_str(), mb);
}

}  // namespace rs
