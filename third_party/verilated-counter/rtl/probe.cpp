// Compiled with the counter model by verilator::gen: returns a define that only the build
// script's own cc::Build (Verilator::compiler) sets.
extern "C" int counter_probe() { return COUNTER_PROBE; }
