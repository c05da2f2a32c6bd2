// The score definitions (src/scores/): one per registry row, complete, consistent with the registry's
// `matrices`, and their declared properties hold.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "scores/score_def.hpp"
#include "test_util.hpp"

using namespace attnscope;
using namespace attnscope::test;

TEST_CASE("score_defs: every registry score has a complete definition", "[scores]") {
    for (const auto& info : score_infos()) {
        INFO(info.name);
        const scores::ScoreDef& def = scores::score_def(info.id);
        CHECK(scores::complete(def));
        // A score with matrices seeds them per head and has their gradients; one without has neither.
        const bool has_matrices = score_has_weights(info.id);
        CHECK((def.head_params != nullptr) == has_matrices);
        CHECK((def.param_grads != nullptr) == has_matrices);
    }
}

TEST_CASE("score_defs: distance-like scores ignore a shift of q and k by the same vector", "[scores]") {
    Rng rng(24);
    const std::size_t nq = 5, nk = 7, d = 9;
    const Mat Q = uniform_matrix(nq, d, rng), K = uniform_matrix(nk, d, rng), c = uniform_matrix(1, d, rng);
    Mat Qs = Q, Ks = K;
    for (std::size_t t = 0; t < d; ++t) {
        for (std::size_t i = 0; i < nq; ++i) Qs(i, t) += c(0, t);
        for (std::size_t j = 0; j < nk; ++j) Ks(j, t) += c(0, t);
    }
    RandomParams rp(rng, d, d, nk);
    int distance_like = 0;
    for (const auto& info : score_infos()) {
        if (!scores::score_def(info.id).distance_like) continue;
        ++distance_like;
        INFO(info.name);
        Mat S(nq, nk), Ss(nq, nk);
        REQUIRE(compute_scores(info.id, Q.view(), K.view(), rp.p, S.mview()).ok());
        REQUIRE(compute_scores(info.id, Qs.view(), Ks.view(), rp.p, Ss.mview()).ok());
        for (std::size_t i = 0; i < nq; ++i)
            for (std::size_t j = 0; j < nk; ++j) CHECK(Ss(i, j) == Approx(S(i, j)).margin(1e-4).epsilon(1e-4));
    }
    CHECK(distance_like >= 4);  // neg-euclidean, neg-sq-euclidean, idw, neg-manhattan
}
