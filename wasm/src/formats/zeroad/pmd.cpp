// 0 A.D. PMD decoder. Layout and engine semantics: shared/specs/zeroad-pmd-psa.md §2 and §5.
//
// The section counts come before their records, but the vertex block (first) needs the bone count
// (last), so a first sweep validates and locates every section, then the vertices are decoded in
// one pass with the bones already known.
#include "formats/zeroad/pmd.h"

#include <cmath>
#include <cstring>
#include <limits>

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

}  // namespace

Status decodePmd(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  out = Model();
  out.format = "pmd";
  out.bindBy = "index";
  out.name = file;

  uint32_t version = 0;
  Status st = zeroad::readHeader(data, size, "PSMD", kFormat, file, version, out);
  if (!st.ok()) return st;
  if (version > 4)
    out.warnings.push_back(format("version %u is newer than 4; read as version 4, as the engine does", version));
  const uint32_t layout = version > 4 ? 4 : version;

  // ---- Sweep 1: validate every count against the bytes that remain, locate the sections.
  ByteReader r(data, size);
  r.seek(12);
  uint32_t numVertices = 0, numUvSets = 1, numFaces = 0, numBones = 0, numProps = 0;
  if (!r.u32le(numVertices)) return fail(kFormat, file, r.offset(), "numVertices missing");
  if (layout >= 4) {
    if (!r.u32le(numUvSets)) return fail(kFormat, file, r.offset(), "numUVSets missing");
    if (numUvSets > kMaxUvSets)
      return fail(kFormat, file, r.offset() - 4, "numUVSets is %u (at most %u is plausible)", numUvSets,
                  kMaxUvSets);
  }
  const uint64_t vertexBytes = 44 + 8 * uint64_t(numUvSets);
  const size_t vertexOffset = r.offset();
  if (!r.has(numVertices, vertexBytes))
    return fail(kFormat, file, vertexOffset, "%u vertices of %llu bytes do not fit in the %zu bytes left",
                numVertices, (unsigned long long)vertexBytes, r.remaining());
  r.skip(size_t(numVertices * vertexBytes));

  if (!r.u32le(numFaces)) return fail(kFormat, file, r.offset(), "numFaces missing");
  const size_t faceOffset = r.offset();
  if (!r.has(numFaces, 6))
    return fail(kFormat, file, faceOffset, "%u faces of 6 bytes do not fit in the %zu bytes left", numFaces,
                r.remaining());
  r.skip(size_t(numFaces) * 6);

  if (!r.u32le(numBones)) return fail(kFormat, file, r.offset(), "numBones missing");
  const size_t boneOffset = r.offset();
  if (!r.has(numBones, kBoneStateBytes))
    return fail(kFormat, file, boneOffset, "%u bones of 28 bytes do not fit in the %zu bytes left", numBones,
                r.remaining());
  if (numBones > kMaxBones)
    return fail(kFormat, file, boneOffset - 4, "numBones is %u (more than %u cannot be skinned)", numBones,
                kMaxBones);
  r.skip(size_t(numBones) * kBoneStateBytes);
  if (numBones > 254)
    out.warnings.push_back(format("%u bones: blend indices are bytes, so bones from 255 on cannot carry vertices",
                                  numBones));

  // Prop points (v2+). Names make the records variable-sized, so they are parsed here.
  // v1 and v2 get the engine's implied `root` prop (identity, on the model origin).
  if (layout <= 2) {
    Attachment root;
    root.name = "root";
    out.attachments.push_back(root);
  }
  if (layout >= 2) {
    if (!r.u32le(numProps)) return fail(kFormat, file, r.offset(), "numPropPoints missing");
    if (!r.has(numProps, kMinPropBytes))
      return fail(kFormat, file, r.offset(), "%u prop points of at least 33 bytes do not fit in the %zu bytes left",
                  numProps, r.remaining());
    out.attachments.reserve(out.attachments.size() + numProps);
    size_t badPropBones = 0, badPropFloats = 0;
    for (uint32_t i = 0; i < numProps; ++i) {
      const size_t at = r.offset();
      uint32_t nameLength = 0;
      if (!r.u32le(nameLength)) return fail(kFormat, file, at, "prop point %u: nameLength missing", i);
      if (!r.has(uint64_t(nameLength) + 29))
        return fail(kFormat, file, at,
                    "prop point %u: name of %u bytes and its transform do not fit in the %zu bytes left",
                    i, nameLength, r.remaining());
      Attachment a;
      a.name = fixedName(r.here(), nameLength);
      r.skip(nameLength);
      const uint8_t* p = r.here();
      for (int k = 0; k < 3; ++k) a.translation[k] = load_f32le(p + 4 * k);
      for (int k = 0; k < 4; ++k) a.rotation[k] = load_f32le(p + 12 + 4 * k);
      const uint8_t bone = p[28];
      r.skip(29);
      if (!zeroad::finite3(a.translation)) {
        a.translation[0] = a.translation[1] = a.translation[2] = 0.0f;
        ++badPropFloats;
      }
      normalizeQuat(a.rotation);  // NaN or zero -> identity
      zeroad::mirrorVector(a.translation);
      zeroad::mirrorQuat(a.rotation);
      // 0xFF = model origin; == numBones is the bind-shape slot, which is the model transform too.
      if (bone == 0xFF || bone == numBones) {
        a.bone = -1;
      } else if (bone > numBones) {
        a.bone = -1;
        ++badPropBones;
      } else {
        a.bone = bone;
      }
      if (layout <= 2 && a.name == "root") continue;  // already implied
      out.attachments.push_back(std::move(a));
    }
    if (badPropFloats)
      out.warnings.push_back(format("%zu prop points have a non-finite translation; set to 0", badPropFloats));
    if (badPropBones)
      out.warnings.push_back(format("%zu prop points name a bone past the %u bones; attached to the model root",
                                    badPropBones, numBones));
  }
  if (r.remaining() > 0)
    out.warnings.push_back(
        format("%zu bytes after the last section (from byte %zu) ignored", r.remaining(), r.offset()));

  // ---- Bones: rest states are absolute model-space transforms (flat skeleton).
  // Game-space matrices for the v1/v2 pre-skin, plus one identity slot for the bind-shape index.
  std::vector<BoneMatrix> rest(size_t(numBones) + 1);
  Skeleton& sk = out.skeleton;
  sk.names.reserve(numBones + 1);
  sk.parents.assign(numBones, -1);
  sk.restTranslation.resize(size_t(numBones) * 3);
  sk.restRotation.resize(size_t(numBones) * 4);
  size_t badBones = 0;
  for (uint32_t b = 0; b < numBones; ++b) {
    const uint8_t* p = data + boneOffset + size_t(b) * kBoneStateBytes;
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
  {
    const float t0[3] = {0, 0, 0}, q0[4] = {0, 0, 0, 1};
    rest[numBones] = boneMatrix(t0, q0);
  }
  if (badBones)
    out.warnings.push_back(
        format("%zu rest bone states hold NaN or infinite values; replaced by identity parts", badBones));

  // ---- Vertices: one pass.
  const bool boneRelative = layout <= 2;
  const bool skinned = numBones > 0;
  const size_t nv = numVertices;
  out.meshes.resize(1);
  Mesh& mesh = out.meshes[0];
  mesh.name = zeroad::fileStem(file);
  mesh.positions.resize(nv * 3);
  mesh.normals.resize(nv * 3);
  mesh.uvs.resize(nv > 0 ? numUvSets : 0);
  for (auto& set : mesh.uvs) set.resize(nv * 2);
  SkinBuilder skin(skinned ? nv : 0);

  size_t outOfRange = 0, negativeWeights = 0, zeroWeightVertices = 0, unboundVertices = 0, badFloats = 0;
  size_t badNormals = 0;
  size_t influences = 0;
  bool usesBindShape = false;
  const size_t blendAt = 24 + 8 * size_t(numUvSets);
  for (size_t v = 0; v < nv; ++v) {
    const uint8_t* p = data + vertexOffset + v * size_t(vertexBytes);
    float pos[3], nrm[3];
    for (int k = 0; k < 3; ++k) pos[k] = load_f32le(p + 4 * k);
    for (int k = 0; k < 3; ++k) nrm[k] = load_f32le(p + 12 + 4 * k);
    for (uint32_t s = 0; s < numUvSets; ++s) {
      // COLLADA/OpenGL UVs (v = 0 at the bottom of the image): exactly three's flipY convention.
      mesh.uvs[s][v * 2] = load_f32le(p + 24 + 8 * s);
      mesh.uvs[s][v * 2 + 1] = load_f32le(p + 28 + 8 * s);
    }

    // Blend: the first 0xFF ends the list; a zero weight is not an influence; index == numBones is
    // the bind shape (identity bone).
    const uint8_t* bones = p + blendAt;
    const uint8_t* weights = p + blendAt + 4;
    uint16_t ib[4];
    float iw[4];
    int n = 0, slots = 0, firstNamed = -1;
    for (int k = 0; k < 4 && bones[k] != 0xFF; ++k) {
      ++slots;
      const uint32_t b = bones[k];
      if (b > numBones) {
        ++outOfRange;
        continue;
      }
      if (firstNamed < 0) firstNamed = int(b);
      const float w = load_f32le(weights + 4 * k);
      if (!(w > 0.0f) || !std::isfinite(w)) {
        if (w != 0.0f) ++negativeWeights;
        continue;
      }
      ib[n] = uint16_t(b);
      iw[n] = w;
      ++n;
    }
    influences += size_t(n);
    if (n == 0 && skinned) {
      // The engine would sum nothing and collapse the vertex to the origin. Bind it rigidly: to the
      // first bone its blend names (zero weights), else to the bind shape (no influences at all).
      if (firstNamed >= 0) {
        ib[0] = uint16_t(firstNamed);
        ++zeroWeightVertices;
      } else {
        ib[0] = uint16_t(numBones);
        ++unboundVertices;
      }
      iw[0] = 1.0f;
      n = 1;
    }

    if (boneRelative && n > 0) {
      // Pre-skin with the rest pose exactly as CModelDef::Load does for v1/v2 (raw weights).
      float sp[3] = {0, 0, 0}, sn[3] = {0, 0, 0};
      for (int k = 0; k < n; ++k) {
        const BoneMatrix& M = rest[ib[k]];
        for (int i = 0; i < 3; ++i) {
          sp[i] += iw[k] * (M.m[i][0] * pos[0] + M.m[i][1] * pos[1] + M.m[i][2] * pos[2] + M.m[i][3]);
          sn[i] += iw[k] * (M.m[i][0] * nrm[0] + M.m[i][1] * nrm[1] + M.m[i][2] * nrm[2]);
        }
      }
      if (slots > 1) {
        float len = std::sqrt(sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]);
        if (len > 1e-20f)
          for (float& c : sn) c /= len;
      }
      std::memcpy(pos, sp, sizeof pos);
      std::memcpy(nrm, sn, sizeof nrm);
    }

    if (skinned) {
      for (int k = 0; k < n; ++k) {
        skin.add(v, ib[k], iw[k]);
        usesBindShape |= ib[k] == numBones;
      }
    }
    if (!zeroad::finite3(pos)) {  // checked after the pre-skin, which can overflow too
      ++badFloats;
      for (float& c : pos) c = std::isfinite(c) ? c : 0.0f;
    }
    if (!zeroad::finite3(nrm)) {
      ++badNormals;  // real files have them (skeleton.pmd); rebuilt from the faces below
      nrm[0] = nrm[1] = nrm[2] = std::numeric_limits<float>::quiet_NaN();
    }
    zeroad::mirrorVector(pos);
    zeroad::mirrorVector(nrm);
    std::memcpy(&mesh.positions[v * 3], pos, sizeof pos);
    std::memcpy(&mesh.normals[v * 3], nrm, sizeof nrm);
  }

  if (outOfRange)
    out.warnings.push_back(format("%zu blend slots name a bone past the %u bones (and the bind shape); ignored",
                                  outOfRange, numBones));
  if (negativeWeights)
    out.warnings.push_back(format("%zu blend slots have a negative or non-finite weight; ignored", negativeWeights));
  if (zeroWeightVertices)
    out.warnings.push_back(format(
        "%zu vertices have only zero-weight blends (the engine would collapse them to the origin); bound to "
        "their first bone with weight 1",
        zeroWeightVertices));
  if (unboundVertices)
    out.warnings.push_back(format("%zu vertices have no influences; bound to the bind shape", unboundVertices));
  if (badFloats)
    out.warnings.push_back(format("%zu vertex positions hold NaN or infinite values; set to 0", badFloats));

  if (skinned) {
    SkinStats ss = skin.finish(uint16_t(numBones));
    if (ss.renormalised)
      out.warnings.push_back(format("%zu vertices' weights did not sum to 1; renormalised", ss.renormalised));
    mesh.skinIndex = std::move(skin.index);
    mesh.skinWeight = std::move(skin.weight);
    if (usesBindShape) {
      sk.helper = int32_t(sk.names.size());
      sk.names.push_back("bind shape");
      sk.parents.push_back(-1);
      const float t0[3] = {0, 0, 0}, q0[4] = {0, 0, 0, 1};
      sk.restTranslation.insert(sk.restTranslation.end(), t0, t0 + 3);
      sk.restRotation.insert(sk.restRotation.end(), q0, q0 + 4);
    }
    sk.flat = true;
    out.hasSkeleton = true;
  } else {
    out.skeleton = Skeleton();
  }

  // ---- Faces: u16 triangles, index order kept (see zeroad_common.h).
  mesh.indices.reserve(size_t(numFaces) * 3);
  size_t badFaces = 0;
  for (size_t f = 0; f < numFaces; ++f) {
    const uint8_t* p = data + faceOffset + f * 6;
    const uint32_t a = load_u16le(p), b = load_u16le(p + 2), c = load_u16le(p + 4);
    if (a >= numVertices || b >= numVertices || c >= numVertices) {
      ++badFaces;
      continue;
    }
    mesh.indices.push_back(a);
    mesh.indices.push_back(b);
    mesh.indices.push_back(c);
  }
  if (badFaces)
    out.warnings.push_back(format("%zu faces index past the %u vertices; dropped", badFaces, numVertices));
  if (badNormals) {
    // Area-weighted face normals for the vertices whose file normal is NaN or infinite.
    std::vector<float> faceNormals(nv * 3, 0.0f);
    accumulateFaceNormals(mesh.positions.data(), mesh.indices.data(), mesh.indices.size(), faceNormals.data());
    normalizeNormals(faceNormals.data(), nv);
    for (size_t v = 0; v < nv; ++v)
      if (!zeroad::finite3(&mesh.normals[v * 3])) std::memcpy(&mesh.normals[v * 3], &faceNormals[v * 3], 12);
    out.warnings.push_back(
        format("%zu vertex normals hold NaN or infinite values; rebuilt from the faces", badNormals));
  }
  const uint32_t triangles = uint32_t(mesh.indices.size() / 3);
  mesh.groups.push_back(Group{0, uint32_t(mesh.indices.size()), 0});

  Material mat;
  mat.name = mesh.name;
  mat.blend = Blend::Opaque;
  out.materials.push_back(mat);

  out.count("version", version);
  out.count("vertices", numVertices);
  out.count("faces", numFaces);
  out.count("triangles", triangles);
  out.count("uvSets", numUvSets);
  out.count("bones", numBones);
  out.count("props", numProps);
  out.count("influences", double(influences));
  out.info.emplace_back("version", std::to_string(version));
  if (boneRelative) out.info.emplace_back("vertices", "bone-relative (pre-skinned with the rest pose)");
  if (usesBindShape) out.info.emplace_back("bind shape", format("bone %u is the identity bind-shape bone", numBones));
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
