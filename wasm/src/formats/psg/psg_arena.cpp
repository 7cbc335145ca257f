#include "formats/psg/psg_arena.h"

#include <cinttypes>
#include <cstring>

#include "io/byte_reader.h"

namespace rs {
namespace psg {

#define PSG_FAIL(at, ...) ::rs::fail("PSG", file, (at), __VA_ARGS__)

const char* typeName(uint32_t t) {
  switch (t) {
    case kVersionData: return "VersionData";
    case kRenderModelData: return "RenderModelData";
    case kRenderMaterialData: return "RenderMaterialData";
    case kRenderOptiMeshData: return "RenderOptiMeshData";
    case kTableOfContents: return "TableOfContents";
    case kInstanceData: return "InstanceData";
    case kBlendShapeData: return "RenderBlendShapeData";
    case kTexture: return "Texture";
    case kVertexDescriptor: return "VertexDescriptor";
    case kVertexBuffer: return "VertexBuffer";
    case kIndexBuffer: return "IndexBuffer";
    case kMeshHelper: return "MeshHelper";
    default: return isBaseResource(t) ? "BaseResource" : nullptr;
  }
}

std::string guidHex(uint64_t guid) { return format("%016" PRIx64, guid); }

std::string Object::cstr(uint32_t at) const {
  if (at >= size) return std::string();
  size_t width = size - at;
  if (width > 1024) width = 1024;
  return fixedName(p + at, width);
}

static bool isRefPack(const uint8_t* d, size_t n) {
  // EA RefPack: flags byte (0x10/0x11/0x90/0x91/...) then 0xFB.
  return n >= 2 && d[1] == 0xFB && (d[0] & 0x3E) == 0x10;
}

Status Arena::parse(const uint8_t* bytes, size_t length, const std::string& fileName) {
  data = bytes;
  size = length;
  file = fileName;
  Status s = readHeader();
  if (!s.ok()) return s;
  uint32_t numEntries = 0;
  if (!(s = readBlocks(numEntries)).ok()) return s;
  // Sections: manifest, then types / external arenas / subreferences / atoms by offset.
  uint64_t secOff[4];
  if (!(s = readSections(secOff)).ok()) return s;
  if (!(s = readTypes(secOff[0])).ok()) return s;
  if (!(s = readSubrefs(secOff[2])).ok()) return s;
  return readDictionary(numEntries);
}

// Magic, platform, byte order, pointer size, version (spec §5.1).
Status Arena::readHeader() {
  static const uint8_t kPrefix[4] = {0x89, 'R', 'W', '4'};
  static const uint8_t kSuffix[4] = {0x0D, 0x0A, 0x1A, 0x0A};
  if (isRefPack(data, size))
    return PSG_FAIL(0,
                    "file starts with %02X FB: it is still RefPack-compressed (an EA .big payload); "
                    "decompress it first",
                    data[0]);
  if (size < 28) return PSG_FAIL(0, "arena header needs 28 bytes, file has %zu", size);
  if (std::memcmp(data, kPrefix, 4) != 0) return PSG_FAIL(0, "magic is not \\x89RW4 (not a RenderWare 4 arena)");
  if (std::memcmp(data + 8, kSuffix, 4) != 0)
    return PSG_FAIL(8, "magic suffix is not 0D 0A 1A 0A (file damaged by a text-mode transfer?)");
  char platform[5] = {};
  std::memcpy(platform, data + 4, 4);
  if (std::memcmp(platform, "ps3\0", 4) != 0) {
    const char* what = nullptr;
    if (std::memcmp(platform, "xb2\0", 4) == 0)
      what = "X360";
    else if (std::memcmp(platform, "rev\0", 4) == 0)
      what = "Wii";
    else if (std::memcmp(platform, "w32\0", 4) == 0)
      what = "PC";
    if (what)
      return PSG_FAIL(4,
                      "platform '%s' is a %s arena; X360/Wii/PC arenas are not supported, only PS3 "
                      "('ps3')",
                      platform, what);
    return PSG_FAIL(4, "unknown platform tag %02X %02X %02X %02X (expected 'ps3')", data[4], data[5], data[6], data[7]);
  }
  if (data[0x0C] != 1) return PSG_FAIL(0x0C, "endianness byte is %u, PS3 arenas are big-endian (1)", data[0x0C]);
  if (data[0x0D] != 32) return PSG_FAIL(0x0D, "pointer size is %u bits, expected 32", data[0x0D]);
  if (std::memcmp(data + 0x10, "454\0", 4) != 0)
    return PSG_FAIL(0x10, "major version is not \"454\" (RenderWare 4.5.4)");
  if (size < kPs3HeaderSize) return PSG_FAIL(0, "PS3 arena header needs %zu bytes, file has %zu", kPs3HeaderSize, size);
  return Status();
}

// Dictionary size and the resource descriptors: the blocks must add up to the file.
Status Arena::readBlocks(uint32_t& numEntries) {
  id = load_u32be(data + 0x1C);
  numEntries = load_u32be(data + 0x20);
  const uint32_t numUsed = load_u32be(data + 0x24);
  dictStart = load_u32be(data + 0x30);
  uint64_t total = 0;
  for (int k = 0; k < kPs3Blocks; ++k) {
    blockBase[k] = total;
    blockSize[k] = load_u32be(data + 0x44 + 8 * k);
    total += blockSize[k];
  }
  if (total != size)
    return PSG_FAIL(
        0x44, "resource descriptors add up to %" PRIu64 " bytes (main %" PRIu64 ", graphics %" PRIu64 "), file has %zu",
        total, blockSize[0], blockSize[5], size);
  if (mainEnd() < kPs3HeaderSize)
    return PSG_FAIL(0x44, "main block size %" PRIu64 " is smaller than the 0xC0-byte header", mainEnd());
  if (numUsed > numEntries) return PSG_FAIL(0x24, "numUsed %u exceeds numEntries %u", numUsed, numEntries);
  return Status();
}

// The section manifest and its four sections, each checked for its type.
Status Arena::readSections(uint64_t secOff[4]) {
  const uint32_t sections = load_u32be(data + 0x34);
  const uint64_t end = mainEnd();
  if (sections < kPs3HeaderSize || uint64_t(sections) + 28 > end)
    return PSG_FAIL(0x34, "section manifest offset %u is outside the main block (%" PRIu64 " bytes)", sections, end);
  const uint8_t* man = data + sections;
  if (load_u32be(man) != 0x00010004)
    return PSG_FAIL(sections, "section manifest type is 0x%08X, expected 0x00010004", load_u32be(man));
  if (load_u32be(man + 4) != 4)
    return PSG_FAIL(sections + 4, "section manifest lists %u sections, expected 4", load_u32be(man + 4));
  static const uint32_t kSecType[4] = {0x00010005, 0x00010006, 0x00010007, 0x00010008};
  static const char* kSecName[4] = {"types", "external arenas", "subreferences", "atoms"};
  static const uint32_t kSecMin[4] = {12, 12, 28, 12};
  for (int s = 0; s < 4; ++s) {
    secOff[s] = uint64_t(sections) + load_u32be(man + 12 + 4 * s);
    if (secOff[s] + kSecMin[s] > end)
      return PSG_FAIL(sections + 12 + 4 * s,
                      "%s section at byte %" PRIu64 " is outside the main block (%" PRIu64 " bytes)", kSecName[s],
                      secOff[s], end);
    uint32_t t = load_u32be(data + secOff[s]);
    if (t != kSecType[s])
      return PSG_FAIL(secOff[s], "%s section type is 0x%08X, expected 0x%08X", kSecName[s], t, kSecType[s]);
  }
  return Status();
}

Status Arena::readTypes(uint64_t at) {
  const uint32_t numTypes = load_u32be(data + at + 4);
  if (uint64_t(numTypes) * 4 > mainEnd() - at - 12)
    return PSG_FAIL(at + 4, "types section declares %u ids of 4 bytes, %" PRIu64 " bytes remain in the main block",
                    numTypes, mainEnd() - at - 12);
  types.resize(numTypes);
  for (uint32_t i = 0; i < numTypes; ++i) types[i] = load_u32be(data + at + 12 + 4 * i);
  return Status();
}

Status Arena::readSubrefs(uint64_t at) {
  const uint8_t* s = data + at;
  const uint32_t n = load_u32be(s + 4);
  subrefRecords = load_u32be(s + 20);
  if (subrefRecords > mainEnd() || uint64_t(n) * 8 > mainEnd() - subrefRecords)
    return PSG_FAIL(at + 4,
                    "subreference section declares %u records of 8 bytes at byte %zu, "
                    "main block ends at %" PRIu64,
                    n, subrefRecords, mainEnd());
  subrefs.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    subrefs[i].object = load_u32be(data + subrefRecords + 8 * i);
    subrefs[i].byteOffset = load_u32be(data + subrefRecords + 8 * i + 4);
  }
  return Status();
}

// One 24-byte dictionary row: an object in the main block or a base resource in its block.
Status Arena::readRow(uint32_t i) {
  const size_t at = dictStart + size_t(i) * 24;
  const uint8_t* p = data + at;
  Row& r = rows[i];
  r.rowOffset = at;
  const uint32_t ptr = load_u32be(p);
  r.size = load_u32be(p + 8);
  r.align = load_u32be(p + 12);
  r.typeIndex = load_u32be(p + 16);
  r.typeId = load_u32be(p + 20);
  const uint32_t numTypes = uint32_t(types.size());
  if (r.typeIndex >= numTypes)
    return PSG_FAIL(at + 16, "dictionary row %u: typeIndex %u is outside the %u-entry types list", i, r.typeIndex,
                    numTypes);
  if (types[r.typeIndex] != r.typeId)
    return PSG_FAIL(at + 20, "dictionary row %u: typeId 0x%08X differs from types[%u] = 0x%08X", i, r.typeId,
                    r.typeIndex, types[r.typeIndex]);
  if (isBaseResource(r.typeId)) {
    const int k = int(r.typeId - kBaseResourceFirst) + 1;
    if (k >= kPs3Blocks)
      return PSG_FAIL(at + 20, "dictionary row %u: base resource type 0x%08X selects block %d, PS3 has %d", i, r.typeId,
                      k, kPs3Blocks);
    if (uint64_t(ptr) + r.size > blockSize[k])
      return PSG_FAIL(
          at, "dictionary row %u: base resource at %u + %u bytes is outside resource block %d (%" PRIu64 " bytes)", i,
          ptr, r.size, k, blockSize[k]);
    r.offset = blockBase[k] + ptr;
    return Status();
  }
  if (ptr < kPs3HeaderSize || uint64_t(ptr) + r.size > mainEnd())
    return PSG_FAIL(
        at, "dictionary row %u (%s): object at byte %u + %u bytes is outside the main block (%" PRIu64 " bytes)", i,
        typeName(r.typeId) ? typeName(r.typeId) : "object", ptr, r.size, mainEnd());
  r.offset = ptr;
  return Status();
}

// The dictionary rows, then every subreference checked against the object it points into.
Status Arena::readDictionary(uint32_t numEntries) {
  if (dictStart > mainEnd() || uint64_t(numEntries) * 24 > mainEnd() - dictStart)
    return PSG_FAIL(0x20, "dictionary declares %u rows of 24 bytes at byte %zu, main block ends at %" PRIu64,
                    numEntries, dictStart, mainEnd());
  rows.resize(numEntries);
  for (uint32_t i = 0; i < numEntries; ++i) {
    Status s = readRow(i);
    if (!s.ok()) return s;
  }
  for (uint32_t i = 0; i < subrefs.size(); ++i) {
    const Subref& s = subrefs[i];
    if (s.object >= numEntries || s.byteOffset > rows[s.object].size)
      return PSG_FAIL(subrefRecords + 8 * i,
                      "subreference %u points at object %u byte %u, outside the %u-row "
                      "dictionary or that object",
                      i, s.object, s.byteOffset, numEntries);
  }
  return Status();
}

Status Arena::resolve(uint32_t value, size_t at, const char* field, Ref& out) const {
  out = Ref();
  switch (value >> 22) {
    case 0:
      if (value >= rows.size())
        return PSG_FAIL(at, "%s refers to dictionary row %u, the dictionary has %zu rows", field, value, rows.size());
      out.null = false;
      out.row = value;
      return Status();
    case 1: return Status();
    case 2: {
      uint32_t i = value & 0x3FFFFF;
      if (i >= subrefs.size())
        return PSG_FAIL(at, "%s refers to subreference %u, the arena has %zu", field, i, subrefs.size());
      out.null = false;
      out.row = subrefs[i].object;
      out.inner = subrefs[i].byteOffset;
      return Status();
    }
    default: return PSG_FAIL(at, "%s holds 0x%08X, not an arena reference (kind %u)", field, value, value >> 22);
  }
}

Status Arena::expect(uint32_t value, size_t at, const char* field, uint32_t typeId, bool optional, Ref& out) const {
  Status s = resolve(value, at, field, out);
  if (!s.ok()) return s;
  if (!out.null && rows[out.row].typeId != typeId) {
    if (value == 0 && optional) {  // pegasus writes 0 for null (object 0 is VersionData)
      out = Ref();
      return Status();
    }
    const char* found = typeName(rows[out.row].typeId);
    return PSG_FAIL(at, "%s refers to row %u of type %s (0x%08X), expected %s", field, out.row, found ? found : "?",
                    rows[out.row].typeId, typeName(typeId));
  }
  if (out.null && !optional) return PSG_FAIL(at, "%s is null", field);
  return Status();
}

Status Arena::expectResource(uint32_t value, size_t at, const char* field, Ref& out) const {
  Status s = resolve(value, at, field, out);
  if (!s.ok()) return s;
  if (out.null) return PSG_FAIL(at, "%s is null", field);
  if (!isBaseResource(rows[out.row].typeId) || out.inner != 0) {
    const char* found = typeName(rows[out.row].typeId);
    return PSG_FAIL(at, "%s refers to row %u of type %s (0x%08X), expected a BaseResource", field, out.row,
                    found ? found : "?", rows[out.row].typeId);
  }
  return Status();
}

}  // namespace psg
}  // namespace rs
