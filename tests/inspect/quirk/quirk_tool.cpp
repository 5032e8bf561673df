// The stock tool built a second time with -DLOCKSTEP_PLANTED_PLATFORM_QUIRK: stands in for
// "the same game built by another compiler / for another platform" in the field guide's
// cross-build test (broken-platform rounds differently in this build).
#include <lockstep/cli/cli.h>
#include <lockstep/fixtures/fixtures.h>
#include <lockstep/fixtures/planted.h>

int main(int argc, char** argv) {
  lockstep::fixtures::register_builtin_sims();
  lockstep::fixtures::register_stock_tool_extras();
#ifdef LOCKSTEP_PLANTED_PLATFORM_QUIRK
  lockstep::fixtures::set_planted_platform_quirk(true);
#endif
  lockstep::cli::ToolInfo tool;
  tool.name = "lockstep";
  return lockstep::cli::main(argc, argv, tool);
}
