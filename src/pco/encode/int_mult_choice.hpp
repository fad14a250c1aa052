// Finds an IntMult base as pcodec's Auto does: the GCD of many sampled triples' differences that
// is statistically far more common than chance, scored by the bits it saves in the worst case.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace numdecode::pco {

// A candidate base and the bits it saves per number with a rare primary, from a sample of latents.
template <class L>
std::optional<std::pair<L, double>> candidate_int_base(std::span<const L> sample);

// The base for IntMult mode, if worth it, for numbers given as ordered latents.
template <class L>
std::optional<L> choose_int_mult_base(std::span<const L> latents, unsigned level);

// Entropy of a distribution with one value of probability p and the rest spread over n others.
double worst_case_categorical_entropy(double p, double n_others);

}  // namespace numdecode::pco
