// Unreal ActorX skeletal/static mesh (.psk, .pskx). Spec: shared/specs/psk-psa.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

Status decodePsk(const uint8_t* data, size_t size, const std::string& file, Model& out);

}  // namespace rs
