// Small UE1 packages made by the writer (upackage_examples.cpp): tests, fixtures and fuzz seeds.
#pragma once
#include <cstdint>
#include <string>

#include "writers/upackage_writer.h"

namespace rs {

// A 4-vertex, 2-triangle mesh over `frames` frames; every frame moves the apex. Slots Skin0, Skin1;
// sequences All and Walk (group Moving, a PlayFootStep notify); scale, origin and a quarter turn of yaw.
UpkWriteVertexMesh exampleQuad(const std::string& name, bool lod, bool dx16, uint32_t frames);

// A P8 texture of w x h (indices i % 7) with its 256-colour palette.
UpkWriteTexture exampleTexture(const std::string& name, const std::string& group, uint32_t w, uint32_t h, bool masked);

// Textures Skin0 and Skins.Skin1 (masked) and the mesh Quad of 3 frames, at this file version.
UpkWritePackage examplePackage(uint16_t version, bool lod, bool dx16);

// v68 Deus Ex: the character Trooper (LodMesh, 8-byte vertices, 288 frames in 72 sequences Seq00..Seq71
// at 8 fps, the apex swinging in each) beside Crate, a larger static LodMesh, and examplePackage's textures.
UpkWritePackage exampleCharacterPackage();

}  // namespace rs
