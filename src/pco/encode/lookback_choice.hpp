// Chooses each latent's lookback for Lookback delta encoding: among recent positions, the
// lookbacks used lately and the last positions of similar values (by hash), the one whose value
// is closest, favouring lookbacks already used often (they cost fewer tANS bits).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace numdecode::pco {

// What pcodec's encoder writes: window 2^4 .. 2^15 by the chunk size, and one latent of state.
constexpr unsigned kLookbackMinWindowLog = 4;
constexpr unsigned kLookbackMaxWindowLog = 15;
unsigned lookback_window_log(size_t n);

// Lookbacks (each in 1..min(i, window)) for latents[state_n..].
template <class P>
std::vector<uint32_t> choose_lookbacks(unsigned window_n_log, size_t state_n, std::span<const P> latents);

}  // namespace numdecode::pco
