// Unreal Engine 1 packages (.u .utx .umx .uax .unr): the tables, and the objects a viewer shows.
// Spec: shared/specs/ue1-package.md (section numbers below refer to it).
//
// A package is read in two steps. listPackage reads the header and the name, import and export
// tables only (no object data) and says what the package holds. decodePackageObject then decodes
// one export into the model the loose files give:
//   Mesh, LodMesh   -> the UE1 vertex model of formats/ue1 (format "ue1"), as _d.3d/_a.3d + .uc would
//   SkeletalMesh    -> a PSK-like skinned model (format "psk")
//   Animation       -> a PSA-like model (format "psa": skeleton.names, one clip per sequence)
//   Texture (+ procedural subclasses), Palette -> one texture (format "upackage-texture")
// Every object is read inside its own [SerialOffset, SerialOffset + SerialSize) and must end
// exactly there (§6); a damaged object is refused alone, the rest of the package still lists.
//
// What the bindings return (wasm/bindings/bindings.cpp):
//
// listPackage(bytes, name) ->
//   { format: 'upackage', name /* file name without extension: the package's own name */,
//     file /* as given */, version, licenseeVersion, packageFlags, warnings: string[],
//     counts: { names, imports, exports },
//     classes: { [className]: exportCount },          // every export class, e.g. { Texture: 117, Mesh: 15 }
//     meshes:   [{ index, name, className, path, group, serialSize, serialOffset }],   // Mesh, LodMesh, SkeletalMesh
//     textures: [{ index, name, className, path, group, serialSize, serialOffset }],   // Texture and subclasses,
//     Palette animations: [{ index, name, className, path, group, serialSize, serialOffset }],  // Animation texts: [{
//     index, name, className, path, group, serialSize, serialOffset }] }      // TextBuffer: a class's source
//   `index` is the export index for decodePackageObject; `path` is Package.Group.Name (the
//   package's own name first); `group` is the path between the two ('' at the top level);
//   `serialOffset`, `serialSize`: where the object's data lies in the file.
//   Export order. A refused package: { error }.
//
// decodePackageObject(bytes, name, exportIndex) -> the decoded model of every other decoder
//   ({ format, name, warnings, counts, info, meshes, materials, skeleton?, clips, vertexAnimation?,
//   attachments, textures }), with info.package (the package name), info.object (the path),
//   info.className, info.packageVersion. Mesh materials' textureNames: [Package.Group.Name, Name]
//   of the slot's texture (a slot naming another package keeps that package's path), empty for an
//   empty slot; a material whose texture is a masked texture of this package is 'masked'.
//   Textures: textures[0] rgba8 mip 0 (P8 through its palette; index 0 transparent when bMasked,
//   info.masked = '1'); with CompMips in DXT1/DXT5, textures[1] holds them as stored ("dxt1" or
//   "dxt5", the levels of the chain as far as it goes: C4Skin has 8 of 10). A procedural texture
//   (mip 0 of 0 bytes) gives an 8 × 8 rgba8 placeholder of its MipZero colour (grey without one);
//   a P8 texture whose palette is in another package (or unreadable) is shown in grey levels with
//   a warning; info.placeholder says why in both cases. counts: width, height (mip 0 as stored),
//   mips, compMips, sparks (FireTexture). info: textureFormat (the Format byte), palette (path),
//   compFormat. A Palette gives a 16 × 16 rgba8 swatch of its 256 colours (counts.colors).
//   Skeletal meshes are placed as the engine shows them (Scale, Origin, RotOrigin: formats/ue1's
//   placeSkeletalModel, the same as a loose .psk placed by its script), with a last bone "MESH
//   ORIGIN" holding the placement when it is not the identity.
//   Vertex meshes add info.vertexBytes ('4' packed, '8' Deus Ex), info.rotOrigin (65536 a turn),
//   counts.frameVerts, counts.textureSlots (LodMesh: wedges, specialVerts, specialFaces); skeletal
//   meshes add info.defaultAnimation (path), info.rotOrigin, counts.textureSlots, counts.sequences.
//   A TextBuffer (a class's .uc source, its #exec lines and all): format 'upackage-text', info.text
//   (cp1252 as UTF-8), counts.bytes.
//   Animations: skeleton.names = RefBones (identity rest pose), clips with tracks by bone index
//   (bindBy 'name', as a .psa), counts bones, sequences, moves.
//   The model's format is that of the loose family ('ue1', 'psk', 'psa'), or 'upackage-texture'.
//   A refused object: { error } naming the object, the field and the byte.
//
// Parts of a package (a link read by ranges, core/ranged.js): listPackageParts(bytes, name,
// present) and decodePackageObjectParts(bytes, name, exportIndex, present) take the whole file's
// length of bytes of which only the spans `present` ([begin0, end0, begin1, end1, ...]) hold the
// file; the rest is never read. What the call needs and is not there comes back as
// { missing: [begin0, end0, ...] }: the header, a table (from where it stops, as far as its
// entries could reach), an object's whole range; every span the call touched, so the caller reads
// them all and calls again.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/error.h"
#include "model/model.h"

namespace rs {

struct PackageImport {
  std::string classPackage, className, name;
  int32_t outer = 0;  // object reference (0 none, >0 export k-1, <0 import -k-1)
  size_t at = 0;      // byte offset of the table entry
};

struct PackageExport {
  int32_t classRef = 0, superRef = 0, outer = 0;
  std::string name;
  uint32_t flags = 0;
  uint32_t serialSize = 0, serialOffset = 0;
  std::string className;  // resolved: the import/export's name, "Class" for 0
  size_t at = 0;          // byte offset of the table entry
};

// Byte spans [begin, end) of a file, sorted, not overlapping.
using Spans = std::vector<std::pair<size_t, size_t>>;

struct Package {
  std::string file;  // as given, for messages
  std::string name;  // the file name without folders and extension
  uint32_t version = 0, licensee = 0, flags = 0;
  size_t size = 0;
  std::vector<std::string> names;
  std::vector<PackageImport> imports;
  std::vector<PackageExport> exports;
  std::vector<std::string> warnings;
  Spans present;          // the spans of the file given (empty: all of it)
  mutable Spans missing;  // spans a read needed and `present` lacks (what to read next)
};

// Header, names, imports, exports (§3–§5). Refuses a package whose tables do not fit, whose
// name/object indices are out of range or whose Outer chains loop or run deeper than 32.
// `present`: the spans of `data` that hold the file (empty: all of it); a read outside them fails
// and adds what it needed to out.missing.
Status readPackage(const uint8_t* data, size_t size, const std::string& file, Package& out,
                   const Spans& present = Spans());

// Package.Group.Name of an object reference (export: this package's name first; import: its
// outermost import first); empty for 0 or an invalid reference.
std::string packageObjectPath(const Package& pkg, int32_t ref);

struct PackageEntry {
  uint32_t index = 0;  // export index
  std::string name, className, path, group;
  uint32_t serialSize = 0, serialOffset = 0;
};

struct PackageListing {
  Package package;
  std::vector<std::pair<std::string, double>> classes;            // class name -> exports, first seen first
  std::vector<PackageEntry> meshes, textures, animations, texts;  // texts: TextBuffer (a class's source)
};

// The tables only (cheap): what the package holds.
Status listPackage(const uint8_t* data, size_t size, const std::string& file, PackageListing& out,
                   const Spans& present = Spans());

// One export (index into the export table) decoded into the model.
// With `present`, a call that needed bytes outside it fails and fills `missing` (which it clears first).
Status decodePackageObject(const uint8_t* data, size_t size, const std::string& file, uint32_t exportIndex, Model& out,
                           const Spans& present = Spans(), Spans* missing = nullptr);

// Same, reusing tables already read by readPackage (a caller decoding many objects).
Status decodePackageObject(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);

bool isPackageMeshClass(const std::string& className);
bool isPackageTextureClass(const std::string& className);  // Texture, its procedural subclasses, Palette

}  // namespace rs
