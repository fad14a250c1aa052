// Errors raised by every decoder. A DecodeError always says what is wrong and where,
// so that the JS layer can show the message as it is.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace numdecode {

class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// fail("bin ", i, " has ", bits, " offset bits") throws a DecodeError with the parts joined.
template <class... Parts>
[[noreturn]] void fail(Parts&&... parts) {
  std::ostringstream out;
  (out << ... << std::forward<Parts>(parts));
  throw DecodeError(out.str());
}

}  // namespace numdecode
