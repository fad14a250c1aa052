#include "pco/encode/chunk_encoder.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "pco/encode/chunk_candidate.hpp"
#include "pco/encode/conv1_choice.hpp"
#include "pco/encode/delta_choice.hpp"
#include "pco/encode/mode_choice.hpp"

namespace numdecode::pco {

struct ChunkEncoder::Plan {
  virtual ~Plan() = default;
  virtual const ChunkMeta& meta() const = 0;
  virtual const std::vector<size_t>& page_ns() const = 0;
  virtual void write_page(size_t i, std::vector<uint8_t>& out) const = 0;
  virtual double estimated_bytes() const = 0;
};

namespace {

[[noreturn]] void invalid(const std::string& message) { throw std::invalid_argument("Pco encode: " + message); }

template <class L, class P>
struct CandidatePlan final : ChunkEncoder::Plan {
  explicit CandidatePlan(ChunkCandidate<L, P> c) : candidate(std::move(c)) {}
  const ChunkMeta& meta() const override { return candidate.meta; }
  const std::vector<size_t>& page_ns() const override { return candidate.page_ns; }
  void write_page(size_t i, std::vector<uint8_t>& out) const override { candidate.write_page(i, out); }
  double estimated_bytes() const override { return candidate.estimated_bytes(); }
  ChunkCandidate<L, P> candidate;
};

template <class P>
Delta delta_for(const DeltaSpec& spec, std::span<const P> primary, unsigned bins_log) {
  switch (spec.kind) {
    case DeltaSpec::Kind::Auto: return choose_delta<P>(primary, bins_log);
    case DeltaSpec::Kind::NoOp: return Delta{};
    case DeltaSpec::Kind::Consecutive:
      if (spec.order > kMaxConsecutiveOrder)
        invalid("Consecutive delta order must be in 0.." + std::to_string(kMaxConsecutiveOrder) + ", got " + std::to_string(spec.order));
      return consecutive_delta(spec.order);
    case DeltaSpec::Kind::Lookback: return lookback_delta(primary.size());
    case DeltaSpec::Kind::Conv1:
      if (spec.order > kMaxConv1Order)
        invalid("Conv1 delta order must be in 0.." + std::to_string(kMaxConv1Order) + ", got " + std::to_string(spec.order));
      if constexpr (sizeof(P) == 8) {
        invalid("Conv1 delta encoding is not defined for 64-bit latents");
      } else {
        if (spec.order == 0) return Delta{};
        return choose_conv1<P>(spec.order, primary).value_or(Delta{});
      }
  }
  invalid("unknown delta encoding");
}

template <class L, NumKind K, class P>
std::unique_ptr<ChunkEncoder::Plan> plan_with(DType dtype, std::span<const L> nums, SplitLatents<L> split, LatentVec<P> primary,
                                               const ChunkConfig& config) {
  const std::vector<size_t> pages = page_sizes(nums.size(), config);
  const unsigned bins_log = unoptimized_bins_log(config.level, nums.size());
  // Dict takes no delta encoding: pcodec's decoder checks every index of a batch, the junk past
  // a delta-encoded page's end too, and so rejects Dict pages with deltas.
  const Delta delta = split.mode.kind == ModeKind::Dict ? Delta{} : delta_for<P>(config.delta, primary, bins_log);
  auto candidate = build_candidate<L, P>(dtype, std::move(split.mode), std::move(primary), std::move(split.secondary),
                                         split.has_secondary, delta, pages, bins_log);
  if (!candidate.worse_than_verbatim(nums.size())) return std::make_unique<CandidatePlan<L, P>>(std::move(candidate));
  // pcodec's guarantee: never larger than the numbers written out whole.
  auto verbatim = build_candidate<L, L>(dtype, Mode{}, split_classic<L, K>(nums).primary, {}, false, Delta{}, pages,
                                        bins_log, true);
  return std::make_unique<CandidatePlan<L, L>>(std::move(verbatim));
}

template <class L, NumKind K>
std::unique_ptr<ChunkEncoder::Plan> plan_for_mode(DType dtype, std::span<const L> nums, const ModeCandidate& mode,
                                                  const ChunkConfig& config) {
  SplitLatents<L> split = split_by<L, K>(mode, nums);
  if (split.mode.kind == ModeKind::Dict) {
    LatentVec<uint32_t> indices = std::move(split.dict_indices);
    return plan_with<L, K, uint32_t>(dtype, nums, std::move(split), std::move(indices), config);
  }
  LatentVec<L> primary = std::move(split.primary);
  return plan_with<L, K, L>(dtype, nums, std::move(split), std::move(primary), config);
}

template <class L, NumKind K>
std::unique_ptr<ChunkEncoder::Plan> plan_typed(DType dtype, Bytes values, const ChunkConfig& config) {
  // The numbers where they lie when aligned for L (as the bindings' copies are), else a copy.
  const size_t n = values.size() / sizeof(L);
  LatentVec<L> copy;
  std::span<const L> nums;
  if (reinterpret_cast<uintptr_t>(values.data()) % alignof(L) == 0) {
    nums = std::span<const L>(reinterpret_cast<const L*>(values.data()), n);
  } else {
    copy.resize(n);
    std::memcpy(copy.data(), values.data(), n * sizeof(L));
    nums = copy;
  }
  std::unique_ptr<ChunkEncoder::Plan> best;
  for (const ModeCandidate& mode : mode_candidates<L, K>(nums, config.mode, config.level)) {
    auto plan = plan_for_mode<L, K>(dtype, nums, mode, config);
    if (!best || plan->estimated_bytes() < best->estimated_bytes()) best = std::move(plan);
  }
  return best;
}

}  // namespace

unsigned unoptimized_bins_log(unsigned level, size_t n) {
  const unsigned log_n = n == 0 ? 0 : unsigned(std::bit_width(n) - 1);
  const unsigned fast = log_n > 4 ? log_n - 4 : 0;
  return level <= fast ? level : fast + (level - fast) / 2;
}

ChunkEncoder::ChunkEncoder(DType dtype, Bytes values, const ChunkConfig& config) {
  const size_t width = dtype_bytes(dtype);
  if (values.size() % width != 0)
    invalid(std::to_string(values.size()) + " bytes is not a whole number of " + std::string(dtype_name(dtype)) + " values");
  const size_t n = values.size() / width;
  if (n == 0) invalid("a chunk needs at least 1 number");
  if (n > kMaxChunkN) invalid("a chunk holds at most " + std::to_string(kMaxChunkN) + " numbers, got " + std::to_string(n));
  if (config.level > kMaxLevel) invalid("level must be in 0.." + std::to_string(kMaxLevel) + ", got " + std::to_string(config.level));
  switch (dtype) {
    case DType::U8: plan_ = plan_typed<uint8_t, NumKind::Unsigned>(dtype, values, config); break;
    case DType::I8: plan_ = plan_typed<uint8_t, NumKind::Signed>(dtype, values, config); break;
    case DType::U16: plan_ = plan_typed<uint16_t, NumKind::Unsigned>(dtype, values, config); break;
    case DType::I16: plan_ = plan_typed<uint16_t, NumKind::Signed>(dtype, values, config); break;
    case DType::F16: plan_ = plan_typed<uint16_t, NumKind::Float>(dtype, values, config); break;
    case DType::U32: plan_ = plan_typed<uint32_t, NumKind::Unsigned>(dtype, values, config); break;
    case DType::I32: plan_ = plan_typed<uint32_t, NumKind::Signed>(dtype, values, config); break;
    case DType::F32: plan_ = plan_typed<uint32_t, NumKind::Float>(dtype, values, config); break;
    case DType::U64: plan_ = plan_typed<uint64_t, NumKind::Unsigned>(dtype, values, config); break;
    case DType::I64: plan_ = plan_typed<uint64_t, NumKind::Signed>(dtype, values, config); break;
    case DType::F64: plan_ = plan_typed<uint64_t, NumKind::Float>(dtype, values, config); break;
  }
}

ChunkEncoder::~ChunkEncoder() = default;
ChunkEncoder::ChunkEncoder(ChunkEncoder&&) noexcept = default;

const ChunkMeta& ChunkEncoder::meta() const { return plan_->meta(); }
const std::vector<size_t>& ChunkEncoder::page_ns() const { return plan_->page_ns(); }

void ChunkEncoder::write_meta(std::vector<uint8_t>& out) const {
  BitWriter w(out);
  write_chunk_meta(w, plan_->meta());
  w.finish();
}

void ChunkEncoder::write_page(size_t i, std::vector<uint8_t>& out) const { plan_->write_page(i, out); }

}  // namespace numdecode::pco
