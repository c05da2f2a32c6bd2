// Attention flow (see attnscope/flow.hpp): closed forms for one and two layers, Dinic's max-flow beyond.
#include "attnscope/flow.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "attnscope/limits.hpp"


namespace attnscope {
namespace {

// Dinic's algorithm on a static graph whose capacities can be changed between runs. Edges come in pairs
// (e, e ^ 1): forward and reverse; res[] holds residual capacities, adjacency is CSR by tail node.
class Dinic {
public:
    explicit Dinic(std::size_t nodes) : nodes_(nodes), start_(nodes + 1, 0), level_(nodes), it_(nodes), queue_(nodes) {}

    std::size_t add_edge(std::size_t u, std::size_t v) {
        const std::size_t e = to_.size();
        from_.push_back(u);
        to_.push_back(v);
        from_.push_back(v);
        to_.push_back(u);
        return e;
    }
    // Builds the CSR order once every edge is in; capacities start at 0.
    void finish() {
        const std::size_t m = to_.size();
        for (std::size_t e = 0; e < m; ++e) ++start_[from_[e] + 1];
        for (std::size_t v = 0; v < nodes_; ++v) start_[v + 1] += start_[v];
        order_.assign(m, 0);
        std::vector<std::size_t> fill(start_.begin(), start_.end() - 1);
        for (std::size_t e = 0; e < m; ++e) order_[fill[from_[e]]++] = e;
        cap_.assign(m, 0.0);
        res_.assign(m, 0.0);
    }
    void set_capacity(std::size_t e, double c) { cap_[e] = c; }
    std::size_t edges() const { return to_.size() / 2; }

    double max_flow(std::size_t s, std::size_t t) {
        for (std::size_t e = 0; e < res_.size(); e += 2) {
            res_[e] = cap_[e];
            res_[e + 1] = 0.0;
        }
        double total = 0;
        // Each phase lengthens the shortest augmenting path, so there are at most `nodes` phases: a bound
        // by the graph's size, whatever the capacities (the call never runs on for odd values).
        for (std::size_t phase = 0; phase < nodes_ && levels(s, t); ++phase) {
            std::copy(start_.begin(), start_.end() - 1, it_.begin());
            total += blocking_flow(s, t);
        }
        return total;
    }

private:
    // Breadth-first levels over edges with residual > kFlowEpsilon; true when t is reached.
    bool levels(std::size_t s, std::size_t t) {
        std::fill(level_.begin(), level_.end(), kNone);
        std::size_t head = 0, tail = 0;
        level_[s] = 0;
        queue_[tail++] = s;
        while (head < tail) {
            const std::size_t u = queue_[head++];
            if (level_[u] >= level_[t]) break;  // nodes at t's level or beyond lie on no shortest path
            for (std::size_t k = start_[u]; k < start_[u + 1]; ++k) {
                const std::size_t e = order_[k], v = to_[e];
                if (level_[v] == kNone && res_[e] > kFlowEpsilon) {
                    level_[v] = level_[u] + 1;
                    queue_[tail++] = v;
                }
            }
        }
        return level_[t] != kNone;
    }

    // Augmenting paths along the levels, found depth-first without recursion; each node's current arc
    // (it_) only moves forward, so a phase costs O(V·E) at worst.
    double blocking_flow(std::size_t s, std::size_t t) {
        double pushed = 0;
        path_.clear();  // the edges from s to the current node
        std::size_t u = s;
        for (;;) {
            if (u == t) {
                double b = std::numeric_limits<double>::infinity();
                for (std::size_t e : path_) b = std::min(b, res_[e]);
                std::size_t cut = path_.size();
                for (std::size_t k = 0; k < path_.size(); ++k) {
                    const std::size_t e = path_[k];
                    res_[e] -= b;
                    res_[e ^ 1] += b;
                    if (cut == path_.size() && res_[e] <= kFlowEpsilon) cut = k;
                }
                pushed += b;
                path_.resize(cut);  // back to the tail of the first saturated edge
                u = cut == 0 ? s : to_[path_.back()];
                continue;
            }
            bool advanced = false;
            for (; it_[u] < start_[u + 1]; ++it_[u]) {
                const std::size_t e = order_[it_[u]], v = to_[e];
                if (res_[e] > kFlowEpsilon && level_[v] == level_[u] + 1) {
                    path_.push_back(e);
                    u = v;
                    advanced = true;
                    break;
                }
            }
            if (advanced) continue;
            if (u == s) return pushed;  // s has no arc left: the phase is over
            level_[u] = kNone;          // a dead end for the rest of the phase
            const std::size_t e = path_.back();
            path_.pop_back();
            u = from_[e];
            ++it_[u];
        }
    }

    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    std::size_t nodes_;
    std::vector<std::size_t> from_, to_, start_, order_;
    std::vector<double> cap_, res_;
    std::vector<std::size_t> level_, it_, queue_, path_;
};

// L >= 2 (Dinic also handles 2): nodes 0 = source, 1 = sink, then layer l (1 .. L−1) token t at
// 2 + (l − 1)·n + t. bars[l] is Ā_l.
void flow_dinic(const std::vector<std::vector<float>>& bars, std::size_t L, std::size_t n, float* out) {
    const auto node = [n](std::size_t l, std::size_t t) { return 2 + (l - 1) * n + t; };
    Dinic g(2 + (L - 1) * n);
    std::vector<std::size_t> source_edges(n), sink_edges(n);
    for (std::size_t k = 0; k < n; ++k) source_edges[k] = g.add_edge(0, node(L - 1, k));
    for (std::size_t l = 1; l + 1 < L; ++l)  // (l+1, i) → (l, j), capacity Ā_l[i][j]
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) g.add_edge(node(l + 1, i), node(l, j));
    for (std::size_t k = 0; k < n; ++k) sink_edges[k] = g.add_edge(node(1, k), 1);
    g.finish();
    std::size_t e = 2 * n;  // the interior edges were added in order after the source's
    for (std::size_t l = 1; l + 1 < L; ++l)
        for (std::size_t ij = 0; ij < n * n; ++ij, e += 2) g.set_capacity(e, bars[l][ij]);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t k = 0; k < n; ++k) g.set_capacity(source_edges[k], bars[L - 1][i * n + k]);
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t k = 0; k < n; ++k) g.set_capacity(sink_edges[k], bars[0][k * n + j]);
            out[i * n + j] = static_cast<float>(g.max_flow(0, 1));
        }
    }
}

}  // namespace

std::uint64_t attention_flow_work(std::size_t layers, std::size_t n) {
    const auto mul = [](std::uint64_t a, std::uint64_t b) {
        return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max() : a * b;
    };
    const std::uint64_t L = layers, N = n, nn = mul(N, N);
    if (L == 0 || N == 0) return 0;
    if (L == 1) return nn;
    if (L == 2) return mul(nn, N);
    const std::uint64_t inner = mul(L - 2, nn);
    const std::uint64_t edges = inner > std::numeric_limits<std::uint64_t>::max() - 2 * N ? std::numeric_limits<std::uint64_t>::max() : inner + 2 * N;
    return mul(mul(nn, edges), kDinicVisitsPerEdge);
}

Status flow_budget(std::size_t layers, std::size_t heads, std::size_t n) {
    const std::string call = "attention flow of " + std::to_string(layers) + " layers x " + std::to_string(n) + " tokens";
    const std::uint64_t work = attention_flow_work(layers, n);
    if (work > kMaxFlowWork)
        return Status::error("attentions: " + call + " is about " + std::to_string(work) + " edge visits, over the limit of " +
                             std::to_string(kMaxFlowWork) +
                             " (about a second); use fewer layers or tokens (2 layers: up to 812 tokens; 3: 53; 4: 45; 12: 30), or rollout");
    Budget b;
    b.work(layers, heads, n, n);  // combining the heads
    b.floats(layers, n, n);       // the Ā matrices
    if (layers >= 3) {
        // Dinic's graph: per edge, two arcs of three indices and two doubles, counted in floats
        const std::uint64_t edges = Budget::add(Budget::mul(layers - 2, Budget::mul(n, n)), 2 * std::uint64_t{n});
        b.floats(edges, 2 * (3 * sizeof(std::size_t) + 2 * sizeof(double)) / sizeof(float));
    }
    return b.check(call, "use fewer layers or tokens, or rollout");
}

Status attention_flow(const float* A, std::size_t layers, std::size_t heads, std::size_t n, const RolloutOptions& o, float* out,
                      FlowSolver solver) {
    Status st = check_rollout_call(A, layers, heads, n, o, out, flow_budget);
    if (!st) return st;
    const std::size_t nn = n * n;
    std::vector<std::vector<float>> bars(layers, std::vector<float>(nn));
    for (std::size_t l = 0; l < layers; ++l) {
        st = residual_attention(A, heads, n, o, l, bars[l].data());
        if (!st) return st;
    }
    if (layers == 1) {
        std::copy(bars[0].begin(), bars[0].end(), out);
    } else if (layers == 2 && solver == FlowSolver::automatic) {
        // Σ_k min(Ā_1[i][k], Ā_0[k][j]), k outermost so the inner loop runs along rows.
        std::vector<double> acc(n);
        for (std::size_t i = 0; i < n; ++i) {
            std::fill(acc.begin(), acc.end(), 0.0);
            const float* top = bars[1].data() + i * n;
            for (std::size_t k = 0; k < n; ++k) {
                const float c = top[k];
                const float* bottom = bars[0].data() + k * n;
                for (std::size_t j = 0; j < n; ++j) acc[j] += std::min(c, bottom[j]);
            }
            for (std::size_t j = 0; j < n; ++j) out[i * n + j] = static_cast<float>(acc[j]);
        }
    } else {
        flow_dinic(bars, layers, n, out);
    }
    return {};
}

}  // namespace attnscope
