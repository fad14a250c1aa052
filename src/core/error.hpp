// Errors raised by every decoder. A DecodeError always says what is wrong and where,
// so that the JS layer can show the message as it is.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
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

template <class... Parts>
[[noreturn]] void fail_as(ErrorKind kind, Parts&&... parts) {
  std::ostringstream out;
  (out << ... << std::forward<Parts>(parts));
  throw DecodeError(out.str(), kind);
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
