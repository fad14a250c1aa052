// Errors raised by every decoder. A DecodeError always says what is wrong and where,
// so that the JS layer can show the message as it is.
#pragma once
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace numdecode {

// What kind of failure: the JS layer turns it into the error's stable `code` (no message matching).
enum class ErrorKind { BadData, OutputLimit, Unsupported };

class DecodeError : public std::runtime_error {
 public:
  explicit DecodeError(const std::string& message, ErrorKind kind = ErrorKind::BadData)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {

// One part of a message, written as std::ostream's << would write it (chars as characters, bool
// as 1/0, floating point as %g), without iostreams: std::ostringstream linked libc++'s locale and
// iostream code, a fifth of a wasm module, into every module.
template <class T>
void append_part(std::string& out, const T& part) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    out += part ? '1' : '0';
  } else if constexpr (std::is_same_v<U, char> || std::is_same_v<U, signed char> || std::is_same_v<U, unsigned char>) {
    out += static_cast<char>(part);
  } else if constexpr (std::is_integral_v<U>) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, part).ptr);
  } else if constexpr (std::is_floating_point_v<U>) {
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%g", static_cast<double>(part));
    out.append(buf, n > 0 ? static_cast<size_t>(n) : 0);
  } else {
    out += std::string_view(part);  // strings, string views, C strings
  }
}

}  // namespace detail

template <class... Parts>
[[noreturn]] void fail_as(ErrorKind kind, Parts&&... parts) {
  std::string out;
  (detail::append_part(out, parts), ...);
  throw DecodeError(out, kind);
}

// fail("bin ", i, " has ", bits, " offset bits") throws a DecodeError with the parts joined.
template <class... Parts>
[[noreturn]] void fail(Parts&&... parts) {
  fail_as(ErrorKind::BadData, std::forward<Parts>(parts)...);
}

// Valid input that this library does not decode (a newer format version, another codec).
template <class... Parts>
[[noreturn]] void fail_unsupported(Parts&&... parts) {
  fail_as(ErrorKind::Unsupported, std::forward<Parts>(parts)...);
}

}  // namespace numdecode
