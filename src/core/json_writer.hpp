// A minimal JSON writer for inspect output (metadata objects crossing into JS as one string).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace numdecode {

class JsonWriter {
 public:
  JsonWriter& begin_object() { value_prefix(); out_ += '{'; first_ = true; return *this; }
  JsonWriter& end_object() { out_ += '}'; first_ = false; return *this; }
  JsonWriter& begin_array() { value_prefix(); out_ += '['; first_ = true; return *this; }
  JsonWriter& end_array() { out_ += ']'; first_ = false; return *this; }

  JsonWriter& key(std::string_view k) {
    if (!first_) out_ += ',';
    string_literal(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }

  JsonWriter& value(std::string_view s) { value_prefix(); string_literal(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { value_prefix(); out_ += b ? "true" : "false"; return *this; }
  JsonWriter& null() { value_prefix(); out_ += "null"; return *this; }
  JsonWriter& value(double d) {
    value_prefix();
    if (!std::isfinite(d)) { out_ += "null"; return *this; }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    out_ += buf;
    return *this;
  }
  // Integers beyond 2^53 would lose precision as JS numbers: they are written as strings.
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  JsonWriter& value(T v) {
    value_prefix();
    uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(int64_t(v)) : uint64_t(v);
    std::string digits = v < 0 ? std::to_string(int64_t(v)) : std::to_string(uint64_t(v));
    if (mag > (uint64_t{1} << 53)) out_ += '"' + digits + '"';
    else out_ += digits;
    return *this;
  }

  template <class T>
  JsonWriter& field(std::string_view k, T v) { key(k); return value(v); }

  const std::string& str() const { return out_; }

 private:
  void value_prefix() {
    if (!after_key_ && !first_) out_ += ',';
    after_key_ = false;
    first_ = false;
  }
  void string_literal(std::string_view s) {
    out_ += '"';
    for (char c : s) {
      if (c == '"' || c == '\\') { out_ += '\\'; out_ += c; }
      else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out_ += buf;
      } else out_ += c;
    }
    out_ += '"';
  }

  std::string out_;
  bool first_ = true;
  bool after_key_ = false;
};

}  // namespace numdecode
