// Skate 3 (PS3) RenderWare 4 arena (.psg): models and texture arenas.
// Spec: shared/specs/skate3-psg.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

Status decodePsg(const uint8_t* data, size_t size, const std::string& file, Model& out);

}  // namespace rs
