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

#include "convert/chunks.h"
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
  static const char* const ids[] = {"ACTRHEAD", "PNTS0000", "VTXW0000", "VTXW3200",   "FACE0000", "FACE3200",
                                    "MATT0000", "REFSKELT", "REFSKEL0", "RAWWEIGHTS", "RAWW0000", "VERTEXCOLOR",
                                    "VTXNORMS", "MRPHINFO", "MRPHDATA", "SKELSOCK"};
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

// Where each record block lives (spec §2): chunks come in any order, and the wedge masking rule
// needs the point count first, so the whole file is scanned before any record is read.
struct Chunks {
  Span points, wedges, faces, materials, bones, weights, colors, normals, morphInfo, morphData;
  bool face32 = false;
  std::vector<Span> extraUvs;
  std::vector<Span> sockets;  // stride = 164, count = records actually present
  uint32_t headTypeFlag = 0;
  bool headSeen = false;
};

// What every step shares: the file's name for messages and the model it fills.
struct Context {
  const uint8_t* data;
  size_t size;
  const std::string& file;
  Model& out;
  void warn(std::string w) { out.warnings.push_back(std::move(w)); }
};

// FACE0000 / FACE3200 records that survived validation, in file order.
struct Face {
  uint32_t w[3];  // wedges, already in three's winding (w0, w2, w1)
  uint32_t sg;    // smoothing groups
};
struct Faces {
  std::vector<Face> list;
  std::vector<uint16_t> material;  // per face; M (clamped to 256) is the placeholder
  uint32_t perMaterial[257] = {};  // faces per material, for the counting sort
};

// ---- scanning ---------------------------------------------------------------------------------

bool essentialsRead(const Chunks& c) { return c.points.present && c.wedges.present && c.faces.present; }

// The rest of the file is unreadable: keep what we have if the mesh itself was read.
Status stop(Context& cx, const Chunks& c, size_t offset, const std::string& what) {
  if (essentialsRead(c)) {
    cx.warn(format("file cut short or damaged: %s at byte %zu; the mesh was read, the rest of the file was ignored",
                   what.c_str(), offset));
    return Status();
  }
  return fail("PSK", cx.file, offset, "%s", what.c_str());
}

// Records one chunk's block. Repeated single chunks keep the first and say so.
void keep(Context& cx, Span& slot, const ChunkHeader& h, size_t pos) {
  if (!actorx::keepSpan(slot, cx.data, h, pos))
    cx.warn(format("chunk %s at byte %zu repeats an earlier one; ignored", h.id, pos));
}

// Where the chunk after a SKELSOCK starts: its declared DataSize has been 138 or 168 while 164
// bytes are written per socket, so try the real size, then the declared one, then resynchronise
// on the next plausible chunk header.
size_t afterSockets(const uint8_t* data, size_t size, const ChunkHeader& h, size_t body) {
  const size_t remain = size - body;
  const uint64_t real = uint64_t(kSocketRecord) * uint64_t(h.dataCount);
  const uint64_t declared = uint64_t(h.dataSize) * uint64_t(h.dataCount);
  if (real <= remain && chunkStartsAt(data, size, body + size_t(real))) return body + size_t(real);
  if (declared <= remain && chunkStartsAt(data, size, body + size_t(declared))) return body + size_t(declared);
  for (size_t q = body; q + actorx::kHeaderSize <= size; ++q)
    if (data[q] >= 'A' && data[q] <= 'Z' && chunkStartsAt(data, size, q)) return q;
  return size;
}

// SKELSOCK: 164-byte sockets, as many as fit before the next chunk. Returns where that chunk starts.
size_t readSocketChunk(Context& cx, Chunks& c, const ChunkHeader& h, size_t pos) {
  const size_t body = pos + actorx::kHeaderSize;
  const size_t next = afterSockets(cx.data, cx.size, h, body);
  if (uint64_t(h.dataSize) != kSocketRecord) {
    cx.warn(
        format("SKELSOCK at byte %zu declares %d-byte records; read %zu-byte sockets", pos, h.dataSize, kSocketRecord));
  }
  Span sp;
  sp.p = cx.data + body;
  sp.stride = uint32_t(kSocketRecord);
  sp.count = uint32_t(std::min<uint64_t>(uint64_t(h.dataCount), (next - body) / kSocketRecord));
  sp.offset = pos;
  sp.present = true;
  if (sp.count < uint32_t(h.dataCount)) {
    cx.warn(format("SKELSOCK at byte %zu declares %d sockets, %u are present", pos, h.dataCount, sp.count));
  }
  c.sockets.push_back(sp);
  return next;
}

// Files the block of one chunk (any id but SKELSOCK) under its slot.
void recordChunk(Context& cx, Chunks& c, const ChunkHeader& h, size_t pos, uint64_t bytes) {
  if (actorx::idIs(h, "ACTRHEAD")) {
    if (!c.headSeen) c.headTypeFlag = h.typeFlag;
    c.headSeen = true;
  } else if (actorx::idIs(h, "PNTS0000")) {
    keep(cx, c.points, h, pos);
  } else if (actorx::idIs(h, "VTXW0000") || actorx::idIs(h, "VTXW3200")) {
    keep(cx, c.wedges, h, pos);
  } else if (actorx::idIs(h, "FACE0000") || actorx::idIs(h, "FACE3200")) {
    if (!c.faces.present) c.face32 = actorx::idIs(h, "FACE3200");
    keep(cx, c.faces, h, pos);
  } else if (actorx::idIs(h, "MATT0000")) {
    keep(cx, c.materials, h, pos);
  } else if (actorx::idIs(h, "REFSKELT") || actorx::idIs(h, "REFSKEL0")) {
    keep(cx, c.bones, h, pos);
  } else if (actorx::idIs(h, "RAWWEIGHTS") || actorx::idIs(h, "RAWW0000")) {
    keep(cx, c.weights, h, pos);
  } else if (actorx::idIs(h, "VERTEXCOLOR")) {
    keep(cx, c.colors, h, pos);
  } else if (actorx::idIs(h, "VTXNORMS")) {
    keep(cx, c.normals, h, pos);
  } else if (actorx::idIs(h, "MRPHINFO")) {
    keep(cx, c.morphInfo, h, pos);
  } else if (actorx::idIs(h, "MRPHDATA")) {
    keep(cx, c.morphData, h, pos);
  } else if (actorx::idStarts(h, "EXTRAUV")) {
    Span sp;
    keep(cx, sp, h, pos);
    c.extraUvs.push_back(sp);
  } else {
    cx.warn(format("skipped unknown chunk \"%s\" at byte %zu (%llu bytes)", h.id, pos, (unsigned long long)bytes));
  }
}

// One pass over the chunk headers (spec §1).
RS_STEP Status scanChunks(Context& cx, Chunks& c) {
  size_t pos = 0;
  while (pos < cx.size) {
    if (cx.size - pos < actorx::kHeaderSize) {
      return stop(cx, c, pos, format("chunk header cut short (%zu of 32 bytes)", cx.size - pos));
    }
    const ChunkHeader h = actorx::loadChunkHeader(cx.data + pos);
    if (pos == 0 && !actorx::idIs(h, "ACTRHEAD")) {
      return fail("PSK", cx.file, 0, "file does not start with an ACTRHEAD chunk (found \"%s\")", h.id);
    }
    if (h.dataSize < 0 || h.dataCount < 0) {
      return stop(cx, c, pos, format("chunk %s declares DataSize %d and DataCount %d", h.id, h.dataSize, h.dataCount));
    }
    if (actorx::idIs(h, "SKELSOCK")) {
      pos = readSocketChunk(cx, c, h, pos);
      continue;
    }
    const size_t body = pos + actorx::kHeaderSize;
    const uint64_t bytes = uint64_t(h.dataSize) * uint64_t(h.dataCount);
    const size_t remain = cx.size - body;
    if (bytes > remain) {
      return stop(
          cx, c, pos,
          format("chunk %s declares %d records of %d bytes, %zu bytes remain", h.id, h.dataCount, h.dataSize, remain));
    }
    recordChunk(cx, c, h, pos, bytes);
    pos = body + size_t(bytes);
  }
  return Status();
}

// Essential blocks must hold the fields we read; optional ones are dropped with a warning.
Status needStride(Context& cx, const Span& s, uint32_t need, const char* what) {
  if (s.present && s.count > 0 && s.stride < need) {
    return fail("PSK", cx.file, s.offset, "chunk %s has %u-byte records, at least %u needed", what, s.stride, need);
  }
  return Status();
}
bool optionalStride(Context& cx, Span& s, uint32_t need, const char* what) {
  if (s.present && s.count > 0 && s.stride < need) {
    cx.warn(format("chunk %s at byte %zu has %u-byte records, at least %u needed; ignored", what, s.offset, s.stride,
                   need));
    s = Span();
    return false;
  }
  return s.present;
}

// Every record size the decoder relies on (spec §2), and the three chunks a mesh cannot lack.
RS_STEP Status checkChunks(Context& cx, Chunks& c) {
  Status s = needStride(cx, c.points, 12, "PNTS0000");
  if (!s.ok()) return s;
  s = needStride(cx, c.wedges, 16, "VTXW0000");
  if (!s.ok()) return s;
  s = needStride(cx, c.faces, c.face32 ? 18 : 12, c.face32 ? "FACE3200" : "FACE0000");
  if (!s.ok()) return s;
  if (!c.points.present) return fail("PSK", cx.file, cx.size, "no PNTS0000 chunk");
  if (!c.wedges.present) return fail("PSK", cx.file, cx.size, "no VTXW0000 chunk");
  if (!c.faces.present) return fail("PSK", cx.file, cx.size, "no FACE0000 or FACE3200 chunk");
  optionalStride(cx, c.materials, 88, "MATT0000");
  optionalStride(cx, c.bones, 120, "REFSKELT");
  optionalStride(cx, c.weights, 12, "RAWWEIGHTS");
  optionalStride(cx, c.colors, 4, "VERTEXCOLOR");
  optionalStride(cx, c.normals, 12, "VTXNORMS");
  optionalStride(cx, c.morphInfo, 68, "MRPHINFO");
  optionalStride(cx, c.morphData, 28, "MRPHDATA");
  return Status();
}

// ---- geometry ---------------------------------------------------------------------------------

// PNTS0000: point positions, already in three.js space.
RS_STEP std::vector<float> readPoints(const Span& points) {
  const size_t P = points.count;
  std::vector<float> pos(P * 3);
  forChunks(P, [&](size_t begin, size_t end) {
    const uint8_t* p = points.p + begin * points.stride;
    for (size_t i = begin; i < end; ++i, p += points.stride) {
      float* d = &pos[i * 3];
      d[0] = load_f32le(p);
      d[1] = load_f32le(p + 8);
      d[2] = -load_f32le(p + 4);
    }
  });
  return pos;
}

// VTXW0000: one render vertex per wedge, its point's position and its UV. The point index is a u32
// masked to 16 bits when the point count fits (ActorX left junk in the pad). Returns wedge -> point.
RS_STEP std::vector<uint32_t> readWedges(Context& cx, const Span& wedges, const std::vector<float>& pointPos,
                                         Mesh& mesh) {
  const size_t P = pointPos.size() / 3;
  const size_t W = wedges.count;
  std::vector<uint32_t> wedgePoint(W);
  mesh.positions.resize(W * 3);
  mesh.uvs.emplace_back(W * 2);
  const uint32_t mask = P <= 65536 ? 0xFFFFu : 0xFFFFFFFFu;
  size_t clamped = 0, junk = 0;
  float* uv = mesh.uvs[0].data();
  forChunks(W, [&](size_t begin, size_t end) {
    const uint8_t* p = wedges.p + begin * wedges.stride;
    for (size_t i = begin; i < end; ++i, p += wedges.stride) {
      const uint32_t raw = load_u32le(p);
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
  });
  if (junk) cx.out.info.emplace_back("wedgeIndexMasked", format("%zu wedges had junk in the high 16 bits", junk));
  if (clamped) cx.warn(format("%zu wedges referenced points past the %zu in PNTS0000; set to point 0", clamped, P));
  return wedgePoint;
}

// MATT0000: name and polyFlags (low nibble = triangle type, then unlit, flat, environment bits).
RS_STEP void readMaterials(Context& cx, const Span& materials, size_t M) {
  cx.out.materials.reserve(M + 1);
  for (size_t i = 0; i < M; ++i) {
    const uint8_t* p = materials.p + i * materials.stride;
    Material m;
    m.name = fixedName(p, 64);
    m.textureNames.push_back(m.name);
    const uint32_t flags = load_u32le(p + 68);
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
    cx.out.materials.push_back(std::move(m));
  }
}

// FACE0000 / FACE3200: drops faces with out-of-range wedges and sends out-of-range materials to a
// placeholder (appended to the materials). Winding (w0, w1, w2) -> (w0, w2, w1).
RS_STEP Faces readFaces(Context& cx, const Span& span, bool face32, size_t W, size_t M) {
  const size_t F = span.count;
  Faces faces;
  faces.list.resize(F);
  faces.material.resize(F);
  size_t kept = 0, dropped = 0, badMat = 0;
  const uint16_t placeholder = uint16_t(M > 256 ? 256 : M);
  forChunks(F, [&](size_t begin, size_t end) {
    const uint8_t* p = span.p + begin * span.stride;
    for (size_t i = begin; i < end; ++i, p += span.stride) {
      uint32_t a, b, c;
      uint8_t mat;
      uint32_t sg;
      if (face32) {
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
      faces.list[kept] = Face{{a, c, b}, sg};
      faces.material[kept] = m;
      ++faces.perMaterial[m];
      ++kept;
    }
  });
  faces.list.resize(kept);
  faces.material.resize(kept);
  if (dropped) cx.warn(format("dropped %zu faces whose wedge indices exceed the %zu wedges", dropped, W));
  if (badMat) {
    cx.warn(format("%zu faces use a material index past the %zu in MATT0000; drawn with a placeholder material", badMat,
                   M));
    Material m;
    m.name = "placeholder";
    cx.out.materials.push_back(m);
  }
  return faces;
}

// Index buffer sorted by material with a counting sort: one contiguous group per material.
RS_STEP void groupByMaterial(const Faces& faces, Mesh& mesh) {
  uint32_t start[257];
  uint32_t run = 0;
  for (int m = 0; m < 257; ++m) {
    start[m] = run;
    if (faces.perMaterial[m]) mesh.groups.push_back(Group{run * 3, faces.perMaterial[m] * 3, uint32_t(m)});
    run += faces.perMaterial[m];
  }
  const size_t kept = faces.list.size();
  mesh.indices.resize(kept * 3);
  uint32_t* idx = mesh.indices.data();
  forChunks(kept, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t at = start[faces.material[i]]++ * 3;
      idx[at] = faces.list[i].w[0];
      idx[at + 1] = faces.list[i].w[1];
      idx[at + 2] = faces.list[i].w[2];
    }
  });
}

// ---- normals (spec §6) --------------------------------------------------------------------------

// VTXNORMS: one normal per point, in the file frame.
RS_STEP void readVertexNormals(const Span& normals, const std::vector<uint32_t>& wedgePoint, Mesh& mesh) {
  forChunks(wedgePoint.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint8_t* p = normals.p + size_t(wedgePoint[i]) * normals.stride;
      float* n = &mesh.normals[i * 3];
      n[0] = load_f32le(p);
      n[1] = load_f32le(p + 8);
      n[2] = -load_f32le(p + 4);
    }
  });
}

// The points and faces the smoothing-group normals are computed from.
struct Surface {
  const std::vector<float>& pointPos;
  const std::vector<uint32_t>& wedgePoint;
  const std::vector<Face>& faces;
  size_t pointOf(size_t f, int k) const { return wedgePoint[faces[f].w[k]]; }
  // Area-weighted normal of a (converted, CCW) face.
  void faceNormal(size_t f, float* o) const {
    const float* a = &pointPos[pointOf(f, 0) * 3];
    const float* b = &pointPos[pointOf(f, 1) * 3];
    const float* c = &pointPos[pointOf(f, 2) * 3];
    const float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const float e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    o[0] = e1[1] * e2[2] - e1[2] * e2[1];
    o[1] = e1[2] * e2[0] - e1[0] * e2[2];
    o[2] = e1[0] * e2[1] - e1[1] * e2[0];
  }
};

// Every face in one smoothing group (UE Viewer, CUE4Parse write 1): a plain per-point average,
// accumulated straight from the faces (no per-face array), normalised once per point.
RS_STEP void pointAverageNormals(const Surface& s, Mesh& mesh) {
  const size_t P = s.pointPos.size() / 3;
  std::vector<float> pn(P * 3, 0.0f);
  forChunks(s.faces.size(), [&](size_t begin, size_t end) {
    for (size_t f = begin; f < end; ++f) {
      float n3[3];
      s.faceNormal(f, n3);
      for (int k = 0; k < 3; ++k) {
        float* d = &pn[s.pointOf(f, k) * 3];
        d[0] += n3[0];
        d[1] += n3[1];
        d[2] += n3[2];
      }
    }
  });
  normalizeNormals(pn.data(), P);
  forChunks(s.wedgePoint.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) std::memcpy(&mesh.normals[i * 3], &pn[size_t(s.wedgePoint[i]) * 3], 12);
  });
}

// Sum of the face normals around each point (the fallback for wedges past the work budget).
RS_STEP std::vector<float> pointNormalSums(const Surface& s) {
  std::vector<float> sum(s.pointPos.size(), 0.0f);
  for (size_t f = 0; f < s.faces.size(); ++f) {
    float fn[3];
    s.faceNormal(f, fn);
    for (int k = 0; k < 3; ++k) {
      float* s3 = &sum[s.pointOf(f, k) * 3];
      s3[0] += fn[0];
      s3[1] += fn[1];
      s3[2] += fn[2];
    }
  }
  return sum;
}

// Wedges resolved by their smoothing groups, as compressed rows per point: the wedges of point p
// are list[first[p] .. first[p + 1]).
struct PointWedgeRows {
  std::vector<uint32_t> first, list;
};

// Which masked wedges are resolved by their groups, in wedge order within a work budget: a hostile
// file with every wedge on one point would be quadratic, so past the budget a wedge's mask is
// cleared and it is listed in `fallback` (it takes its point's plain average). Each resolved wedge
// costs the corners around its point, what the sums over those corners cost below.
PointWedgeRows resolvedWedges(const Surface& s, std::vector<uint32_t>& wedgeMask, const std::vector<uint32_t>& corners,
                              std::vector<uint32_t>& fallback) {
  const size_t P = corners.size(), W = wedgeMask.size();
  uint64_t budget = 64ull * 3 * s.faces.size() + (1u << 20);
  PointWedgeRows rows;
  rows.first.assign(P + 1, 0);
  size_t resolved = 0;
  for (size_t w = 0; w < W; ++w) {
    if (!wedgeMask[w]) continue;
    const uint32_t pt = s.wedgePoint[w];
    if (corners[pt] <= budget) {
      budget -= corners[pt];
      ++rows.first[pt + 1];
      ++resolved;
    } else {
      wedgeMask[w] = 0;
      fallback.push_back(uint32_t(w));
    }
  }
  for (size_t i = 0; i < P; ++i) rows.first[i + 1] += rows.first[i];
  rows.list.resize(resolved);
  std::vector<uint32_t> fill(rows.first.begin(), rows.first.end() - 1);
  for (size_t w = 0; w < W; ++w)
    if (wedgeMask[w]) rows.list[fill[s.wedgePoint[w]]++] = uint32_t(w);
  return rows;
}

// ActorX smoothing bitmasks: a wedge averages the faces around its point that share a bit with the
// faces using the wedge; group-0 faces are flat (only their own normal). Each face's normal is
// added, in face order, to the wedges of its corners' points whose groups it shares: the same sums
// in the same order as walking the faces around each wedge's point, without a face list per point
// or an array of face normals (a face's normal is computed where it is added).
RS_STEP void smoothingGroupNormals(Context& cx, const Surface& s, Mesh& mesh) {
  const size_t F = s.faces.size();
  const size_t W = s.wedgePoint.size();
  const size_t P = s.pointPos.size() / 3;
  float* n = mesh.normals.data();
  std::vector<uint32_t> wedgeMask(W, 0), corners(P, 0);
  forChunks(F, [&](size_t begin, size_t end) {
    for (size_t f = begin; f < end; ++f) {
      const Face& face = s.faces[f];
      if (face.sg == 0) {
        float fn[3];
        s.faceNormal(f, fn);
        for (int k = 0; k < 3; ++k) {
          float* d = &n[size_t(face.w[k]) * 3];
          d[0] += fn[0];
          d[1] += fn[1];
          d[2] += fn[2];
        }
      } else {
        for (int k = 0; k < 3; ++k) wedgeMask[face.w[k]] |= face.sg;
      }
      for (int k = 0; k < 3; ++k) ++corners[s.pointOf(f, k)];
    }
  });
  std::vector<uint32_t> fallback;
  const PointWedgeRows rows = resolvedWedges(s, wedgeMask, corners, fallback);
  forChunks(F, [&](size_t begin, size_t end) {
    for (size_t f = begin; f < end; ++f) {
      const uint32_t sg = s.faces[f].sg;
      if (!sg) continue;
      float fn[3];
      s.faceNormal(f, fn);
      for (int k = 0; k < 3; ++k) {
        const uint32_t pt = s.pointOf(f, k);
        for (uint32_t j = rows.first[pt]; j < rows.first[pt + 1]; ++j) {
          const uint32_t w = rows.list[j];
          if (!(wedgeMask[w] & sg)) continue;
          float* d = &n[size_t(w) * 3];
          d[0] += fn[0];
          d[1] += fn[1];
          d[2] += fn[2];
        }
      }
    }
  });
  if (!fallback.empty()) {
    cx.warn("smoothing groups too dense to resolve; some normals averaged per point");
    const std::vector<float> pointSum = pointNormalSums(s);
    for (const uint32_t w : fallback) {
      const float* s3 = &pointSum[size_t(s.wedgePoint[w]) * 3];
      float* d = &n[size_t(w) * 3];
      d[0] += s3[0];
      d[1] += s3[1];
      d[2] += s3[2];
    }
  }
  normalizeNormals(n, W);
}

// VTXNORMS per point when present (and matching), else normals from the smoothing groups.
// Returns whether the file's own normals were used.
RS_STEP bool buildNormals(Context& cx, const Span& normals, const Surface& s, Mesh& mesh) {
  const size_t P = s.pointPos.size() / 3;
  mesh.normals.assign(s.wedgePoint.size() * 3, 0.0f);
  if (normals.present && normals.count != P) {
    cx.warn(
        format("VTXNORMS has %u records for %zu points; ignored, normals from the smoothing groups", normals.count, P));
  } else if (normals.present) {
    readVertexNormals(normals, s.wedgePoint, mesh);
    return true;
  }
  bool uniform = true;
  const uint32_t sg0 = s.faces.empty() ? 0 : s.faces[0].sg;
  for (const Face& f : s.faces) uniform &= f.sg == sg0;
  if (uniform && sg0 != 0) {
    pointAverageNormals(s, mesh);
  } else {
    smoothingGroupNormals(cx, s, mesh);
  }
  return false;
}

// ---- per-wedge extras -----------------------------------------------------------------------------

// EXTRAUV*: extra UV sets, appended in file order.
RS_STEP void readExtraUvs(Context& cx, std::vector<Span>& extraUvs, size_t W, Mesh& mesh) {
  for (Span& sp : extraUvs) {
    if (!optionalStride(cx, sp, 8, "EXTRAUV")) continue;
    if (sp.count != W) {
      cx.warn(format("extra UV chunk at byte %zu has %u records for %zu wedges; ignored", sp.offset, sp.count, W));
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
}

// VERTEXCOLOR: Epic ActorX 2.x-3.0 wrote BGRA, everything else RGBA (told by the ACTRHEAD TypeFlag).
RS_STEP void readVertexColors(Context& cx, const Span& colors, uint32_t typeFlag, size_t W, Mesh& mesh) {
  if (!colors.present) return;
  if (colors.count != W) {
    cx.warn(format("VERTEXCOLOR has %u records for %zu wedges; ignored", colors.count, W));
    return;
  }
  const bool bgra = typeFlag >= 2003321u && typeFlag <= 20090127u;
  cx.out.info.emplace_back("vertexColorOrder", bgra ? "BGRA" : "RGBA");
  mesh.colors.resize(W * 4);
  uint8_t* d = mesh.colors.data();
  const uint8_t* p = colors.p;
  for (size_t i = 0; i < W; ++i, p += colors.stride, d += 4) {
    d[0] = p[bgra ? 2 : 0];
    d[1] = p[1];
    d[2] = p[bgra ? 0 : 2];
    d[3] = p[3];
  }
}

// ---- morph targets ------------------------------------------------------------------------------

// Wedges of each point, as compressed rows: wedges of point p are list[first[p] .. first[p + 1]).
struct PointWedges {
  std::vector<uint32_t> first, list;
};
RS_STEP PointWedges wedgesOfPoints(const std::vector<uint32_t>& wedgePoint, size_t P) {
  const size_t W = wedgePoint.size();
  PointWedges pw;
  pw.first.assign(P + 1, 0);
  for (size_t i = 0; i < W; ++i) ++pw.first[wedgePoint[i] + 1];
  for (size_t i = 0; i < P; ++i) pw.first[i + 1] += pw.first[i];
  pw.list.resize(W);
  std::vector<uint32_t> fill(pw.first.begin(), pw.first.end() - 1);
  for (size_t i = 0; i < W; ++i) pw.list[fill[wedgePoint[i]]++] = uint32_t(i);
  return pw;
}

// MRPHDATA records consumed so far and what went wrong, across the morph targets.
struct MorphCursor {
  size_t next = 0, skipped = 0, missing = 0;
};

// One MRPHINFO target: its `declared` deltas, consumed in order from MRPHDATA, copied to every wedge
// of their point. Deltas are in un-mirrored Unreal space: negate y, then Z-up -> Y-up:
// (x, -y, z) -> (x, z, y).
Morph readMorph(const Span& info, const Span& data, size_t m, const PointWedges& pw, size_t W, MorphCursor& cur) {
  const size_t P = pw.first.size() - 1;
  const size_t dataCount = data.present ? data.count : 0;
  const uint8_t* ip = info.p + m * info.stride;
  const int32_t declared = load_i32le(ip + 64);
  Morph mo;
  mo.name = fixedName(ip, 64);
  mo.positions.assign(W * 3, 0.0f);
  std::vector<float> nrm;  // allocated at the first non-zero normal delta: most morphs have none
  size_t want = declared > 0 ? size_t(declared) : 0;
  if (want > dataCount - cur.next) {
    cur.missing += want - (dataCount - cur.next);
    want = dataCount - cur.next;
  }
  for (size_t k = 0; k < want; ++k, ++cur.next) {
    const uint8_t* p = data.p + cur.next * data.stride;
    const uint32_t pt = load_u32le(p + 24);
    if (pt >= P) {
      ++cur.skipped;
      continue;
    }
    const float dp[3] = {load_f32le(p), load_f32le(p + 8), load_f32le(p + 4)};
    const float dn[3] = {load_f32le(p + 12), load_f32le(p + 20), load_f32le(p + 16)};
    if (nrm.empty() && (dn[0] != 0.0f || dn[1] != 0.0f || dn[2] != 0.0f)) nrm.assign(W * 3, 0.0f);
    for (uint32_t j = pw.first[pt]; j < pw.first[pt + 1]; ++j) {
      const uint32_t w = pw.list[j];
      std::memcpy(&mo.positions[size_t(w) * 3], dp, 12);
      if (!nrm.empty()) std::memcpy(&nrm[size_t(w) * 3], dn, 12);
    }
  }
  mo.normals = std::move(nrm);
  return mo;
}

// MRPHINFO + MRPHDATA: one morph target per MRPHINFO record, within a memory budget.
RS_STEP void readMorphTargets(Context& cx, const Chunks& c, const std::vector<uint32_t>& wedgePoint, size_t P,
                              Mesh& mesh) {
  const size_t W = wedgePoint.size();
  const size_t morphCount = c.morphInfo.present ? c.morphInfo.count : 0;
  const size_t dataCount = c.morphData.present ? c.morphData.count : 0;
  PointWedges pw;
  if (morphCount) pw = wedgesOfPoints(wedgePoint, P);
  MorphCursor cur;
  // Refuse morph storage far beyond what the file could describe (each morph is W*3 floats,
  // zero-filled, while its deltas may be few): at most 8 floats per input byte (16 MB for any
  // file) and 256 MB in all. 200 morph targets of a 20,000-wedge mesh need 12 M floats; the
  // sample with morphs needs 0.1 float per byte. Filling zeros costs time as well as memory.
  const uint64_t budgetFloats = std::min<uint64_t>(1ull << 26, std::max<uint64_t>(1ull << 22, 8ull * cx.size));
  for (size_t m = 0; m < morphCount; ++m) {
    if ((uint64_t(mesh.morphs.size()) + 1) * W * 3 > budgetFloats) {
      cx.warn(format("%zu morph targets of %zu wedges exceed the memory budget; the rest were ignored", morphCount, W));
      break;
    }
    mesh.morphs.push_back(readMorph(c.morphInfo, c.morphData, m, pw, W, cur));
  }
  if (cur.skipped) cx.warn(format("skipped %zu morph deltas whose point index exceeds the %zu points", cur.skipped, P));
  if (cur.missing) cx.warn(format("MRPHINFO declares %zu more morph deltas than MRPHDATA holds", cur.missing));
  if (cur.next < dataCount) cx.warn(format("MRPHDATA has %zu records no morph target claims", dataCount - cur.next));
}

// ---- skeleton and skin (spec §5, §7) ---------------------------------------------------------------

// REFSKELT: names, parents (bone 0 is the root; a bad parent index hangs the bone off the root) and
// the rest pose. Child rotations are stored conjugated (ActorX), the root's is not.
RS_STEP void readBones(Context& cx, const Span& bones, size_t B) {
  Skeleton& sk = cx.out.skeleton;
  sk.names.resize(B);
  sk.parents.resize(B);
  sk.restTranslation.resize(B * 3);
  sk.restRotation.resize(B * 4);
  size_t badParents = 0;
  for (size_t i = 0; i < B; ++i) {
    const uint8_t* p = bones.p + i * bones.stride;
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
  if (badParents) cx.warn(format("%zu bones had an invalid parent index; attached to the root", badParents));
}

// Walks each parent chain; a bone met again on the current walk is reparented to the root.
RS_STEP void breakBoneCycles(Context& cx, Skeleton& sk) {
  const size_t B = sk.parents.size();
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
      const size_t par = size_t(sk.parents[b]);
      if (state[par] == 1) {
        sk.parents[b] = 0;
        ++cycles;
        break;
      }
      b = par;
    }
    for (uint32_t v : path) state[v] = 2;
  }
  if (cycles) cx.warn(format("broke %zu cycles in the bone hierarchy by attaching bones to the root", cycles));
}

// RAWWEIGHTS: influences on points, limited to the 4 strongest, then gathered to the wedges.
RS_STEP void readInfluences(Context& cx, const Span& weights, size_t influences, size_t P, size_t B,
                            const std::vector<uint32_t>& wedgePoint, Mesh& mesh) {
  SkinBuilder skin(P);
  size_t badInfluence = 0;
  forChunks(influences, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint8_t* p = weights.p + i * weights.stride;
      const float w = load_f32le(p);
      const uint32_t pt = load_u32le(p + 4);
      const uint32_t bone = load_u32le(p + 8);
      if (pt >= P || bone >= B) {
        ++badInfluence;
        continue;
      }
      skin.add(pt, uint16_t(bone), w);
    }
  });
  const SkinStats st = skin.finish(0);
  if (badInfluence) cx.warn(format("dropped %zu influences with a point or bone index out of range", badInfluence));
  if (influences == 0) {
    cx.warn("no RAWWEIGHTS records: every vertex bound to bone 0 with weight 1");
  } else {
    if (st.truncated)
      cx.warn(format("%zu points had more than 4 influences; kept the 4 strongest (largest dropped weight %.3g)",
                     st.truncated, double(st.maxDropped)));
    if (st.renormalised) cx.warn(format("%zu points had weights not summing to 1; renormalised", st.renormalised));
    if (st.unweighted) cx.warn(format("%zu points had no influence; bound to bone 0", st.unweighted));
    if (st.rejected) cx.warn(format("ignored %zu influences with zero, negative or non-finite weight", st.rejected));
  }
  gatherSkin(skin, wedgePoint.data(), wedgePoint.size(), mesh.skinIndex, mesh.skinWeight);
}

// SKELSOCK -> attachments, bone looked up by name (exact, then case-insensitive), through maps
// built once: thousands of sockets against thousands of bones stay linear.
RS_STEP void readSockets(Context& cx, const std::vector<Span>& sockets) {
  size_t unknownSocketBones = 0;
  std::unordered_map<std::string, int32_t> boneExact, boneFolded;
  const std::vector<std::string>& names = cx.out.skeleton.names;
  if (!sockets.empty()) {
    for (size_t b = 0; b < names.size(); ++b) {
      boneExact.emplace(names[b], int32_t(b));
      boneFolded.emplace(foldCase(names[b]), int32_t(b));
    }
  }
  for (const Span& sp : sockets) {
    for (size_t i = 0; i < sp.count; ++i) {
      const uint8_t* p = sp.p + i * kSocketRecord;
      Attachment a;
      a.name = fixedName(p, 64);
      const std::string boneName = fixedName(p + 64, 64);
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
      cx.out.attachments.push_back(std::move(a));
    }
  }
  if (unknownSocketBones)
    cx.warn(format("%zu sockets name a bone the skeleton lacks; attached to the model root", unknownSocketBones));
}

// Counts in the format's own words, and how the file was read.
RS_STEP void recordCounts(Context& cx, const Chunks& c, const Mesh& mesh, size_t influences, bool fileNormals) {
  Model& out = cx.out;
  out.count("points", double(c.points.count));
  out.count("wedges", double(c.wedges.count));
  out.count("faces", double(c.faces.count));
  out.count("materials", double(c.materials.present ? c.materials.count : 0));
  out.count("bones", double(c.bones.present ? c.bones.count : 0));
  out.count("influences", double(influences));
  out.count("vertices", double(c.wedges.count));
  const size_t triangles = mesh.indices.size() / 3;
  out.count("triangles", double(triangles));
  out.count("morphs", double(mesh.morphs.size()));
  out.count("uvSets", double(mesh.uvs.size()));
  out.count("colors", mesh.colors.empty() ? 0 : 1);
  out.count("normals", fileNormals ? 1 : 0);
  if (!out.attachments.empty()) out.count("sockets", double(out.attachments.size()));
  out.info.emplace_back("typeFlag", format("%u", c.headTypeFlag));
  out.info.emplace_back("faceChunk", c.face32 ? "FACE3200" : "FACE0000");
  out.info.emplace_back("normalsFrom", fileNormals ? "VTXNORMS" : "smoothing groups");
}

// The records, in the order the spec lists them; the mesh is one render vertex per wedge.
Status decode(Context& cx) {
  Chunks c;
  Status s = scanChunks(cx, c);
  if (!s.ok()) return s;
  s = checkChunks(cx, c);
  if (!s.ok()) return s;
  const size_t P = c.points.count, W = c.wedges.count;
  const size_t B = c.bones.present ? c.bones.count : 0;
  const size_t M = c.materials.present ? c.materials.count : 0;
  if (W > 0 && P == 0) return fail("PSK", cx.file, c.wedges.offset, "%zu wedges but PNTS0000 has no points", W);
  if (B > 65535) return fail("PSK", cx.file, c.bones.offset, "REFSKELT declares %zu bones, at most 65535 supported", B);

  Model& out = cx.out;
  out.format = "psk";
  out.bindBy = "name";
  out.name = cx.file;
  out.meshes.emplace_back();
  Mesh& mesh = out.meshes.back();
  mesh.name = cx.file;

  const std::vector<float> pointPos = readPoints(c.points);
  const std::vector<uint32_t> wedgePoint = readWedges(cx, c.wedges, pointPos, mesh);
  readMaterials(cx, c.materials, M);
  const Faces faces = readFaces(cx, c.faces, c.face32, W, M);
  groupByMaterial(faces, mesh);
  const bool fileNormals = buildNormals(cx, c.normals, Surface{pointPos, wedgePoint, faces.list}, mesh);
  readExtraUvs(cx, c.extraUvs, W, mesh);
  readVertexColors(cx, c.colors, c.headTypeFlag, W, mesh);
  readMorphTargets(cx, c, wedgePoint, P, mesh);
  const size_t influences = c.weights.present ? c.weights.count : 0;
  if (B > 0) {
    out.hasSkeleton = true;
    readBones(cx, c.bones, B);
    breakBoneCycles(cx, out.skeleton);
    readInfluences(cx, c.weights, influences, P, B, wedgePoint, mesh);
  } else if (influences > 0) {
    cx.warn(format("RAWWEIGHTS has %zu records but there are no bones; ignored", influences));
  }
  readSockets(cx, c.sockets);
  recordCounts(cx, c, mesh, influences, fileNormals);
  return Status();
}

}  // namespace

Status decodePsk(const uint8_t* data, size_t size, const std::string& file, Model& out) {
  if (!data && size) return fail("PSK", file, 0, "no data");
  Context cx{data, size, file, out};
  return decode(cx);
}

}  // namespace rs
