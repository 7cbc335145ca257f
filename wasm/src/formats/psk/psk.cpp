// Unreal ActorX skeletal/static mesh (.psk, .pskx). Spec: shared/specs/psk-psa.md.
//
// One pass over the chunk headers records where each record block lives (chunks come in any order,
// and the wedge masking rule needs the point count first); then each block is decoded once into
// arrays reserved from its validated count. One render vertex per wedge; skin weights live on
// points and are gathered to wedges.
#include "formats/psk/psk.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "convert/math.h"
#include "convert/skin.h"
#include "formats/psk/chunk.h"
#include "io/byte_reader.h"

namespace rs {
namespace {

using actorx::ChunkHeader;
using actorx::Span;

constexpr size_t kSocketRecord = 164;  // what CUE4Parse's VSocket.Serialize writes, whatever DataSize says

// Ids that can follow a SKELSOCK chunk; used to find our footing after its DataSize lie.
bool isKnownMeshId(const ChunkHeader& h) {
  static const char* const ids[] = {"ACTRHEAD", "PNTS0000", "VTXW0000", "VTXW3200", "FACE0000",
                                    "FACE3200", "MATT0000", "REFSKELT", "REFSKEL0", "RAWWEIGHTS",
                                    "RAWW0000", "VERTEXCOLOR", "VTXNORMS", "MRPHINFO", "MRPHDATA",
                                    "SKELSOCK"};
  for (const char* id : ids)
    if (actorx::idIs(h, id)) return true;
  return actorx::idStarts(h, "EXTRAUV");
}

// True when a plausible chunk header of a known id starts at `pos` (or `pos` is the end of file).
bool chunkStartsAt(const uint8_t* data, size_t size, size_t pos) {
  if (pos == size) return true;
  if (pos > size || size - pos < actorx::kHeaderSize) return false;
  ChunkHeader h = actorx::loadChunkHeader(data + pos);
  if (!isKnownMeshId(h) || h.dataSize < 0 || h.dataCount < 0) return false;
  return uint64_t(h.dataSize) * uint64_t(h.dataCount) <= size - pos - actorx::kHeaderSize;
}

void sanitizeQuat(float* q) { normalizeQuat(q); }

// Unreal FRotator (pitch, yaw, roll in degrees) to a quaternion, Unreal's own formula.
void rotatorToQuat(float pitch, float yaw, float roll, float* q) {
  const double d2r = 3.14159265358979323846 / 360.0;  // half angle in radians
  double sp = std::sin(pitch * d2r), cp = std::cos(pitch * d2r);
  double sy = std::sin(yaw * d2r), cy = std::cos(yaw * d2r);
  double sr = std::sin(roll * d2r), cr = std::cos(roll * d2r);
  q[0] = float(cr * sp * sy - sr * cp * cy);
  q[1] = float(-cr * sp * cy - sr * cp * sy);
  q[2] = float(cr * cp * sy - sr * sp * cy);
  q[3] = float(cr * cp * cy + sr * sp * sy);
  normalizeQuat(q);
}

std::string foldCase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Chunks {
  Span points, wedges, faces, materials, bones, weights, colors, normals, morphInfo, morphData;
  bool face32 = false;
  std::vector<Span> extraUvs;
  std::vector<Span> sockets;  // stride = 164, count = records actually present
  uint32_t headTypeFlag = 0;
  bool headSeen = false;
};

class PskDecoder {
 public:
  PskDecoder(const uint8_t* data, size_t size, const std::string& file, Model& out)
      : data_(data), size_(size), file_(file), out_(out) {}

  Status run() {
    Status s = scan();
    if (!s.ok()) return s;
    return build();
  }

 private:
  void warn(std::string w) { out_.warnings.push_back(std::move(w)); }

  bool essentialsRead() const { return c_.points.present && c_.wedges.present && c_.faces.present; }

  // The rest of the file is unreadable: keep what we have if the mesh itself was read.
  Status stop(size_t offset, const std::string& what) {
    if (essentialsRead()) {
      warn(format("file cut short or damaged: %s at byte %zu; the mesh was read, the rest of the file was ignored",
                  what.c_str(), offset));
      return Status();
    }
    return fail("PSK", file_, offset, "%s", what.c_str());
  }

  // Records one chunk's block. Repeated single chunks keep the first and say so.
  void keep(Span& slot, const ChunkHeader& h, size_t pos) {
    if (!actorx::keepSpan(slot, data_, h, pos))
      warn(format("chunk %s at byte %zu repeats an earlier one; ignored", h.id, pos));
  }

  Status scan() {
    size_t pos = 0;
    while (pos < size_) {
      if (size_ - pos < actorx::kHeaderSize) {
        return stop(pos, format("chunk header cut short (%zu of 32 bytes)", size_ - pos));
      }
      ChunkHeader h = actorx::loadChunkHeader(data_ + pos);
      if (pos == 0 && !actorx::idIs(h, "ACTRHEAD")) {
        return fail("PSK", file_, 0, "file does not start with an ACTRHEAD chunk (found \"%s\")", h.id);
      }
      if (h.dataSize < 0 || h.dataCount < 0) {
        return stop(pos, format("chunk %s declares DataSize %d and DataCount %d", h.id, h.dataSize, h.dataCount));
      }
      const size_t body = pos + actorx::kHeaderSize;
      const uint64_t bytes = uint64_t(h.dataSize) * uint64_t(h.dataCount);
      const size_t remain = size_ - body;

      if (actorx::idIs(h, "SKELSOCK")) {
        // Declared DataSize has been 138 or 168 while 164 bytes are written per socket.
        uint64_t real = uint64_t(kSocketRecord) * uint64_t(h.dataCount);
        size_t next = 0;
        if (real <= remain && chunkStartsAt(data_, size_, body + size_t(real))) {
          next = body + size_t(real);
        } else if (bytes <= remain && chunkStartsAt(data_, size_, body + size_t(bytes))) {
          next = body + size_t(bytes);
        } else {
          next = size_;
          for (size_t q = body; q + actorx::kHeaderSize <= size_; ++q) {
            if (data_[q] >= 'A' && data_[q] <= 'Z' && chunkStartsAt(data_, size_, q)) {
              next = q;
              break;
            }
          }
        }
        if (uint64_t(h.dataSize) != kSocketRecord) {
          warn(format("SKELSOCK at byte %zu declares %d-byte records; read %zu-byte sockets", pos, h.dataSize,
                      kSocketRecord));
        }
        Span sp;
        sp.p = data_ + body;
        sp.stride = uint32_t(kSocketRecord);
        sp.count = uint32_t(std::min<uint64_t>(uint64_t(h.dataCount), (next - body) / kSocketRecord));
        sp.offset = pos;
        sp.present = true;
        if (sp.count < uint32_t(h.dataCount)) {
          warn(format("SKELSOCK at byte %zu declares %d sockets, %u are present", pos, h.dataCount, sp.count));
        }
        c_.sockets.push_back(sp);
        pos = next;
        continue;
      }

      if (bytes > remain) {
        return stop(pos, format("chunk %s declares %d records of %d bytes, %zu bytes remain", h.id, h.dataCount,
                                h.dataSize, remain));
      }

      if (actorx::idIs(h, "ACTRHEAD")) {
        if (!c_.headSeen) c_.headTypeFlag = h.typeFlag;
        c_.headSeen = true;
      } else if (actorx::idIs(h, "PNTS0000")) {
        keep(c_.points, h, pos);
      } else if (actorx::idIs(h, "VTXW0000") || actorx::idIs(h, "VTXW3200")) {
        keep(c_.wedges, h, pos);
      } else if (actorx::idIs(h, "FACE0000") || actorx::idIs(h, "FACE3200")) {
        if (!c_.faces.present) c_.face32 = actorx::idIs(h, "FACE3200");
        keep(c_.faces, h, pos);
      } else if (actorx::idIs(h, "MATT0000")) {
        keep(c_.materials, h, pos);
      } else if (actorx::idIs(h, "REFSKELT") || actorx::idIs(h, "REFSKEL0")) {
        keep(c_.bones, h, pos);
      } else if (actorx::idIs(h, "RAWWEIGHTS") || actorx::idIs(h, "RAWW0000")) {
        keep(c_.weights, h, pos);
      } else if (actorx::idIs(h, "VERTEXCOLOR")) {
        keep(c_.colors, h, pos);
      } else if (actorx::idIs(h, "VTXNORMS")) {
        keep(c_.normals, h, pos);
      } else if (actorx::idIs(h, "MRPHINFO")) {
        keep(c_.morphInfo, h, pos);
      } else if (actorx::idIs(h, "MRPHDATA")) {
        keep(c_.morphData, h, pos);
      } else if (actorx::idStarts(h, "EXTRAUV")) {
        Span sp;
        keep(sp, h, pos);
        c_.extraUvs.push_back(sp);
      } else {
        warn(format("skipped unknown chunk \"%s\" at byte %zu (%llu bytes)", h.id, pos, (unsigned long long)bytes));
      }
      pos = body + size_t(bytes);
    }
    return Status();
  }

  // Essential blocks must hold the fields we read; optional ones are dropped with a warning.
  Status needStride(const Span& s, uint32_t need, const char* what) {
    if (s.present && s.count > 0 && s.stride < need) {
      return fail("PSK", file_, s.offset, "chunk %s has %u-byte records, at least %u needed", what, s.stride, need);
    }
    return Status();
  }
  bool optionalStride(Span& s, uint32_t need, const char* what) {
    if (s.present && s.count > 0 && s.stride < need) {
      warn(format("chunk %s at byte %zu has %u-byte records, at least %u needed; ignored", what, s.offset, s.stride,
                  need));
      s = Span();
      return false;
    }
    return s.present;
  }

  Status build();

  const uint8_t* data_;
  size_t size_;
  const std::string& file_;
  Model& out_;
  Chunks c_;
};

Status PskDecoder::build() {
  Status s = needStride(c_.points, 12, "PNTS0000");
  if (!s.ok()) return s;
  s = needStride(c_.wedges, 16, "VTXW0000");
  if (!s.ok()) return s;
  s = needStride(c_.faces, c_.face32 ? 18 : 12, c_.face32 ? "FACE3200" : "FACE0000");
  if (!s.ok()) return s;
  if (!c_.points.present) return fail("PSK", file_, size_, "no PNTS0000 chunk");
  if (!c_.wedges.present) return fail("PSK", file_, size_, "no VTXW0000 chunk");
  if (!c_.faces.present) return fail("PSK", file_, size_, "no FACE0000 or FACE3200 chunk");
  optionalStride(c_.materials, 88, "MATT0000");
  optionalStride(c_.bones, 120, "REFSKELT");
  optionalStride(c_.weights, 12, "RAWWEIGHTS");
  optionalStride(c_.colors, 4, "VERTEXCOLOR");
  optionalStride(c_.normals, 12, "VTXNORMS");
  optionalStride(c_.morphInfo, 68, "MRPHINFO");
  optionalStride(c_.morphData, 28, "MRPHDATA");

  const size_t P = c_.points.count;
  const size_t W = c_.wedges.count;
  const size_t F = c_.faces.count;
  const size_t B = c_.bones.present ? c_.bones.count : 0;
  const size_t M = c_.materials.present ? c_.materials.count : 0;
  if (W > 0 && P == 0) return fail("PSK", file_, c_.wedges.offset, "%zu wedges but PNTS0000 has no points", W);
  if (B > 65535) return fail("PSK", file_, c_.bones.offset, "REFSKELT declares %zu bones, at most 65535 supported", B);

  out_.format = "psk";
  out_.bindBy = "name";
  out_.name = file_;
  out_.meshes.emplace_back();
  Mesh& mesh = out_.meshes.back();
  mesh.name = file_;

  // Points, already in three.js space.
  std::vector<float> pointPos(P * 3);
  {
    const uint8_t* p = c_.points.p;
    const size_t st = c_.points.stride;
    for (size_t i = 0; i < P; ++i, p += st) {
      float* d = &pointPos[i * 3];
      d[0] = load_f32le(p);
      d[1] = load_f32le(p + 8);
      d[2] = -load_f32le(p + 4);
    }
  }

  // Wedges: point index as u32, masked to 16 bits when the point count fits (ActorX junk).
  std::vector<uint32_t> wedgePoint(W);
  mesh.positions.resize(W * 3);
  mesh.uvs.emplace_back(W * 2);
  {
    const uint32_t mask = P <= 65536 ? 0xFFFFu : 0xFFFFFFFFu;
    size_t clamped = 0, junk = 0;
    float* uv = mesh.uvs[0].data();
    const uint8_t* p = c_.wedges.p;
    const size_t st = c_.wedges.stride;
    for (size_t i = 0; i < W; ++i, p += st) {
      uint32_t raw = load_u32le(p);
      uint32_t pt = raw & mask;
      junk += pt != raw;
      if (pt >= P) {
        pt = 0;
        ++clamped;
      }
      wedgePoint[i] = pt;
      std::memcpy(&mesh.positions[i * 3], &pointPos[size_t(pt) * 3], 12);
      uv[i * 2] = load_f32le(p + 4);
      uv[i * 2 + 1] = 1.0f - load_f32le(p + 8);
    }
    if (junk) out_.info.emplace_back("wedgeIndexMasked", format("%zu wedges had junk in the high 16 bits", junk));
    if (clamped) warn(format("%zu wedges referenced points past the %zu in PNTS0000; set to point 0", clamped, P));
  }

  // Materials.
  out_.materials.reserve(M + 1);
  for (size_t i = 0; i < M; ++i) {
    const uint8_t* p = c_.materials.p + i * c_.materials.stride;
    Material m;
    m.name = fixedName(p, 64);
    m.textureNames.push_back(m.name);
    uint32_t flags = load_u32le(p + 68);
    switch (flags & 0xF) {
      case 1: m.twoSided = true; break;
      case 2: m.blend = Blend::Translucent; break;
      case 3: m.blend = Blend::Masked; break;
      case 4: m.blend = Blend::Modulated; break;
      case 8: m.hidden = true; break;
      default: break;
    }
    m.unlit = (flags & 0x10) != 0;
    m.flat = (flags & 0x20) != 0;
    m.environment = (flags & 0x40) != 0;
    out_.materials.push_back(std::move(m));
  }

  // Faces: drop those with out-of-range wedges, clamp materials to a placeholder, then sort by
  // material with a counting sort into contiguous groups. Winding (w0, w1, w2) -> (w0, w2, w1).
  struct Face {
    uint32_t w[3];
    uint32_t sg;
  };
  std::vector<Face> faces(F);
  std::vector<uint16_t> faceMat(F);
  size_t kept = 0, dropped = 0, badMat = 0;
  uint32_t bucketCount[257] = {};
  {
    const uint8_t* p = c_.faces.p;
    const size_t st = c_.faces.stride;
    const uint16_t placeholder = uint16_t(M > 256 ? 256 : M);
    for (size_t i = 0; i < F; ++i, p += st) {
      uint32_t a, b, c;
      uint8_t mat;
      uint32_t sg;
      if (c_.face32) {
        a = load_u32le(p);
        b = load_u32le(p + 4);
        c = load_u32le(p + 8);
        mat = p[12];
        sg = load_u32le(p + 14);
      } else {
        a = load_u16le(p);
        b = load_u16le(p + 2);
        c = load_u16le(p + 4);
        mat = p[6];
        sg = load_u32le(p + 8);
      }
      if (a >= W || b >= W || c >= W) {
        ++dropped;
        continue;
      }
      uint16_t m = mat;
      if (m >= M) {
        m = placeholder;
        ++badMat;
      }
      faces[kept] = Face{{a, c, b}, sg};
      faceMat[kept] = m;
      ++bucketCount[m];
      ++kept;
    }
    faces.resize(kept);
    faceMat.resize(kept);
    if (dropped) warn(format("dropped %zu faces whose wedge indices exceed the %zu wedges", dropped, W));
    if (badMat) {
      warn(format("%zu faces use a material index past the %zu in MATT0000; drawn with a placeholder material",
                  badMat, M));
      Material m;
      m.name = "placeholder";
      out_.materials.push_back(m);
    }
  }
  {
    uint32_t start[257];
    uint32_t run = 0;
    for (int m = 0; m < 257; ++m) {
      start[m] = run;
      if (bucketCount[m]) mesh.groups.push_back(Group{run * 3, bucketCount[m] * 3, uint32_t(m)});
      run += bucketCount[m];
    }
    mesh.indices.resize(kept * 3);
    uint32_t* idx = mesh.indices.data();
    for (size_t i = 0; i < kept; ++i) {
      uint32_t at = start[faceMat[i]]++ * 3;
      idx[at] = faces[i].w[0];
      idx[at + 1] = faces[i].w[1];
      idx[at + 2] = faces[i].w[2];
    }
  }

  // Normals: VTXNORMS per point when present, else smoothing-group normals.
  mesh.normals.assign(W * 3, 0.0f);
  bool fileNormals = false;
  if (c_.normals.present && c_.normals.count != P) {
    warn(format("VTXNORMS has %u records for %zu points; ignored", c_.normals.count, P));
  } else if (c_.normals.present) {
    fileNormals = true;
    const uint8_t* base = c_.normals.p;
    const size_t st = c_.normals.stride;
    for (size_t i = 0; i < W; ++i) {
      const uint8_t* p = base + size_t(wedgePoint[i]) * st;
      float* n = &mesh.normals[i * 3];
      n[0] = load_f32le(p);
      n[1] = load_f32le(p + 8);
      n[2] = -load_f32le(p + 4);
    }
  } else {
    // Face normals (area weighted) from the CCW, converted triangles.
    auto faceNormal = [&](size_t f, float* o) {
      const float* a = &pointPos[size_t(wedgePoint[faces[f].w[0]]) * 3];
      const float* b = &pointPos[size_t(wedgePoint[faces[f].w[1]]) * 3];
      const float* c = &pointPos[size_t(wedgePoint[faces[f].w[2]]) * 3];
      float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      o[0] = e1[1] * e2[2] - e1[2] * e2[1];
      o[1] = e1[2] * e2[0] - e1[0] * e2[2];
      o[2] = e1[0] * e2[1] - e1[1] * e2[0];
    };
    bool uniform = true;
    const uint32_t sg0 = kept ? faces[0].sg : 0;
    for (size_t f = 0; f < kept; ++f) uniform &= faces[f].sg == sg0;
    std::vector<float> fn;
    if (uniform && sg0 != 0) {
      // Every face in one smoothing group (UE Viewer, CUE4Parse write 1): plain per-point average,
      // accumulated straight from the faces (no per-face array), normalised once per point.
      std::vector<float> pn(P * 3, 0.0f);
      for (size_t f = 0; f < kept; ++f) {
        float n3[3];
        faceNormal(f, n3);
        for (int k = 0; k < 3; ++k) {
          float* d = &pn[size_t(wedgePoint[faces[f].w[k]]) * 3];
          d[0] += n3[0];
          d[1] += n3[1];
          d[2] += n3[2];
        }
      }
      normalizeNormals(pn.data(), P);
      for (size_t i = 0; i < W; ++i) std::memcpy(&mesh.normals[i * 3], &pn[size_t(wedgePoint[i]) * 3], 12);
    } else {
      // General case (ActorX smoothing bitmasks): a wedge averages the faces around its point that
      // share a bit with the faces using the wedge; group-0 faces are flat (only their own normal).
      fn.resize(kept * 3);
      for (size_t f = 0; f < kept; ++f) faceNormal(f, &fn[f * 3]);
      std::vector<uint32_t> wedgeMask(W, 0);
      float* n = mesh.normals.data();
      for (size_t f = 0; f < kept; ++f)
        for (int k = 0; k < 3; ++k) {
          size_t w = faces[f].w[k];
          if (faces[f].sg == 0) {
            n[w * 3] += fn[f * 3];
            n[w * 3 + 1] += fn[f * 3 + 1];
            n[w * 3 + 2] += fn[f * 3 + 2];
          } else {
            wedgeMask[w] |= faces[f].sg;
          }
        }
      // point -> faces (CSR)
      std::vector<uint32_t> first(P + 1, 0);
      for (size_t f = 0; f < kept; ++f)
        for (int k = 0; k < 3; ++k) ++first[wedgePoint[faces[f].w[k]] + 1];
      for (size_t i = 0; i < P; ++i) first[i + 1] += first[i];
      std::vector<uint32_t> adj(kept * 3);
      {
        std::vector<uint32_t> fill(first.begin(), first.end() - 1);
        for (size_t f = 0; f < kept; ++f)
          for (int k = 0; k < 3; ++k) adj[fill[wedgePoint[faces[f].w[k]]]++] = uint32_t(f);
      }
      // Bounded work: a hostile file with every wedge on one point would be quadratic; past the
      // budget the remaining wedges fall back to the point's plain average.
      uint64_t budget = 64ull * adj.size() + (1u << 20);
      std::vector<float> pointSum;
      for (size_t w = 0; w < W; ++w) {
        uint32_t m = wedgeMask[w];
        if (!m) continue;
        uint32_t pt = wedgePoint[w];
        uint32_t lo = first[pt], hi = first[pt + 1];
        float* d = &n[w * 3];
        if (hi - lo <= budget) {
          budget -= hi - lo;
            for (uint32_t j = lo; j < hi; ++j) {
            size_t f = adj[j];
            if (faces[f].sg & m) {
              d[0] += fn[f * 3];
              d[1] += fn[f * 3 + 1];
              d[2] += fn[f * 3 + 2];
            }
          }
        } else {
          if (pointSum.empty()) {
            pointSum.assign(P * 3, 0.0f);
            for (size_t f = 0; f < kept; ++f)
              for (int k = 0; k < 3; ++k) {
                float* s3 = &pointSum[size_t(wedgePoint[faces[f].w[k]]) * 3];
                s3[0] += fn[f * 3];
                s3[1] += fn[f * 3 + 1];
                s3[2] += fn[f * 3 + 2];
              }
            warn("smoothing groups too dense to resolve; some normals averaged per point");
          }
          const float* s3 = &pointSum[size_t(pt) * 3];
          d[0] += s3[0];
          d[1] += s3[1];
          d[2] += s3[2];
        }
      }
      normalizeNormals(mesh.normals.data(), W);
    }
  }

  // Extra UV sets, appended in file order.
  for (Span& sp : c_.extraUvs) {
    if (!optionalStride(sp, 8, "EXTRAUV")) continue;
    if (sp.count != W) {
      warn(format("extra UV chunk at byte %zu has %u records for %zu wedges; ignored", sp.offset, sp.count, W));
      continue;
    }
    mesh.uvs.emplace_back(W * 2);
    float* uv = mesh.uvs.back().data();
    const uint8_t* p = sp.p;
    for (size_t i = 0; i < W; ++i, p += sp.stride) {
      uv[i * 2] = load_f32le(p);
      uv[i * 2 + 1] = 1.0f - load_f32le(p + 4);
    }
  }

  // Vertex colours: Epic ActorX 2.x-3.0 wrote BGRA, everything else RGBA.
  if (c_.colors.present && c_.colors.count != W) {
    warn(format("VERTEXCOLOR has %u records for %zu wedges; ignored", c_.colors.count, W));
  } else if (c_.colors.present) {
    const bool bgra = c_.headTypeFlag >= 2003321u && c_.headTypeFlag <= 20090127u;
    out_.info.emplace_back("vertexColorOrder", bgra ? "BGRA" : "RGBA");
    mesh.colors.resize(W * 4);
    uint8_t* d = mesh.colors.data();
    const uint8_t* p = c_.colors.p;
    for (size_t i = 0; i < W; ++i, p += c_.colors.stride, d += 4) {
      d[0] = p[bgra ? 2 : 0];
      d[1] = p[1];
      d[2] = p[bgra ? 0 : 2];
      d[3] = p[3];
    }
  }

  // point -> wedges (CSR), for morph expansion.
  std::vector<uint32_t> pwFirst, pwList;
  const size_t morphCount = c_.morphInfo.present ? c_.morphInfo.count : 0;
  if (morphCount) {
    pwFirst.assign(P + 1, 0);
    for (size_t i = 0; i < W; ++i) ++pwFirst[wedgePoint[i] + 1];
    for (size_t i = 0; i < P; ++i) pwFirst[i + 1] += pwFirst[i];
    pwList.resize(W);
    std::vector<uint32_t> fill(pwFirst.begin(), pwFirst.end() - 1);
    for (size_t i = 0; i < W; ++i) pwList[fill[wedgePoint[i]]++] = uint32_t(i);
  }
  {
    const size_t dataCount = c_.morphData.present ? c_.morphData.count : 0;
    size_t next = 0, skipped = 0, missing = 0;
    // Refuse morph storage far beyond what the file could describe (each morph is W*3 floats,
    // zero-filled, while its deltas may be few): at most 16 floats per input byte (16 MB for any
    // file) and 256 MB in all. 200 morph targets of a 20,000-wedge mesh need 12 M floats.
    const uint64_t budgetFloats = std::min<uint64_t>(1ull << 26, std::max<uint64_t>(1ull << 22, 16ull * size_));
    for (size_t m = 0; m < morphCount; ++m) {
      const uint8_t* ip = c_.morphInfo.p + m * c_.morphInfo.stride;
      int32_t declared = load_i32le(ip + 64);
      if ((uint64_t(mesh.morphs.size()) + 1) * W * 3 > budgetFloats) {
        warn(format("%zu morph targets of %zu wedges exceed the memory budget; the rest were ignored",
                    morphCount, W));
        break;
      }
      Morph mo;
      mo.name = fixedName(ip, 64);
      mo.positions.assign(W * 3, 0.0f);
      std::vector<float> nrm(W * 3, 0.0f);
      bool anyNormal = false;
      size_t want = declared > 0 ? size_t(declared) : 0;
      if (want > dataCount - next) {
        missing += want - (dataCount - next);
        want = dataCount - next;
      }
      for (size_t k = 0; k < want; ++k, ++next) {
        const uint8_t* p = c_.morphData.p + next * c_.morphData.stride;
        uint32_t pt = load_u32le(p + 24);
        if (pt >= P) {
          ++skipped;
          continue;
        }
        // Deltas are in un-mirrored Unreal space: negate y, then Z-up -> Y-up: (x, -y, z) -> (x, z, y).
        float dp[3] = {load_f32le(p), load_f32le(p + 8), load_f32le(p + 4)};
        float dn[3] = {load_f32le(p + 12), load_f32le(p + 20), load_f32le(p + 16)};
        anyNormal |= dn[0] != 0.0f || dn[1] != 0.0f || dn[2] != 0.0f;
        for (uint32_t j = pwFirst[pt]; j < pwFirst[pt + 1]; ++j) {
          uint32_t w = pwList[j];
          std::memcpy(&mo.positions[size_t(w) * 3], dp, 12);
          std::memcpy(&nrm[size_t(w) * 3], dn, 12);
        }
      }
      if (anyNormal) mo.normals = std::move(nrm);
      mesh.morphs.push_back(std::move(mo));
    }
    if (skipped) warn(format("skipped %zu morph deltas whose point index exceeds the %zu points", skipped, P));
    if (missing) warn(format("MRPHINFO declares %zu more morph deltas than MRPHDATA holds", missing));
    if (next < dataCount)
      warn(format("MRPHDATA has %zu records no morph target claims", dataCount - next));
  }

  // Skeleton.
  size_t influences = c_.weights.present ? c_.weights.count : 0;
  if (B > 0) {
    out_.hasSkeleton = true;
    Skeleton& sk = out_.skeleton;
    sk.names.resize(B);
    sk.parents.resize(B);
    sk.restTranslation.resize(B * 3);
    sk.restRotation.resize(B * 4);
    size_t badParents = 0;
    for (size_t i = 0; i < B; ++i) {
      const uint8_t* p = c_.bones.p + i * c_.bones.stride;
      sk.names[i] = fixedName(p, 64);
      int32_t parent = load_i32le(p + 72);
      if (i == 0) {
        if (parent != -1 && parent != 0) ++badParents;
        parent = -1;
      } else if (parent < 0 || size_t(parent) >= B || size_t(parent) == i) {
        ++badParents;
        parent = 0;
      }
      sk.parents[i] = parent;
      float q[4] = {load_f32le(p + 76), load_f32le(p + 80), load_f32le(p + 84), load_f32le(p + 88)};
      if (i != 0) {
        q[0] = -q[0];
        q[1] = -q[1];
        q[2] = -q[2];
      }
      sanitizeQuat(q);
      float* r = &sk.restRotation[i * 4];
      r[0] = q[0];
      r[1] = q[2];
      r[2] = -q[1];
      r[3] = q[3];
      float* t = &sk.restTranslation[i * 3];
      t[0] = load_f32le(p + 92);
      t[1] = load_f32le(p + 100);
      t[2] = -load_f32le(p + 96);
    }
    if (badParents) warn(format("%zu bones had an invalid parent index; attached to the root", badParents));
    // Break cycles: walk each chain; a bone met again on the current walk is reparented to the root.
    {
      std::vector<uint8_t> state(B, 0);  // 0 new, 1 on the current walk, 2 done
      if (!state.empty()) state[0] = 2;  // the root ends every walk
      std::vector<uint32_t> path;
      size_t cycles = 0;
      for (size_t i = 1; i < B; ++i) {
        path.clear();
        size_t b = i;
        while (state[b] == 0) {
          state[b] = 1;
          path.push_back(uint32_t(b));
          size_t par = size_t(sk.parents[b]);
          if (state[par] == 1) {
            sk.parents[b] = 0;
            ++cycles;
            break;
          }
          b = par;
        }
        for (uint32_t v : path) state[v] = 2;
      }
      if (cycles) warn(format("broke %zu cycles in the bone hierarchy by attaching bones to the root", cycles));
    }

    SkinBuilder skin(P);
    size_t badInfluence = 0;
    for (size_t i = 0; i < influences; ++i) {
      const uint8_t* p = c_.weights.p + i * c_.weights.stride;
      float w = load_f32le(p);
      uint32_t pt = load_u32le(p + 4);
      uint32_t bone = load_u32le(p + 8);
      if (pt >= P || bone >= B) {
        ++badInfluence;
        continue;
      }
      skin.add(pt, uint16_t(bone), w);
    }
    SkinStats st = skin.finish(0);
    if (badInfluence) warn(format("dropped %zu influences with a point or bone index out of range", badInfluence));
    if (influences == 0) {
      warn("no RAWWEIGHTS records: every vertex bound to bone 0 with weight 1");
    } else {
      if (st.truncated)
        warn(format("%zu points had more than 4 influences; kept the 4 strongest (largest dropped weight %.3g)",
                    st.truncated, double(st.maxDropped)));
      if (st.renormalised) warn(format("%zu points had weights not summing to 1; renormalised", st.renormalised));
      if (st.unweighted) warn(format("%zu points had no influence; bound to bone 0", st.unweighted));
      if (st.rejected) warn(format("ignored %zu influences with zero, negative or non-finite weight", st.rejected));
    }
    gatherSkin(skin, wedgePoint.data(), W, mesh.skinIndex, mesh.skinWeight);
  } else if (influences > 0) {
    warn(format("RAWWEIGHTS has %zu records but there are no bones; ignored", influences));
  }

  // Sockets -> attachments, bone looked up by name (exact, then case-insensitive), through maps
  // built once: thousands of sockets against thousands of bones stay linear.
  size_t unknownSocketBones = 0;
  std::unordered_map<std::string, int32_t> boneExact, boneFolded;
  if (!c_.sockets.empty()) {
    for (size_t b = 0; b < out_.skeleton.names.size(); ++b) {
      boneExact.emplace(out_.skeleton.names[b], int32_t(b));
      boneFolded.emplace(foldCase(out_.skeleton.names[b]), int32_t(b));
    }
  }
  for (const Span& sp : c_.sockets) {
    for (size_t i = 0; i < sp.count; ++i) {
      const uint8_t* p = sp.p + i * kSocketRecord;
      Attachment a;
      a.name = fixedName(p, 64);
      std::string boneName = fixedName(p + 64, 64);
      const auto exact = boneExact.find(boneName);
      const auto folded = exact == boneExact.end() ? boneFolded.find(foldCase(boneName)) : boneFolded.end();
      a.bone = exact != boneExact.end() ? exact->second : folded != boneFolded.end() ? folded->second : -1;
      if (a.bone < 0) ++unknownSocketBones;
      a.translation[0] = load_f32le(p + 128);
      a.translation[1] = load_f32le(p + 136);
      a.translation[2] = -load_f32le(p + 132);
      float q[4];
      rotatorToQuat(load_f32le(p + 140), load_f32le(p + 144), load_f32le(p + 148), q);
      a.rotation[0] = q[0];
      a.rotation[1] = q[2];
      a.rotation[2] = -q[1];
      a.rotation[3] = q[3];
      out_.attachments.push_back(std::move(a));
    }
  }
  if (unknownSocketBones) warn(format("%zu sockets name a bone the skeleton lacks; attached to the model root",
                                      unknownSocketBones));

  out_.count("points", double(P));
  out_.count("wedges", double(W));
  out_.count("faces", double(F));
  out_.count("materials", double(M));
  out_.count("bones", double(B));
  out_.count("influences", double(influences));
  out_.count("vertices", double(W));
  out_.count("triangles", double(kept));
  out_.count("morphs", double(mesh.morphs.size()));
  out_.count("uvSets", double(mesh.uvs.size()));
  out_.count("colors", mesh.colors.empty() ? 0 : 1);
  out_.count("normals", fileNormals ? 1 : 0);
  if (!out_.attachments.empty()) out_.count("sockets", double(out_.attachments.size()));
  out_.info.emplace_back("typeFlag", format("%u", c_.headTypeFlag));
  out_.info.emplace_back("faceChunk", c_.face32 ? "FACE3200" : "FACE0000");
  out_.info.emplace_back("normalsFrom", fileNormals ? "VTXNORMS" : "smoothing groups");
  return Status();
}

}  // namespace

Status decodePsk(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  if (!data && size) return fail("PSK", file, 0, "no data");
  PskDecoder d(data, size, file, out);
  return d.run();
}

}  // namespace rs
