// 0 A.D. model (.pmd, magic PSMD, versions 1-4). Spec: shared/specs/zeroad-pmd-psa.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/error.h"
#include "model/model.h"

namespace rs {

Status decodePmd(const uint8_t* data, size_t size, const std::string& file, Model& out);

}  // namespace rs
