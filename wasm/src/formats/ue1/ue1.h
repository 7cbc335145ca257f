// Unreal Engine 1 vertex mesh (_d.3d + _a.3d) with its .uc #exec script, and PCX textures.
// Spec: shared/specs/unreal-vertex-3d.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

// Vertex positions live only in the _a file, so both files are required. `uc` is the text of the
// .uc class that imports the mesh, or empty (then one "All" sequence spans every frame).
Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc,
                 const std::string& ucFile, Model& out);

// 8-bit palettised, RLE PCX to an rgba8 texture. `maskIndexZero` makes palette index 0 transparent.
Status decodePcx(const uint8_t* data, size_t size, const std::string& file, bool maskIndexZero,
                 Model& out);

}  // namespace rs
