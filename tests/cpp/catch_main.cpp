// Catch2's main in a translation unit of its own, so it is compiled once per build.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
