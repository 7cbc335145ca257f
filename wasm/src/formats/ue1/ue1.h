// Unreal Engine 1 vertex mesh (_d.3d + _a.3d) with its .uc #exec script, and PCX textures.
// Spec: shared/specs/unreal-vertex-3d.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/error.h"
#include "model/model.h"

namespace rs {

// Vertex positions live only in the _a file, so both files are required. `uc` is the text of the
// .uc class that imports the mesh, or empty (then one "All" sequence spans every frame).
//
// Output (spec §0, §5, §6, §7): positions are `RotOrigin · (Scale ⊙ (v − Origin))` mirrored into
// three space as (−Y, Z, X) with the winding swapped; one render vertex per (vertex, U, V); UVs
// (U/256, 1 − V/256); normals smooth per original vertex, per frame. Materials are one per
// (TextureNum, Type & 15, flag bits 0x10/0x20/0x40), sorted as Epic's importer sorts (texture, then
// type); the weapon triangle (Type & 15 == 8) gets a hidden material named "weapon" and an
// Attachment "weapon" built from frame 0. textureNames, best first: the file base names (without
// extension) of the TEXTURE IMPORTs of the slot's texture, last import first, then the texture
// name itself; MultiSkins(n), then Skin, from defaultproperties when no SETTEXTURE names the slot.
Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc, const std::string& ucFile,
                 Model& out);

// Extra facts the model does not carry (tests, CLI): which original vertex each render vertex is.
struct Ue1Details {
  std::vector<uint32_t> renderToVertex;  // one per render vertex
  bool dx16 = false;
  uint32_t frameBytesSkipped = 0;  // per-frame padding
};
Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc, const std::string& ucFile,
                 Model& out, Ue1Details* details);

// 8-bit palettised (and 24-bit 3-plane) RLE PCX to an rgba8 texture, rows top-down (row 0 = the
// top of the image). With the UE1 UVs (U/256, 1 − V/256) the front end uploads it with
// flipY = true (three's default for images). `maskIndexZero` makes palette index 0 transparent.
Status decodePcx(const uint8_t* data, size_t size, const std::string& file, bool maskIndexZero, Model& out);

// ---- .uc #exec parsing (spec §8) -------------------------------------------------------------

// #exec MESH NOTIFY: the engine calls FUNCTION when the sequence's AnimFrame passes TIME.
struct UcNotify {
  double time = 0;       // TIME=: a fraction 0..1 of the sequence
  std::string function;  // FUNCTION=
};

struct UcSequence {
  std::string name;
  std::string group;
  double startFrame = 0;  // as written: the decoder validates and clamps
  double numFrames = 0;
  double rate = 30;                // frames per second; 30 when RATE= is absent
  std::vector<UcNotify> notifies;  // the MESH NOTIFY lines naming this sequence, in file order
};

struct UcTextureImport {
  std::string name;    // NAME=, or the FILE base name without extension
  std::string file;    // FILE= as written (either slash)
  uint32_t flags = 0;  // FLAGS= (2 = masked)
};

struct UcMesh {
  std::string name;
  std::string dataFile, animFile;  // as written
  bool imported = false;           // a MESH IMPORT line names it
  bool unmirror = false;
  int32_t unmirrorTex = -1;
  bool zeroTex = false;
  double origin[3] = {0, 0, 0};    // raw units
  double rotation[3] = {0, 0, 0};  // PITCH, YAW, ROLL in 1/256 turns
  bool hasScale = false;
  double scale[3] = {1, 1, 1};
  std::vector<UcSequence> sequences;                       // a repeated SEQ replaces the earlier one
  std::vector<std::pair<uint32_t, std::string>> textures;  // MESHMAP SETTEXTURE NUM -> TEXTURE
  // UE2-era skeletal meshes (and UT v436): MESH MODELIMPORT MODELFILE= (a .psk), MESH DEFAULTANIM ANIM=.
  bool modelImported = false;
  std::string modelFile;    // MODELFILE= as written
  std::string defaultAnim;  // DEFAULTANIM ANIM=
};

// #exec ANIM IMPORT ANIM= ANIMFILE= (a .psa); ANIM DIGEST marks it digested.
struct UcAnimImport {
  std::string name;  // ANIM=
  std::string file;  // ANIMFILE= as written
  bool digested = false;
};

// #exec OBJ LOAD FILE= PACKAGE=: a package whose objects the script's slots may name.
struct UcObjLoad {
  std::string file;     // FILE= as written (..\Textures\Foo.utx)
  std::string package;  // the package the file holds: its base name without extension ("Foo")
  std::string into;     // PACKAGE= as written, or empty: the objects are then known as Foo.Group.Name
};

struct UcScript {
  std::vector<UcMesh> meshes;
  std::vector<UcTextureImport> textureImports;               // in file order
  std::vector<UcAnimImport> animImports;                     // in file order; a repeated ANIM replaces
  std::vector<UcObjLoad> objLoads;                           // in file order
  std::string skin;                                          // defaultproperties Skin=
  std::vector<std::pair<uint32_t, std::string>> multiSkins;  // defaultproperties MultiSkins(n)=
  std::vector<std::string> warnings;
  size_t execLines = 0;
};

// Case-insensitive, comments (// and /* */) skipped, quoted values, either slash.
UcScript parseUc(const std::string& text);

// The mesh whose DATAFILE / ANIVFILE base name matches the given file names (case-insensitive,
// both matching preferred over one); -1 when none matches.
int findUcMesh(const UcScript& script, const std::string& dataFile, const std::string& animFile);

// The mesh whose MODELFILE base name (a .psk) matches the given file name (case-insensitive); -1
// when none does.
int findUcModel(const UcScript& script, const std::string& modelFile);

// The ANIM IMPORT whose ANIMFILE base name (a .psa) matches the given file name; -1 when none does.
int findUcAnim(const UcScript& script, const std::string& animFile);

// "MODELS\\scroll1.PCX" -> "scroll1.PCX"; `stem` also drops the extension.
std::string ucBaseName(const std::string& path, bool stem);

// Texture names for a slot's reference (MESHMAP SETTEXTURE, MultiSkins, Skin), best first: the file
// stems of the TEXTURE IMPORTs of that name (last import first), then the short name, then the
// reference as written. `masked` says an import had FLAGS=2.
void ucTextureCandidates(const UcScript& script, const std::string& ref, std::vector<std::string>& out, bool& masked);

// The rotator's axes (spec §7.1), rows = the rotated X/Y/Z axes; angles in 1/256 turns.
void ue1RotationAxes(const double rot[3], double axes[3][3]);

// Rotation matrix given by its columns to a unit quaternion (x, y, z, w).
void ue1MatrixToQuat(const float c0[3], const float c1[3], const float c2[3], float q[4]);

// ---- a skeletal mesh (.psk) or animation (.psa) a script imports (UE2-era engines, UT v436) ----

// MESH ORIGIN X/Y/Z and PITCH/YAW/ROLL (1/256 turns), MESHMAP SCALE: the engine shows the mesh at
// p = RotOrigin · ((v − Origin) ⊙ Scale), in Unreal space.
struct SkeletalPlacement {
  double origin[3] = {0, 0, 0};
  double rotation[3] = {0, 0, 0};
  double scale[3] = {1, 1, 1};
};

// Places a decoded PSK-like model (three space, formats/psk's axes) where the engine shows it:
// positions, normals and morphs moved; a skinned model gets one more bone, "MESH ORIGIN", last,
// parent of every root and the skeleton's helper (no joint), holding the placement (a rotation and a scale along
// three's axes, exactly what a bone's TRS holds), so animations bound by bone names play under it unchanged. An
// identity placement changes nothing. Values past ±1e6 (and scales of 0) are warned about and not applied.
void placeSkeletalModel(Model& m, SkeletalPlacement pl, const std::string& what);

// A .psk decoded, then placed and its materials' texture slots named as the .uc script `uc` that
// imports it (MESH MODELIMPORT MODELFILE= naming `file`) says: MESH ORIGIN, MESHMAP SCALE, MESHMAP
// SETTEXTURE (a loose TEXTURE IMPORT's file stem, or `Package.Name` for each OBJ LOAD package, or
// Package.Group.Name as written), MESH DEFAULTANIM. Material i is texture slot i (ActorX writes
// TexIndex = the material's index). info: script, mesh, defaultAnim, objLoad (the files the script
// loads, "; "-joined). Without a MODELIMPORT naming the file, the model is the plain .psk with a
// warning.
Status decodeScriptedPsk(const uint8_t* data, size_t size, const std::string& file, const std::string& uc,
                         const std::string& ucFile, Model& out);

// ---- a vertex mesh another container holds (a UE1 package's Mesh/LodMesh) ---------------------

// One triangle as the _d.3d stores it (§2.2): corners, (U, V) texel bytes of a 256 page with V
// down, the Type byte (render type | 0x10 unlit | 0x20 flat | 0x40 environment | 0x80 no smooth;
// 8 = weapon triangle) and TextureNum.
struct Ue1Triangle {
  uint16_t v[3] = {0, 0, 0};
  uint8_t uv[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  uint8_t type = 0;
  uint8_t texNum = 0;
};

// The parts decodeUe1 reads from the loose files and the .uc, already taken from their container.
// Frames are what the _a.3d holds after its header: numFrames × numVertices vertices, frame-major,
// packed 11:11:10 (4 bytes) or Deus Ex 16-bit (8 bytes); the caller has checked they are all there.
struct Ue1MeshParts {
  std::string name;  // the mesh
  std::string file;  // for messages
  uint32_t numVertices = 0;
  std::vector<Ue1Triangle> triangles;
  const uint8_t* frames = nullptr;
  uint32_t numFrames = 0;
  bool dx16 = false;
  double scale[3] = {1, 1, 1};                         // MESHMAP SCALE
  double origin[3] = {0, 0, 0};                        // MESH ORIGIN, raw units
  double rotation[3] = {0, 0, 0};                      // MESH ORIGIN PITCH/YAW/ROLL, 1/256 turns
  std::vector<UcSequence> sequences;                   // none: one "All" spans every frame
  std::vector<std::vector<std::string>> slotTextures;  // texture names by TextureNum, best first
  std::vector<uint8_t> slotMasked;                     // by TextureNum: the texture is masked
};

// The same conversion as decodeUe1 (axes, UVs, winding, materials, normals, weapon attachment,
// sequences): a package's vertex mesh becomes the model its loose source files would.
Status buildUe1Mesh(const Ue1MeshParts& parts, Model& out, Ue1Details* details = nullptr);

}  // namespace rs
