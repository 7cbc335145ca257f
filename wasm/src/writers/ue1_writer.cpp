#include "writers/ue1_writer.h"

#include <algorithm>
#include <cstdio>

#include "writers/writer_bytes.h"

namespace rs {

std::vector<uint8_t> writeUe1Data(const std::vector<Ue1WriteTriangle>& triangles, uint16_t numVertices,
                                  bool junkHeader) {
  ByteWriter w;
  w.u16(uint16_t(triangles.size()));
  w.u16(numVertices);
  if (junkHeader) {  // like the re-exported stock weapon of spec §2.1: never read
    w.u16(1234);
    w.u16(7);
    w.u32(0xFFFFFFFFu);
    for (int i = 0; i < 9; ++i) w.u32(0x00A3F1C8u + uint32_t(i) * 16);
  } else {
    w.pad(44);
  }
  for (const Ue1WriteTriangle& t : triangles) {
    for (int k = 0; k < 3; ++k) w.u16(t.v[k]);
    w.u8(t.type);
    w.u8(t.color);
    for (int k = 0; k < 3; ++k) w.u8(t.uv[k][0]), w.u8(t.uv[k][1]);
    w.u8(t.textureNum);
    w.u8(t.flags);
  }
  return std::move(w.bytes);
}

uint32_t packUe1Vertex(int32_t x, int32_t y, int32_t z) {
  x = std::min(1023, std::max(-1024, x));
  y = std::min(1023, std::max(-1024, y));
  z = std::min(511, std::max(-512, z));
  return (uint32_t(x) & 0x7FF) | ((uint32_t(y) & 0x7FF) << 11) | ((uint32_t(z) & 0x3FF) << 22);
}

std::vector<uint8_t> writeUe1Anim(const std::vector<int32_t>& xyz, uint16_t numVertices, Ue1Encoding encoding,
                                  uint16_t padBytes) {
  const size_t per = encoding == Ue1Encoding::Packed ? 4 : 8;
  const size_t frames = numVertices ? xyz.size() / (size_t(numVertices) * 3) : 0;
  ByteWriter w;
  w.u16(uint16_t(frames));
  w.u16(uint16_t(per * numVertices + padBytes));
  for (size_t f = 0; f < frames; ++f) {
    for (size_t v = 0; v < numVertices; ++v) {
      const int32_t* p = xyz.data() + (f * numVertices + v) * 3;
      if (encoding == Ue1Encoding::Packed) {
        w.u32(packUe1Vertex(p[0], p[1], p[2]));
      } else {
        for (int k = 0; k < 3; ++k) w.u16(uint16_t(int16_t(std::min(32767, std::max(-32768, p[k])))));
        w.u16(0);
      }
    }
    w.pad(padBytes, 0xAB);
  }
  return std::move(w.bytes);
}

namespace {

void pcxHeader(ByteWriter& w, uint16_t width, uint16_t height, uint8_t planes, uint16_t bytesPerLine) {
  w.u8(0x0A);
  w.u8(5);
  w.u8(1);
  w.u8(8);
  w.u16(0);
  w.u16(0);
  w.u16(uint16_t(width - 1));
  w.u16(uint16_t(height - 1));
  w.u16(72);
  w.u16(72);
  w.pad(48);  // EGA palette
  w.u8(0);
  w.u8(planes);
  w.u16(bytesPerLine);
  w.u16(1);
  w.pad(58);
}

void rleLine(ByteWriter& w, const uint8_t* line, size_t n) {
  size_t i = 0;
  while (i < n) {
    size_t run = 1;
    while (i + run < n && run < 63 && line[i + run] == line[i]) ++run;
    if (run > 1 || line[i] >= 0xC0) w.u8(uint8_t(0xC0 | run));
    w.u8(line[i]);
    i += run;
  }
}

}  // namespace

std::vector<uint8_t> writePcx8(uint16_t width, uint16_t height, const std::vector<uint8_t>& indices,
                               const std::vector<uint8_t>& palette) {
  ByteWriter w;
  const uint16_t bpl = uint16_t((width + 1) & ~1);
  pcxHeader(w, width, height, 1, bpl);
  std::vector<uint8_t> line(bpl, 0);
  for (uint16_t y = 0; y < height; ++y) {
    for (uint16_t x = 0; x < width; ++x) line[x] = indices[size_t(y) * width + x];
    rleLine(w, line.data(), bpl);
  }
  w.u8(0x0C);
  for (size_t i = 0; i < 768; ++i) w.u8(i < palette.size() ? palette[i] : 0);
  return std::move(w.bytes);
}

std::vector<uint8_t> writePcx24(uint16_t width, uint16_t height, const std::vector<uint8_t>& rgb) {
  ByteWriter w;
  const uint16_t bpl = uint16_t((width + 1) & ~1);
  pcxHeader(w, width, height, 3, bpl);
  std::vector<uint8_t> line(bpl, 0);
  for (uint16_t y = 0; y < height; ++y) {
    for (int c = 0; c < 3; ++c) {
      for (uint16_t x = 0; x < width; ++x) line[x] = rgb[(size_t(y) * width + x) * 3 + size_t(c)];
      rleLine(w, line.data(), bpl);
    }
  }
  return std::move(w.bytes);
}

namespace {
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

UcBuilder::UcBuilder(const std::string& className, const std::string& parent) {
  head_ = "class " + className + " expands " + parent + ";\n\n";
}

UcBuilder& UcBuilder::meshImport(const std::string& mesh, const std::string& animFile, const std::string& dataFile,
                                 bool unmirror) {
  body_ += "#exec MESH IMPORT MESH=" + mesh + " ANIVFILE=" + animFile + " DATAFILE=" + dataFile + " X=0 Y=0 Z=0" +
           (unmirror ? " UNMIRROR=1" : "") + "\n";
  return *this;
}

UcBuilder& UcBuilder::origin(const std::string& mesh, double x, double y, double z, double pitch, double yaw,
                             double roll) {
  body_ += "#exec MESH ORIGIN MESH=" + mesh + " X=" + num(x) + " Y=" + num(y) + " Z=" + num(z);
  if (pitch != 0 || yaw != 0 || roll != 0) body_ += " PITCH=" + num(pitch) + " YAW=" + num(yaw) + " ROLL=" + num(roll);
  body_ += "\n";
  return *this;
}

UcBuilder& UcBuilder::sequence(const std::string& mesh, const std::string& seq, double start, double count, double rate,
                               const std::string& group) {
  body_ +=
      "#exec MESH SEQUENCE MESH=" + mesh + " SEQ=" + seq + " STARTFRAME=" + num(start) + " NUMFRAMES=" + num(count);
  if (rate != 0) body_ += " RATE=" + num(rate);
  if (!group.empty()) body_ += " GROUP=" + group;
  body_ += "\n";
  return *this;
}

UcBuilder& UcBuilder::notify(const std::string& mesh, const std::string& seq, double time,
                             const std::string& function) {
  body_ += "#exec MESH NOTIFY MESH=" + mesh + " SEQ=" + seq + " TIME=" + num(time) + " FUNCTION=" + function + "\n";
  return *this;
}

UcBuilder& UcBuilder::meshmapNew(const std::string& meshmap, const std::string& mesh) {
  body_ += "#exec MESHMAP NEW MESHMAP=" + meshmap + " MESH=" + mesh + "\n";
  return *this;
}

UcBuilder& UcBuilder::scale(const std::string& meshmap, double x, double y, double z) {
  body_ += "#exec MESHMAP SCALE MESHMAP=" + meshmap + " X=" + num(x) + " Y=" + num(y) + " Z=" + num(z) + "\n";
  return *this;
}

UcBuilder& UcBuilder::textureImport(const std::string& name, const std::string& file, int flags) {
  body_ += "#exec TEXTURE IMPORT";
  if (!name.empty()) body_ += " NAME=" + name;
  body_ += " FILE=" + file;
  if (flags >= 0) body_ += " FLAGS=" + std::to_string(flags);
  body_ += "\n";
  return *this;
}

UcBuilder& UcBuilder::setTexture(const std::string& meshmap, int n, const std::string& texture) {
  body_ += "#exec MESHMAP SETTEXTURE MESHMAP=" + meshmap + " NUM=" + std::to_string(n) + " TEXTURE=" + texture + "\n";
  return *this;
}

UcBuilder& UcBuilder::line(const std::string& raw) {
  body_ += raw + "\n";
  return *this;
}

UcBuilder& UcBuilder::skin(const std::string& texture) {
  defaults_ += "     Skin=Texture'" + texture + "'\n";
  return *this;
}

UcBuilder& UcBuilder::multiSkin(int slot, const std::string& texture) {
  defaults_ += "     MultiSkins(" + std::to_string(slot) + ")=Texture'" + texture + "'\n";
  return *this;
}

std::string UcBuilder::str() const {
  return head_ + body_ + "\ndefaultproperties\n{\n     DrawType=DT_Mesh\n" + defaults_ + "}\n";
}

}  // namespace rs
