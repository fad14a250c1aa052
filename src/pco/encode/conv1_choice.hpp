// Chooses Conv1 weights and bias for a requested order: a least-squares fit of each latent on the
// order latents before it (and 1), quantized to integers as coarsely as overflow requires.
#pragma once
#include <optional>
#include <span>

#include "pco/metadata.hpp"

namespace numdecode::pco {

// None when the fit fails or the page is too short to fit (the chunk then takes no delta).
// P: an 8-, 16- or 32-bit latent (Conv1 is not defined for 64-bit ones).
template <class P>
std::optional<Delta> choose_conv1(unsigned order, std::span<const P> latents);

}  // namespace numdecode::pco
