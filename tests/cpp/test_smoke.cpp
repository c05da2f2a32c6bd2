#include <catch2/catch.hpp>
#include "attnscope/attention.hpp"
TEST_CASE("smoke") { REQUIRE(attnscope::score_infos().size() == 9); }
