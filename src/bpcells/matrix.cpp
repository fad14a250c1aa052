#include "bpcells/matrix.hpp"

#include <cstring>
#include <limits>

#include "bpcells/file_error.hpp"
#include "core/error.hpp"

namespace numdecode::bpcells {

namespace {

// The single line of a one-value text file, without its '\n' / "\r\n".
std::string single_line(Bytes file, std::string_view name) {
  std::vector<std::string> lines = parse_string_array(file);
  if (lines.size() != 1) fail_in(name, "expected exactly one line, found ", lines.size(), " (", file.size(), " bytes)");
  return lines[0];
}

}  // namespace

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::U32: return "uint32";
    case ValueType::F32: return "float32";
    case ValueType::F64: return "float64";
  }
  return "?";
}

ElemType value_elem_type(ValueType t) {
  switch (t) {
    case ValueType::U32: return ElemType::U32;
    case ValueType::F32: return ElemType::F32;
    case ValueType::F64: return ElemType::F64;
  }
  return ElemType::U32;
}

Version parse_version(Bytes file, std::string_view name) {
  Version v;
  v.text = single_line(file, name);
  std::string_view s = v.text;
  auto take = [&](std::string_view prefix) {
    if (s.substr(0, prefix.size()) != prefix) return false;
    s.remove_prefix(prefix.size());
    return true;
  };
  bool ok = true;
  if (take("packed-")) v.packed = true;
  else if (take("unpacked-")) v.packed = false;
  else ok = false;
  if (ok) {
    if (take("uint-")) v.value_type = ValueType::U32;
    else if (take("float-")) v.value_type = ValueType::F32;
    else if (take("double-")) v.value_type = ValueType::F64;
    else ok = false;
  }
  if (ok && take("matrix-v")) {
    if (s == "1") v.format = 1;
    else if (s == "2") v.format = 2;
    else ok = false;
  } else {
    ok = false;
  }
  if (!ok)
    fail_in(name, "unsupported matrix version \"", v.text,
            "\" (supported: {packed,unpacked}-{uint,float,double}-matrix-v{1,2})");
  return v;
}

bool parse_storage_order_is_row(Bytes file) {
  const std::string order = single_line(file, "storage_order");
  if (order == "row") return true;
  if (order == "col") return false;
  fail_in("storage_order", "must be \"row\" or \"col\", found \"", order, "\"");
}

std::array<uint32_t, 2> parse_shape(Bytes file) {
  ArrayFile a = parse_array_file(file, ElemType::U32, "shape");
  if (a.count != 2) fail_in("shape", a.count, " entries, expected 2 (nrow, ncol)");
  auto v = array_values<uint32_t>(a);
  return {v[0], v[1]};
}

std::vector<std::string> required_arrays(const Version& v) {
  std::vector<std::string> names = {"idxptr"};
  const bool offsets = v.format >= 2;
  if (v.packed) {
    for (const char* n : {"index_data", "index_idx", "index_starts"}) names.push_back(n);
    if (offsets) names.push_back("index_idx_offsets");
    if (v.value_type == ValueType::U32) {
      names.push_back("val_data");
      names.push_back("val_idx");
      if (offsets) names.push_back("val_idx_offsets");
    } else {
      names.push_back("val");
    }
  } else {
    names.push_back("index");
    names.push_back("val");
  }
  return names;
}

void check_idxptr(std::span<const uint64_t> idxptr) {
  if (idxptr.empty()) fail_in("idxptr", "empty, needs at least one entry");
  if (idxptr[0] != 0) fail_in("idxptr", "first entry is ", idxptr[0], ", not 0");
  for (size_t i = 1; i < idxptr.size(); ++i)
    if (idxptr[i] < idxptr[i - 1])
      fail_in("idxptr", "not monotone, entry ", i, " (", idxptr[i], ") is less than entry ", i - 1, " (",
              idxptr[i - 1], ")");
}

Matrix read_matrix(const FileReader& read_file, Kernel kernel) {
  auto need = [&](const std::string& name) {
    std::optional<std::vector<uint8_t>> bytes = read_file(name);
    if (!bytes) fail_in(name, "file missing from the matrix directory");
    return std::move(*bytes);
  };

  Matrix m;
  m.version = parse_version(need("version"));
  m.row_major = parse_storage_order_is_row(need("storage_order"));
  const auto shape = parse_shape(need("shape"));
  m.nrow = shape[0];
  m.ncol = shape[1];
  const uint64_t outer = m.outer(), inner = m.inner();
  const std::string order = m.row_major ? "rows (storage_order=row)" : "columns (storage_order=col)";

  // idxptr
  {
    const ElemType t = m.version.format == 1 ? ElemType::U32 : ElemType::U64;
    const std::vector<uint8_t> file = need("idxptr");
    ArrayFile a = parse_array_file(file, t, "idxptr");
    if (t == ElemType::U64) {
      m.idxptr = array_values<uint64_t>(a);
    } else {
      for (uint32_t x : array_values<uint32_t>(a)) m.idxptr.push_back(x);
    }
    // BPCells writes idxptr = [0, 0] for a matrix with no outer entries (its issue #305).
    if (outer == 0 && m.idxptr.size() == 2 && m.idxptr[0] == 0 && m.idxptr[1] == 0) m.idxptr.resize(1);
    if (m.idxptr.size() != outer + 1)
      fail_in("idxptr", m.idxptr.size(), " entries, expected ", outer + 1, " for ", outer, " ", order);
    check_idxptr(m.idxptr);
  }
  const uint64_t nnz = m.nnz();
  if (nnz > 0 && inner == 0) fail_in("shape", nnz, " non-zeros but the inner dimension is 0");

  auto offsets_of = [&](const std::string& stream) -> std::vector<uint64_t> {
    if (m.version.format == 1) return {0, std::numeric_limits<uint64_t>::max()};
    const std::vector<uint8_t> file = need(stream + "_idx_offsets");
    return array_values<uint64_t>(parse_array_file(file, ElemType::U64, stream + "_idx_offsets"));
  };
  auto payload = [](const std::vector<uint8_t>& file, ElemType t, const std::string& name) {
    return parse_array_file(file, t, name).payload;
  };

  // index
  if (m.version.packed) {
    const auto data = need("index_data"), idx = need("index_idx"), starts = need("index_starts");
    const auto offsets = offsets_of("index");
    m.index = decode_stream(Variant::D1Z, payload(data, ElemType::U32, "index_data"),
                            payload(idx, ElemType::U32, "index_idx"), offsets,
                            payload(starts, ElemType::U32, "index_starts"), nnz, "index", inner, kernel);
  } else {
    const auto file = need("index");
    ArrayFile a = parse_array_file(file, ElemType::U32, "index");
    if (a.count != nnz)
      fail_in("index", a.count, " entries but idxptr says ", nnz, " non-zeros",
              a.count < nnz ? " (truncated)" : " (trailing data)");
    m.index = array_values<uint32_t>(a);
    for (uint64_t i = 0; i < nnz; ++i)
      if (m.index[i] >= inner)
        fail_in("index", "value ", m.index[i], " at position ", i, " is out of range (must be < ", inner, ")");
  }

  // val
  if (m.version.packed && m.version.value_type == ValueType::U32) {
    const auto data = need("val_data"), idx = need("val_idx");
    const auto offsets = offsets_of("val");
    std::vector<uint32_t> v = decode_stream(Variant::M1, payload(data, ElemType::U32, "val_data"),
                                            payload(idx, ElemType::U32, "val_idx"), offsets, {}, nnz, "val",
                                            0, kernel);
    m.val.resize(v.size() * 4);
    if (!v.empty()) std::memcpy(m.val.data(), v.data(), m.val.size());
  } else {
    const auto file = need("val");
    ArrayFile a = parse_array_file(file, value_elem_type(m.version.value_type), "val");
    if (a.count != nnz)
      fail_in("val", a.count, " entries but idxptr says ", nnz, " non-zeros",
              a.count < nnz ? " (truncated)" : " (trailing data)");
    m.val.assign(a.payload.begin(), a.payload.end());
  }

  m.row_names = parse_string_array(need("row_names"));
  m.col_names = parse_string_array(need("col_names"));
  if (!m.row_names.empty() && m.row_names.size() != m.nrow)
    fail_in("row_names", m.row_names.size(), " names for ", m.nrow, " rows");
  if (!m.col_names.empty() && m.col_names.size() != m.ncol)
    fail_in("col_names", m.col_names.size(), " names for ", m.ncol, " columns");
  return m;
}

}  // namespace numdecode::bpcells
