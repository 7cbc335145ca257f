// write_fuzz_seeds <fixturesdir> <outdir>: the seed corpus of every fuzz target, one folder per
// target (<outdir>/fuzz_psk/...), each seed in exactly the layout its harness reads
// (writers/fuzz_input.h for the targets that take several files).
//
// Seeds are the writers' fixtures (read from <fixturesdir>, as write_*_fixtures left them) plus
// structure-aware variants made with the same writers: every chunk type, object type and version
// each format has, every writer option, and every count field of a small valid file set to the
// extremes (0, one more than present, 2^31 - 1, 2^32 - 1) so the fuzzer starts next to each limit
// check. Every seed stays small (a few KB): libFuzzer mutates small inputs far faster.
#include <dirent.h>
#include <sys/stat.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "writers/fuzz_input.h"
#include "writers/psg_writer.h"
#include "writers/psk_writer.h"
#include "writers/ue1_writer.h"
#include "writers/writer_bytes.h"
#include "writers/zeroad_writer.h"

using namespace rs;
using Bytes = std::vector<uint8_t>;

namespace {

std::string gOut;
bool gOk = true;
size_t gSeeds = 0;

Bytes textBytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

void seed(const std::string& target, const std::string& name, const Bytes& bytes) {
  const std::string dir = gOut + "/" + target;
  mkdir(dir.c_str(), 0755);
  if (!writeFile(dir + "/" + name, bytes)) {
    std::fprintf(stderr, "write_fuzz_seeds: cannot write %s/%s\n", dir.c_str(), name.c_str());
    gOk = false;
  }
  ++gSeeds;
}

// A multi-file seed; refuses (and fails the run) when a part holds the separator.
void seedParts(const std::string& target, const std::string& name, const std::vector<Bytes>& parts) {
  Bytes joined;
  if (!fuzz::joinParts(parts, joined)) {
    std::fprintf(stderr, "write_fuzz_seeds: a part of %s/%s contains the part separator\n", target.c_str(),
                 name.c_str());
    gOk = false;
    return;
  }
  // The harness must see exactly these parts again.
  const std::vector<fuzz::Part> back = fuzz::splitParts(joined.data(), joined.size(), parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    if (back[i].size != parts[i].size() ||
        (back[i].size && std::memcmp(back[i].data, parts[i].data(), back[i].size) != 0)) {
      std::fprintf(stderr, "write_fuzz_seeds: %s/%s does not split back into its parts\n", target.c_str(),
                   name.c_str());
      gOk = false;
      return;
    }
  }
  seed(target, name, joined);
}

void put32le(Bytes& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(v >> (8 * k));
}
void put16le(Bytes& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v);
  b[at + 1] = uint8_t(v >> 8);
}
void put32be(Bytes& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(v >> (24 - 8 * k));
}
void put16be(Bytes& b, size_t at, uint16_t v) {
  b[at] = uint8_t(v >> 8);
  b[at + 1] = uint8_t(v);
}
uint32_t get32le(const Bytes& b, size_t at) {
  return uint32_t(b[at]) | (uint32_t(b[at + 1]) << 8) | (uint32_t(b[at + 2]) << 16) | (uint32_t(b[at + 3]) << 24);
}
uint32_t get32be(const Bytes& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}

const uint32_t kExtremes32[] = {0u, 0x7FFFFFFFu, 0xFFFFFFFFu};

// ---- ActorX: every chunk's DataCount and DataSize at the extremes -------------------------------

// Calls `each(offset of header)` for every chunk of a writer-made ActorX file.
void forEachChunk(const Bytes& b, const std::function<void(size_t)>& each) {
  for (size_t pos = 0; pos + 32 <= b.size();) {
    each(pos);
    const uint64_t bytes = uint64_t(get32le(b, pos + 24)) * get32le(b, pos + 28);
    pos += 32 + size_t(bytes);
  }
}

void actorxExtremes(const std::string& target, const std::string& stem, const Bytes& file,
                    const std::function<void(const std::string&, const Bytes&)>& emit) {
  int chunk = 0;
  forEachChunk(file, [&](size_t pos) {
    const uint32_t count = get32le(file, pos + 28);
    const uint32_t counts[] = {0u, count + 1, 0x7FFFFFFFu, 0xFFFFFFFFu};
    for (uint32_t v : counts) {
      Bytes b = file;
      put32le(b, pos + 28, v);
      emit(stem + "_chunk" + std::to_string(chunk) + "_count" + std::to_string(v), b);
    }
    for (uint32_t v : {0u, 1u, 0x7FFFFFFFu}) {
      Bytes b = file;
      put32le(b, pos + 24, v);
      emit(stem + "_chunk" + std::to_string(chunk) + "_size" + std::to_string(v), b);
    }
    ++chunk;
  });
  (void)target;
}

// ---- PSK ------------------------------------------------------------------------------------------

psk::Bone pskBone(const std::string& name, int32_t parent, float z) {
  psk::Bone b;
  b.name = name;
  b.parent = parent;
  b.position[2] = z;
  return b;
}

// A quad of 4 points, 4 wedges, 2 faces, 2 materials, 2 bones and their weights.
psk::Mesh quadMesh() {
  psk::Mesh m;
  m.points = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1};
  for (uint32_t i = 0; i < 4; ++i) m.wedges.push_back({i, float(i & 1), float(i >> 1), uint8_t(i & 1)});
  psk::Face a, b;
  a.wedge[0] = 0, a.wedge[1] = 1, a.wedge[2] = 2;
  b.wedge[0] = 0, b.wedge[1] = 2, b.wedge[2] = 3, b.material = 1;
  m.faces = {a, b};
  m.materials = {{"Skin", 0, 0}, {"Glass", 2, 1}};
  m.bones = {pskBone("Root", 0, 0), pskBone("Head", 0, 1)};
  m.weights = {{1, 0, 0}, {1, 1, 0}, {0.5f, 2, 0}, {0.5f, 2, 1}, {1, 3, 1}};
  return m;
}

void pskSeeds(const std::string& fixtures) {
  const char* target = "fuzz_psk";
  for (const char* f :
       {"two_bone.psk", "static.pskx", "morph.psk", "hostile_names.psk", "two_bone_cap.psk", "truncated.psk"}) {
    Bytes b = readFile(fixtures + "/" + f);
    if (!b.empty()) seed(target, f, b);
  }
  const psk::Mesh base = quadMesh();
  auto emit = [&](const std::string& name, const Bytes& b) { seed(target, name + ".psk", b); };
  emit("quad", writePsk(base));

  psk::MeshOptions o;
  o.face32 = true;
  emit("face32", writePsk(base, o));
  o = psk::MeshOptions();
  o.pointIndexJunk = 0xABCD;
  emit("junk_point_index", writePsk(base, o));
  o = psk::MeshOptions();
  o.repeatHeader = true;
  o.unknownChunk = true;
  emit("repeat_head_unknown_chunk", writePsk(base, o));
  o = psk::MeshOptions();
  o.typeFlagEverywhere = true;
  o.padNamesWithSpaces = true;
  emit("typeflag_everywhere", writePsk(base, o));

  {  // vertex colours, in the BGRA era and after it
    psk::Mesh m = base;
    m.colors = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 128, 9, 9, 9, 0};
    o = psk::MeshOptions();
    o.typeFlag = 2003321;
    emit("colors_bgra", writePsk(m, o));
    o.typeFlag = 20100422;
    emit("colors_rgba", writePsk(m, o));
    m.colors.resize(8);
    emit("colors_short", writePsk(m, o));
  }
  {  // file normals, before and after the materials; a count that does not match
    psk::Mesh m = base;
    m.normals = {0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0};
    emit("normals", writePsk(m));
    o = psk::MeshOptions();
    o.normalsAfterMaterials = true;
    emit("normals_after_materials", writePsk(m, o));
    m.normals.resize(6);
    emit("normals_short", writePsk(m));
  }
  {  // extra UV sets under both ids
    psk::Mesh m = base;
    m.extraUvs = {{0, 0, 1, 0, 1, 1, 0, 1}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}};
    emit("extra_uvs", writePsk(m));
    o = psk::MeshOptions();
    o.extraUvId = "EXTRAUV";
    m.extraUvs.push_back({0, 0});
    emit("extra_uv_short", writePsk(m, o));
  }
  {  // morph targets: deltas on shared points, past the points, more declared than present
    psk::Mesh m = base;
    psk::MorphTarget t;
    t.name = "Smile";
    psk::MorphDelta d;
    d.position[2] = 1;
    d.tangentZ[0] = 1;
    d.point = 2;
    t.deltas = {d};
    d.point = 99;
    t.deltas.push_back(d);
    psk::MorphTarget u;
    u.name = "Blink";
    d.point = 0;
    u.deltas = {d, d};
    m.morphs = {t, u};
    emit("morphs", writePsk(m));
  }
  {  // sockets with each DataSize CUE4Parse has written
    psk::Mesh m = base;
    psk::Socket s;
    s.name = "hand";
    s.bone = "head";  // case differs: the case-insensitive lookup
    s.rotator[1] = 90;
    psk::Socket t = s;
    t.name = "nowhere";
    t.bone = "Missing";
    m.sockets = {s, t};
    for (int32_t size : {164, 138, 168}) {
      o = psk::MeshOptions();
      o.socketDataSize = size;
      emit("sockets_" + std::to_string(size), writePsk(m, o));
    }
  }
  {  // static layouts: no skeleton chunks, empty skeleton chunks
    psk::Mesh m = base;
    m.bones.clear();
    m.weights.clear();
    o = psk::MeshOptions();
    o.skeletonChunks = false;
    emit("static_no_skeleton", writePsk(m, o));
    emit("static_empty_skeleton", writePsk(m));
  }
  {  // bone hierarchy oddities: bad parents, a cycle, weights out of range
    psk::Mesh m = base;
    m.bones.push_back(pskBone("A", 3, 2));
    m.bones.push_back(pskBone("B", 2, 3));
    m.bones.push_back(pskBone("C", 77, 4));
    m.weights.push_back({0.25f, 9, 0});
    m.weights.push_back({-1, 0, 1});
    m.weights.push_back({0.2f, 0, 4});
    m.weights.push_back({0.2f, 0, 3});
    m.weights.push_back({0.2f, 0, 2});
    emit("bone_cycle", writePsk(m));
  }
  {  // smoothing groups: flat (0), disjoint bits; faces with bad wedges and materials
    psk::Mesh m = base;
    m.faces[0].smoothing = 0;
    m.faces[1].smoothing = 6;
    psk::Face bad;
    bad.wedge[0] = 0, bad.wedge[1] = 1, bad.wedge[2] = 40;
    psk::Face badMat;
    badMat.wedge[0] = 1, badMat.wedge[1] = 2, badMat.wedge[2] = 3, badMat.material = 9, badMat.smoothing = 2;
    m.faces.push_back(bad);
    m.faces.push_back(badMat);
    m.wedges.push_back({70, 0, 0, 0});
    emit("smoothing_groups", writePsk(m));
  }
  {  // more than 256 materials (the group sort's placeholder bucket)
    psk::Mesh m = base;
    m.materials.resize(257, {"M", 0, 0});
    m.faces[1].material = 255;
    emit("materials_257", writePsk(m));
  }
  actorxExtremes(target, "quad", writePsk(base), emit);
}

// ---- PSA ------------------------------------------------------------------------------------------

psk::Animation walkAnimation(size_t bones) {
  psk::Animation a;
  for (size_t b = 0; b < bones; ++b) a.bones.push_back(pskBone(b == 0 ? "Root" : "Bone" + std::to_string(b), 0, 1));
  psk::Sequence walk;
  walk.name = "Walk";
  walk.fps = 10;
  walk.frames = 3;
  for (uint32_t f = 0; f < walk.frames * bones; ++f) {
    psk::Key k;
    k.position[0] = float(f);
    k.rotation[0] = 0.1f * float(f);
    walk.keys.push_back(k);
  }
  psk::Sequence jump = walk;
  jump.name = "Jump";
  jump.fps = 30;
  jump.frames = 2;
  jump.keys.resize(jump.frames * bones);
  a.sequences = {walk, jump};
  return a;
}

std::string configText() {
  psk::Config c;
  c.rotationOnly = true;
  c.useTranslation = {"bone1"};
  c.forceMeshTranslation = {"Bone2", "Nobody"};
  c.removeTracks = {{"Walk", 1, "trans"}, {"jump", 2, "rot"}, {"Walk", 0, "all"}, {"Missing", 0, "all"}};
  return psk::writePsaConfig(c) + "[AnimSet]\nUnknownKey=3\n[Other]\nline\n[RemoveTracks]\nWalk.x=all\nWalk.1=twist\n";
}

void psaSeeds(const std::string& fixtures) {
  const char* target = "fuzz_psa";
  const std::string config = configText();
  auto emit = [&](const std::string& name, const Bytes& psa) {
    seed(target, name + ".psa", psa);
    seedParts(target, name + "_config.bin", {psa, textBytes(config)});
  };
  for (const char* f : {"two_bone.psa", "hostile_names.psa"}) {
    Bytes b = readFile(fixtures + "/" + f);
    if (!b.empty()) emit(f, b);
  }
  const psk::Animation base = walkAnimation(3);
  emit("walk", writePsa(base));
  seedParts(target, "walk_rotation_only.bin", {writePsa(base), textBytes("[AnimSet]\nbAnimRotationOnly=1\n")});
  {
    psk::AnimOptions o;
    o.curveChunk = true;
    o.emptyScaleChunk = false;
    o.typeFlagEverywhere = true;
    o.padNamesWithSpaces = true;
    emit("curve_no_scale_chunk", writePsa(base, o));
  }
  {  // scale keys on one sequence, on both; a mismatched count
    psk::Animation a = base;
    a.sequences[0].scaleKeys.assign(a.sequences[0].frames * 3 * 3, 1.5f);
    emit("scale_one_sequence", writePsa(a));
    a.sequences[1].scaleKeys.assign(a.sequences[1].frames * 3 * 3, 0.5f);
    emit("scale_keys", writePsa(a));
  }
  {  // odd sequence headers: rates, TotalBones, FirstRawFrame, an empty sequence
    psk::Animation a = base;
    a.sequences[0].fps = 0;
    a.sequences[1].fps = NAN;
    a.sequences[0].totalBones = 7;
    a.sequences[1].firstRawFrame = 99;
    psk::Sequence empty;
    empty.name = "Empty";
    a.sequences.push_back(empty);
    emit("odd_sequences", writePsa(a));
  }
  {  // keys beyond what the sequences use, and fewer than they need
    psk::Animation a = base;
    a.sequences[1].keys.resize(a.sequences[1].keys.size() + 5);
    emit("extra_keys", writePsa(a));
    a = base;
    a.sequences[1].keys.resize(1);
    emit("missing_keys", writePsa(a));
  }
  emit("one_bone", writePsa(walkAnimation(1)));
  {  // no bones at all (zero-sized work per frame)
    psk::Animation a = walkAnimation(0);
    emit("no_bones", writePsa(a));
  }
  actorxExtremes(target, "walk", writePsa(base),
                 [&](const std::string& name, const Bytes& b) { seed(target, name + ".psa", b); });
}

// ---- 0 A.D. ---------------------------------------------------------------------------------------

void pmdSeeds(const std::string& fixtures) {
  const char* target = "fuzz_pmd";
  for (const char* f : {"arm.pmd", "old_v1.pmd"}) {
    Bytes b = readFile(fixtures + "/" + f);
    if (!b.empty()) seed(target, f, b);
  }
  // A tetrahedron on 3 bones, with props: small enough to mutate quickly.
  PmdDesc d;
  d.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  d.normals = {0, 0, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  d.blendBones = {0, 0xFF, 0xFF, 0xFF, 1, 2, 0xFF, 0xFF, 2, 0xFF, 0xFF, 0xFF, 3, 0xFF, 0xFF, 0xFF};
  d.blendWeights = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  d.indices = {0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 2};
  d.bones.resize(3);
  d.bones[1].translation[1] = 1;
  d.bones[2].rotation[0] = 1, d.bones[2].rotation[3] = 0;
  ZeroadProp hand;
  hand.name = "prop_hand";
  hand.bone = 1;
  ZeroadProp root;
  root.name = "root";
  ZeroadProp stray;
  stray.name = "prop_stray";
  stray.bone = 9;
  d.props = {hand, root, stray};
  for (uint32_t version : {1u, 2u, 3u, 4u, 5u}) {
    PmdDesc v = d;
    v.version = version;
    seed(target, "tetra_v" + std::to_string(version) + ".pmd", writePmd(v));
  }
  for (uint32_t sets : {0u, 2u, 3u}) {
    PmdDesc v = d;
    v.uvSets = sets;
    seed(target, "tetra_uvsets" + std::to_string(sets) + ".pmd", writePmd(v));
  }
  {  // no bones (static); NaN floats; negative and zero weights; a face past the vertices
    PmdDesc v = d;
    v.bones.clear();
    v.blendBones.clear();
    v.blendWeights.clear();
    seed(target, "tetra_static.pmd", writePmd(v));
    v = d;
    v.normals[0] = NAN;
    v.positions[3] = INFINITY;
    v.bones[0].rotation[3] = NAN;
    v.blendWeights[4] = -1;
    v.blendWeights[8] = 0;
    v.indices.insert(v.indices.end(), {0, 1, 40});
    seed(target, "tetra_bad_values.pmd", writePmd(v));
    v.overridePayloadSize = true;
    v.payloadSize = 7;
    seed(target, "tetra_bad_payload.pmd", writePmd(v));
  }
  // Every count at the extremes, one at a time.
  const char* const names[] = {"vertices", "faces", "bones", "props"};
  for (int field = 0; field < 4; ++field) {
    for (uint32_t value : kExtremes32) {
      PmdDesc v = d;
      v.overrideCounts = true;
      v.numVertices = 4, v.numFaces = 4, v.numBones = 3, v.numProps = 3;
      uint32_t* slot[] = {&v.numVertices, &v.numFaces, &v.numBones, &v.numProps};
      *slot[field] = value;
      seed(target, std::string("tetra_") + names[field] + "_" + std::to_string(value) + ".pmd", writePmd(v));
    }
  }
}

void pssaSeeds(const std::string& fixtures) {
  const char* target = "fuzz_pssa";
  for (const char* f : {"arm_wave.psa", "arm_bad.psa"}) {
    Bytes b = readFile(fixtures + "/" + f);
    if (!b.empty()) seed(target, f, b);
  }
  PssaDesc d;
  d.name = "wave";
  d.bones = 2;
  d.frames = 3;
  d.keys.resize(6);
  d.keys[3].rotation[2] = 1;
  seed(target, "wave.psa", writePssa(d));
  const std::pair<float, const char*> frameLengths[] = {
      {0.0f, "0"}, {0.5f, "seconds"}, {-3.0f, "negative"}, {float(NAN), "nan"}};
  for (const auto& fl : frameLengths) {
    PssaDesc v = d;
    v.frameLength = fl.first;
    seed(target, std::string("wave_frame_length_") + fl.second + ".psa", writePssa(v));
  }
  {
    PssaDesc v = d;
    v.version = 2;
    v.name.clear();
    v.keys[1].translation[0] = NAN;
    v.keys[4].rotation[0] = INFINITY;
    seed(target, "wave_v2_bad_keys.psa", writePssa(v));
  }
  {
    PssaDesc v = d;
    v.bones = 0;
    v.keys.clear();
    seed(target, "no_bones.psa", writePssa(v));
  }
  for (uint32_t value : kExtremes32) {
    for (int field = 0; field < 2; ++field) {
      PssaDesc v = d;
      v.overrideCounts = true;
      (field ? v.frames : v.bones) = value;
      seed(target, std::string(field ? "frames_" : "bones_") + std::to_string(value) + ".psa", writePssa(v));
    }
  }
}

// ---- UE1 ------------------------------------------------------------------------------------------

std::string richUc() {
  UcBuilder uc("Thing", "Decoration");
  uc.meshImport("Thing", "thing_a.3d", "thing_d.3d", true)
      .line(
          "#exec MESH IMPORT MESH=Other ANIVFILE=MODELS\\other_a.3d DATAFILE=\"MODELS/other_d.3d\" ZEROTEX=1 "
          "UNMIRRORTEX=1")
      .origin("Thing", 0, 0, -8, 0, 64, 0)
      .sequence("Thing", "All", 0, 4, 0, "")
      .sequence("Thing", "Still", 0, 1, 12, "Rest")
      .sequence("Thing", "Run", 1, 3, 20, "Moving")
      .sequence("Thing", "Run", 1, 2, 15, "Moving")
      .sequence("Thing", "Past", 9, 2)
      .sequence("Thing", "Before", -2, 3)
      .sequence("Thing", "None", 0, 0)
      .line("#exec MESH NOTIFY MESH=Thing SEQ=Run TIME=0.5 FUNCTION=Step")
      .line("#exec MESH NOTIFY MESH=Thing SEQ=Run TIME=1.5 FUNCTION=Late")
      .line("#exec MESH NOTIFY MESH=Thing SEQ=Ghost TIME=0.1 FUNCTION=Boo")
      .line("#exec MESH DROPFRAMES MESH=Thing STARTFRAME=1 ENDFRAME=2")
      .meshmapNew("ThingMap", "Thing")
      .scale("ThingMap", 0.1, 0.1, 0.2)
      .line("#exec MESHMAP SCALE MESHMAP=Orphan X=nan")
      .textureImport("Skin1", "Textures\\skin1.pcx", 2)
      .textureImport("", "Textures/skin2.PCX")
      .setTexture("ThingMap", 0, "Skin1")
      .setTexture("ThingMap", 1, "Pkg.Group.Skin2")
      .line("#exec MESHMAP SETTEXTURE MESHMAP=ThingMap NUM=300 TEXTURE=Bad")
      .line("// #exec MESH IMPORT MESH=Commented")
      .line("/* #exec MESH ORIGIN MESH=Thing X=99\n   */ #forceexec MESH ORIGIN MESH=Thing YAW=10 X=1e999")
      .line("#exec mesh sequence mesh=thing seq=Lower startframe=2 numframes=1 rate=0")
      .skin("Pkg.Skin1")
      .multiSkin(1, "Pkg.Group.Skin2")
      .multiSkin(2, "Other");
  return uc.str();
}

struct Ue1Set {
  Bytes data, anim;
};

// 4 vertices, one triangle per render type and flag, a weapon triangle, 4 frames.
Ue1Set ue1Tetra(Ue1Encoding encoding, uint16_t pad) {
  std::vector<Ue1WriteTriangle> tris;
  const uint8_t types[] = {0, 1, 2, 3, 4, 5, 6, 8, 0x11, 0x22, 0x43, 0x80};
  for (size_t i = 0; i < sizeof types; ++i) {
    Ue1WriteTriangle t;
    t.v[0] = uint16_t(i % 4), t.v[1] = uint16_t((i + 1) % 4), t.v[2] = uint16_t((i + 2) % 4);
    t.type = types[i];
    t.textureNum = uint8_t(i % 3 == 2 ? 16 : i % 3);
    for (int k = 0; k < 3; ++k) t.uv[k][0] = uint8_t(k * 100), t.uv[k][1] = uint8_t(i * 20);
    tris.push_back(t);
  }
  Ue1WriteTriangle stray;
  stray.v[0] = 0, stray.v[1] = 1, stray.v[2] = 9;
  tris.push_back(stray);
  std::vector<int32_t> xyz;
  for (int f = 0; f < 4; ++f)
    for (int v = 0; v < 4; ++v) xyz.insert(xyz.end(), {v * 100 + f * 10, (v & 1) * 50, (v >> 1) * 40 - f});
  Ue1Set s;
  s.data = writeUe1Data(tris, 4, pad != 0);
  s.anim = writeUe1Anim(xyz, 4, encoding, pad);
  return s;
}

void ue1Seeds(const std::string& fixtures) {
  const char* target = "fuzz_ue1";
  const Bytes flagUc = readFile(fixtures + "/flag.uc");
  for (const char* stem : {"flag", "dx_box"}) {
    const Bytes d = readFile(fixtures + "/" + stem + "_d.3d"), a = readFile(fixtures + "/" + stem + "_a.3d");
    if (d.empty() || a.empty()) continue;
    seedParts(target, std::string(stem) + ".bin", {d, a, std::string(stem) == "flag" ? flagUc : Bytes()});
  }
  const std::string uc = richUc();
  Ue1Set packed = ue1Tetra(Ue1Encoding::Packed, 0);
  Ue1Set dx = ue1Tetra(Ue1Encoding::Dx16, 0);
  seedParts(target, "tetra_packed.bin", {packed.data, packed.anim, Bytes()});
  seedParts(target, "tetra_packed_uc.bin", {packed.data, packed.anim, textBytes(uc)});
  seedParts(target, "tetra_dx16_uc.bin", {dx.data, dx.anim, textBytes(uc)});
  for (uint16_t pad : {2, 7, 9, 20}) {
    Ue1Set p = ue1Tetra(pad % 2 ? Ue1Encoding::Dx16 : Ue1Encoding::Packed, pad);
    seedParts(target, "tetra_pad" + std::to_string(pad) + ".bin", {p.data, p.anim, Bytes()});
  }
  // A .uc that names other files, and one that only sets defaultproperties skins.
  seedParts(target, "tetra_other_mesh.bin",
            {packed.data, packed.anim, textBytes(UcBuilder().meshImport("Nope", "a.3d", "b.3d").str())});
  seedParts(target, "tetra_skins_only.bin",
            {packed.data, packed.anim, textBytes(UcBuilder().skin("S").multiSkin(0, "T").str())});
  // Header counts at the extremes: NumPolys, NumVertices (data); NumFrames, FrameSize (anim).
  for (uint16_t v : {0, 1, 3, 0xFFFF}) {
    Bytes d = packed.data;
    put16le(d, 0, v);
    seedParts(target, "polys_" + std::to_string(v) + ".bin", {d, packed.anim, Bytes()});
    d = packed.data;
    put16le(d, 2, v);
    seedParts(target, "vertices_" + std::to_string(v) + ".bin", {d, packed.anim, Bytes()});
    Bytes a = packed.anim;
    put16le(a, 0, v);
    seedParts(target, "frames_" + std::to_string(v) + ".bin", {packed.data, a, Bytes()});
    a = packed.anim;
    put16le(a, 2, v);
    seedParts(target, "frame_size_" + std::to_string(v) + ".bin", {packed.data, a, Bytes()});
  }
}

void ucSeeds(const std::string& fixtures) {
  const char* target = "fuzz_uc";
  Bytes flag = readFile(fixtures + "/flag.uc");
  if (!flag.empty()) seed(target, "flag.uc", flag);
  seed(target, "rich.uc", textBytes(richUc()));
  seed(target, "defaults.uc",
       textBytes("class X expands Y;\ndefaultproperties\n{\n  Skin=Texture'A.B'\n  MultiSkins[3]=\"Q\"\n"
                 "  MultiSkins(999)=Z;\n  skin = Texture'C'\n}\n"));
}

void pcxSeeds(const std::string& fixtures) {
  const char* target = "fuzz_pcx";
  Bytes flag = readFile(fixtures + "/flag.pcx");
  if (!flag.empty()) seed(target, "flag.pcx", flag);
  std::vector<uint8_t> palette(768);
  for (size_t i = 0; i < palette.size(); ++i) palette[i] = uint8_t(i * 7);
  std::vector<uint8_t> indices(9 * 5);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = uint8_t(i % 3 ? i : 0xC5);  // values that need RLE escapes
  seed(target, "odd_width.pcx", writePcx8(9, 5, indices, palette));
  std::vector<uint8_t> rgb(7 * 3 * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 13);
  Bytes rgb24 = writePcx24(7, 3, rgb);
  seed(target, "rgb24.pcx", rgb24);
  {  // no palette marker; raw (unencoded) pixels; version 3
    Bytes b = writePcx8(4, 4, std::vector<uint8_t>(16, 2), palette);
    b[b.size() - 769] = 0;
    seed(target, "no_palette.pcx", b);
    Bytes raw(b.begin(), b.begin() + 128);
    raw[2] = 0;
    raw.insert(raw.end(), 16 + 16, 1);
    seed(target, "raw.pcx", raw);
    Bytes v3 = writePcx8(2, 2, {0, 1, 2, 3}, palette);
    v3[1] = 3;
    seed(target, "version3.pcx", v3);
  }
  {  // window and line-size extremes
    Bytes b = writePcx8(4, 4, std::vector<uint8_t>(16, 1), palette);
    for (uint16_t v : {0, 1, 0x7FFF, 0xFFFF}) {
      Bytes c = b;
      put16le(c, 8, v);  // xmax
      seed(target, "xmax_" + std::to_string(v) + ".pcx", c);
      c = b;
      put16le(c, 10, v);  // ymax
      seed(target, "ymax_" + std::to_string(v) + ".pcx", c);
      c = b;
      put16le(c, 66, v);  // BytesPerLine
      seed(target, "bytes_per_line_" + std::to_string(v) + ".pcx", c);
    }
  }
}

// ---- PSG ------------------------------------------------------------------------------------------

PsgMeshIn psgTriangle(std::vector<PsgElementIn> layout) {
  PsgMeshIn m;
  m.layout = std::move(layout);
  m.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  m.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1};
  m.uvs = {{0, 0, 1, 0, 0, 1}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}};
  m.colors = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255};
  m.tangents = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
  m.skinSlots = {0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0};
  m.skinWeights = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  m.palette = {1, 0, 7};
  m.indices = {0, 1, 2};
  return m;
}

PsgModelIn psgModel(const std::vector<PsgElementIn>& layout) {
  PsgModelIn m;
  m.name = "seed";
  m.bones = {psgBone("HIPS"), psgBone("SPINE", 0, -1, 0), psgBone("L_UPPERARM", 0.5f, -1.5f, 0)};
  m.materials = {PsgMaterialIn{{{"Name", 0, "stone"}, {"specular", 0x99, ""}, {"diffuse", 0x1122334455667788ull, ""}}},
                 PsgMaterialIn{{{"normal", 0x42, "bump"}}}};
  m.meshes = {psgTriangle(layout)};
  return m;
}

PsgTextureIn psgTexture(uint8_t format, uint16_t w, uint16_t h, uint32_t mips, bool cube) {
  PsgTextureIn t;
  t.guid = 0xABCDEF0012345678ull + format;
  t.format = format;
  t.width = w;
  t.height = h;
  t.cube = cube;
  for (uint32_t l = 0; l < mips; ++l) {
    std::vector<uint8_t> level(psgLevelBytes(format, w, h, l) * (cube ? 6 : 1));
    for (size_t i = 0; i < level.size(); ++i) level[i] = uint8_t(i * 31 + l);
    t.levels.push_back(level);
  }
  return t;
}

// Patches a u32 (or u16) field of every object of `typeId` in a writer-made arena.
void psgObjectExtremes(const std::string& target, const std::string& stem, const Bytes& arena, uint32_t typeId,
                       const char* typeLabel, size_t field, bool u16) {
  const uint32_t numEntries = get32be(arena, 0x20), dict = get32be(arena, 0x30);
  for (uint32_t i = 0; i < numEntries; ++i) {
    const size_t row = dict + size_t(i) * 24;
    if (get32be(arena, row + 20) != typeId) continue;
    const size_t at = get32be(arena, row) + field;
    for (uint32_t v : {0u, 0xFFFFu, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      if (u16 && v > 0xFFFF) continue;
      Bytes b = arena;
      if (u16)
        put16be(b, at, uint16_t(v));
      else
        put32be(b, at, v);
      seed(target, stem + "_" + typeLabel + "_" + std::to_string(field) + "_" + std::to_string(v) + ".psg", b);
    }
    return;  // the first object of the type is enough
  }
}

void psgSeeds(const std::string& fixtures) {
  const char* target = "fuzz_psg";
  for (const char* f : {"skinned_box.psg", "box_textures.psg"}) {
    Bytes b = readFile(fixtures + "/" + f);
    if (!b.empty()) seed(target, f, b);
  }
  using namespace psgv;
  // Every vertex type in some slot, skinned and not.
  const std::vector<std::vector<PsgElementIn>> layouts = {
      {{F, 3, XYZ}, {CMP, 1, NORMAL}, {SF, 2, TEX0}, {UB, 4, BLENDWEIGHT}, {UB256, 4, BLENDINDICES}},
      {{S1, 3, XYZ}, {S1, 3, NORMAL}, {F, 2, TEX0}, {SF, 2, TEX1}, {UB, 4, COLOR0}},
      {{S32K, 3, XYZ}, {SF, 4, NORMAL}, {S1, 2, TEX0}, {F, 4, COLOR0}, {F, 4, TANGENT}},
      {{SF, 3, XYZ}, {F, 3, NORMAL}, {UB256, 4, BLENDINDICES}},
      {{F, 3, XYZ}, {F, 4, BLENDWEIGHT}, {UB, 4, BLENDINDICES}, {UB256, 4, COLOR0}},
  };
  Bytes first;
  for (size_t i = 0; i < layouts.size(); ++i) {
    Bytes b = writePsgModel(psgModel(layouts[i]));
    if (i == 0) first = b;
    seed(target, "layout" + std::to_string(i) + ".psg", b);
  }
  {  // two meshes, islands, 32-bit indices, a mesh without material, textures in the same arena
    PsgModelIn m = psgModel(layouts[0]);
    PsgMeshIn second = psgTriangle(layouts[1]);
    second.indices = {0, 1, 2, 2, 1, 0, 0, 0, 9};
    second.islands = {3, 6};
    second.indexSize = 4;
    second.material = -1;
    m.meshes.push_back(second);
    m.textures = {psgTexture(0x86, 8, 8, 4, false)};
    seed(target, "two_meshes_texture.psg", writePsgModel(m));
    m.meshes[0].primType = 4;
    seed(target, "prim_type_4.psg", writePsgModel(m));
  }
  {  // a static model: one bone, the model name
    PsgModelIn m = psgModel({{F, 3, XYZ}});
    m.bones = {psgBone("statue")};
    m.meshes[0].palette.clear();
    seed(target, "static.psg", writePsgModel(m));
  }
  // Texture arenas: every format, mips, cube maps, sizes that are not powers of two.
  seed(target, "textures.psg",
       writePsgTextures({psgTexture(0x86, 8, 4, 4, false), psgTexture(0x87, 4, 4, 1, false),
                         psgTexture(0x88, 4, 8, 2, true), psgTexture(0x85, 4, 4, 3, false),
                         psgTexture(0xA5, 3, 5, 1, false), psgTexture(0x85, 2, 2, 2, true)}));
  seed(target, "texture_unknown_format.psg", writePsgTextures({psgTexture(0x81, 4, 4, 1, false)}));
  // Count fields of each object type at the extremes.
  psgObjectExtremes(target, "layout0", first, 0x00EB0001, "model", 0x32, true);       // numMeshes
  psgObjectExtremes(target, "layout0", first, 0x00EB0001, "model", 0x34, true);       // numBones
  psgObjectExtremes(target, "layout0", first, 0x00EB0023, "optimesh", 0x38, false);   // numIslands
  psgObjectExtremes(target, "layout0", first, 0x00EB0023, "optimesh", 0x48, false);   // numRemap
  psgObjectExtremes(target, "layout0", first, 0x000200E9, "descriptor", 0x0A, true);  // numElements
  psgObjectExtremes(target, "layout0", first, 0x000200EA, "vertexbuffer", 8, false);  // bytes
  psgObjectExtremes(target, "layout0", first, 0x000200EB, "indexbuffer", 8, false);   // numIndices
  psgObjectExtremes(target, "layout0", first, 0x00EB0005, "materials", 0, false);     // numMaterials
  psgObjectExtremes(target, "layout0", first, 0x00EB000B, "toc", 0, false);           // items
  for (size_t field : {0x20, 0x24, 0x30, 0x34}) {  // arena header: numEntries, numUsed, dictStart, sections
    for (uint32_t v : kExtremes32) {
      Bytes b = first;
      put32be(b, field, v);
      seed(target, "layout0_header_" + std::to_string(field) + "_" + std::to_string(v) + ".psg", b);
    }
  }
}

// fuzz_psg_texture: whole texture arenas, and (Texture object, payload) pairs for its splice.
void psgTextureSeeds(const std::string& fixtures) {
  const char* target = "fuzz_psg_texture";
  Bytes box = readFile(fixtures + "/box_textures.psg");
  if (!box.empty()) seed(target, "box_textures.psg", box);
  struct Case {
    uint8_t format;
    uint16_t w, h;
    uint32_t mips;
    bool cube;
  };
  const Case cases[] = {{0x86, 8, 8, 4, false}, {0x87, 4, 8, 2, false}, {0x88, 8, 4, 1, true},
                        {0x85, 8, 8, 4, false}, {0xA5, 6, 3, 1, false}, {0x85, 4, 4, 3, true}};
  for (const Case& c : cases) {
    const PsgTextureIn t = psgTexture(c.format, c.w, c.h, c.mips, c.cube);
    const Bytes arena = writePsgTextures({t});
    const std::string stem = "format" + std::to_string(c.format) + "_" + std::to_string(c.w) + "x" +
                             std::to_string(c.h) + "_mips" + std::to_string(c.mips) + (c.cube ? "_cube" : "");
    seed(target, stem + ".psg", arena);
    // The Texture object (dictionary row 1) and its payload (row 0, the BaseResource).
    const uint32_t dict = get32be(arena, 0x30);
    const uint32_t obj = get32be(arena, dict + 24);
    const Bytes object(arena.begin() + obj, arena.begin() + obj + 40);
    const Bytes payload(arena.begin() + long(get32be(arena, 0x44)), arena.end());
    seedParts(target, stem + "_splice.bin", {object, payload});
  }
}

// The fixtures whose extension is one of `exts`, as they are, as seeds of `target`.
void fixtureSeeds(const std::string& fixtures, const char* target, std::initializer_list<const char*> exts) {
  DIR* dir = opendir(fixtures.c_str());
  if (!dir) return;
  while (const dirent* e = readdir(dir)) {
    const std::string name = e->d_name;
    const size_t dot = name.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : name.substr(dot);
    for (const char* wanted : exts)
      if (ext == wanted) seed(target, name, readFile(fixtures + "/" + name));
  }
  closedir(dir);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: write_fuzz_seeds <fixturesdir> <outdir>\n");
    return 2;
  }
  const std::string fixtures = argv[1];
  gOut = argv[2];
  mkdir(gOut.c_str(), 0755);
  pskSeeds(fixtures);
  psaSeeds(fixtures);
  pmdSeeds(fixtures);
  pssaSeeds(fixtures);
  ue1Seeds(fixtures);
  ucSeeds(fixtures);
  pcxSeeds(fixtures);
  psgSeeds(fixtures);
  psgTextureSeeds(fixtures);
  // fuzz_image: the image fixtures (the harness picks the decoder by content); fuzz_upackage: the
  // package fixtures (write_upackage_fixtures: each table layout and object kind the reader tells apart).
  fixtureSeeds(fixtures, "fuzz_image", {".tga", ".bmp", ".dds"});
  fixtureSeeds(fixtures, "fuzz_upackage", {".u", ".utx"});
  std::printf("write_fuzz_seeds: %zu seeds in %s\n", gSeeds, gOut.c_str());
  return gOk ? 0 : 1;
}
