// Verilated clocks per second of one shipped streaming block, driven entirely from C++ (no FFI),
// input always valid and output always ready: the speed of the emitted Verilog itself, for
// comparing two versions of a block. Built by scripts/verilated-rate with -DW=<octets per beat>
// and -DMPA (the MPA framer: 4 KiB ULPDUs, Markers and CRCs on) or -DCRC (the CRC engine:
// 9 KiB frames).
#include "Vtop.h"
#include "verilated.h"
#include <chrono>
#include <cstdint>
#include <cstdio>
// The input stream's port names: `s_tdata`…, or `tdata`… for a CRC engine from before the
// AXI-Stream bundle (-DBARE).
#ifdef BARE
#define P(x) x
#else
#define P(x) s_##x
#endif

static void set_data(Vtop* t, uint64_t v) {
#if W > 8
    for (int i = 0; i < W / 4; i++) t->P(tdata)[i] = (uint32_t)(v * 2654435761u + i);
#else
    t->P(tdata) = v * 0x9E3779B97F4A7C15ull;
#endif
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    Vtop* t = new Vtop;
#ifdef MPA
    const uint64_t frame = 4096;
    t->cfg_markers = 1; t->cfg_crc = 1; t->cfg_mulpdu = 8192; t->cfg_offset = 0; t->s_len = frame;
    t->m_tready = 1;
#else
    const uint64_t frame = 9216;
#endif
    t->reset = 1;
    for (int i = 0; i < 2; i++) { t->clock = 0; t->eval(); t->clock = 1; t->eval(); }
    t->reset = 0;
    const uint64_t beats_per_frame = frame / W;
    const uint64_t clocks = 40000000ull / W;
    uint64_t beat = 0, frames_out = 0;
    t->P(tvalid) = 1;
    t->P(tkeep) = (W >= 64) ? ~0ull : ((1ull << W) - 1);
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t c = 0; c < clocks; c++) {
        set_data(t, beat);
        t->P(tlast) = (beat % beats_per_frame) == beats_per_frame - 1;
        t->clock = 0;
        t->eval();
        bool took = t->P(tready);
#ifdef MPA
        if (t->m_tvalid && t->m_tlast) frames_out++;
#else
        if (t->crc_valid) frames_out++;
#endif
        t->clock = 1;
        t->eval();
        if (took) beat++;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("%llu clocks in %.3f s = %.2f M clocks/s; %llu input beats, %llu frames out\n",
           (unsigned long long)clocks, s, clocks / s / 1e6, (unsigned long long)beat, (unsigned long long)frames_out);
    delete t;
    return 0;
}
