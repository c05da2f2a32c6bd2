// Attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"), beside rollout.
//
// The stack [layers, heads, n, n] is read as a network: nodes (l, t) for layer l = 0..L (0: the input
// tokens, L: the last layer's outputs) and token t; an edge from (l+1, i) down to (l, j) with capacity
// Ā_l[i][j], rollout's matrix of layer l (heads combined, residual·I + (1 − residual)·A, rows divided by
// their sums: attnscope/rollout.hpp, same options, same float32 values). flow[i][j] is the value of a
// maximum flow from (L, i) to (0, j). Every flow is at most 1 (the source's edges are a row of Ā).
//
// Exact max-flow, exploiting the layers:
//   L = 1: the only path is the edge itself: flow = Ā_0.
//   L = 2: the paths (2, i) → (1, k) → (0, j) share no edge, so flow[i][j] = Σ_k min(Ā_1[i][k], Ā_0[k][j]):
//          O(n³) in all.
//   L ≥ 3: Dinic's algorithm per pair (i, j) on the layered network: the source (L, i), layers L−1 … 1 in
//          full, the sink (0, j) (the other input nodes are dead ends); E = 2n + (L − 2)·n² edges. One
//          static graph for every pair; only the source's and the sink's capacities change.
// Arithmetic: capacities are the float32 Ā, flows are float64; a residual capacity of kFlowEpsilon or less
// counts as saturated, so each result is within E · kFlowEpsilon (+ float64 rounding) of the exact max-flow
// of those capacities, then rounded to float32: under 1e-6 for every stack the work limit admits.
//
// Work limit: attention_flow_work(L, n) estimates the edges visited: n² for L = 1, n³ for L = 2, and
// n² · E · kDinicVisitsPerEdge for L ≥ 3 (Dinic visits each arc of a pair's network in both directions
// in each of its phases, 1 to 4 here, and again along its augmenting paths, about 5n per pair; the
// factor makes a unit cost about as much time as one of the closed form's: docs/flow.md). A stack over
// kMaxFlowWork is refused before any work, so a call takes about a second or less (wasm, one core). In tokens: 1 layer up to 4096 (the stack limit),
// 2 up to 812, 3 up to 53, 4 up to 45, 6 up to 37, 12 up to 30.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnscope/rollout.hpp"
#include "attnscope/tensor.hpp"

namespace attnscope {

constexpr double kFlowEpsilon = 1e-12;
constexpr std::uint64_t kMaxFlowWork = std::uint64_t{1} << 29;
constexpr std::uint64_t kDinicVisitsPerEdge = 64;

// The work estimate above (saturating at UINT64_MAX; 0 for layers or n of 0).
std::uint64_t attention_flow_work(std::size_t layers, std::size_t n);

// The call's budget, before any work: the flow's own limit (kMaxFlowWork, the message naming it and the
// largest token counts), then the project's call budget (attnscope/limits.hpp) for combining the heads
// and for the memory (the Ā matrices and Dinic's graph). OK, or an error naming the limit.
Status flow_budget(std::size_t layers, std::size_t heads, std::size_t n);

enum class FlowSolver {
    automatic,  // the closed forms for 1 and 2 layers, Dinic from 3
    dinic,      // Dinic for every depth (the tests compare it with the closed forms)
};

// A: [layers, heads, n, n] row-major; out: [n, n]. Fails (nothing written) for the input rollout refuses
// and for a stack over flow_budget.
Status attention_flow(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& options,
                      float* out, FlowSolver solver = FlowSolver::automatic);

}  // namespace attnscope
