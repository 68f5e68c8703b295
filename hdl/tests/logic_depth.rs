//! The logic-depth guard: every shipped block's longest register-to-register path in LUT4
//! cells (`tools::lut4_depth`: Yosys `abc -lut 4` and `ltp`, seconds, no place and route) stays
//! within its budget, so a later change cannot silently undo the pipelining that makes a block
//! close timing. Fails (does not skip) without Yosys.
//!
//! The budget is what the block's clock allows on an ECP5 speed grade 8 (docs/PERFORMANCE.md,
//! "Logic depth and Fmax"): about 5 levels at 156.25 MHz, 3–4 where the goal is 250 MHz. A
//! block not yet pipelined (issues 26 and 27 list them) has its depth of today as a ceiling
//! instead, so it cannot get worse while it waits; lower its entry when it is pipelined.

use offload_hdl::registry::catalogue;
use offload_hdl::tools;

/// (entry, LUT4 levels allowed, why that number).
const BUDGETS: &[(&str, usize, &str)] = &[
    ("crc32c_w1", 3, "CRC-32C engine, 250 MHz goal"),
    ("crc32c_w2", 3, "CRC-32C engine, 250 MHz goal"),
    ("crc32c_w4", 3, "CRC-32C engine, 250 MHz goal"),
    ("crc32c_w8", 3, "CRC-32C engine, 250 MHz goal"),
    ("crc32c_w16", 4, "CRC-32C engine, 156.25 MHz"),
    ("crc32c_w32", 4, "CRC-32C engine, 156.25 MHz"),
    ("crc32c_w64", 4, "CRC-32C engine, 156.25 MHz goal at W = 64"),
    ("crc32_w8", 4, "CRC-32 engine (Fibre Channel), 156.25 MHz"),
    ("crc8_w1", 2, "CRC-8/SMBUS engine"),
    ("crc16_w1", 2, "CRC-16/MCRF4XX engine"),
    ("mpa_tx_w4", 11, "ceiling: MPA TX length check and counters (carry chains on the ECP5; 136.5 MHz at W = 8, issue 26)"),
    ("mpa_tx_w8", 11, "ceiling: MPA TX length check and counters (carry chains on the ECP5; 136.5 MHz at W = 8, issue 26)"),
    ("mpa_rx_w8", 12, "ceiling: MPA RX aligner and check stages (carry chains on the ECP5; see docs/PERFORMANCE.md, issue 26)"),
    ("mctp_tx_w1", 11, "ceiling: MCTP TX partly pipelined (layouts from registers, MIC placed a clock after its CRC; 19 before, issue 27)"),
    ("mctp_tx_w4", 11, "ceiling: MCTP TX partly pipelined (layouts from registers, MIC placed a clock after its CRC; 24 before, issue 27)"),
    ("mctp_tx_w8", 11, "ceiling: MCTP TX partly pipelined (layouts from registers, MIC placed a clock after its CRC; 22 before, 12 until the second round, issue 27)"),
    ("mctp_rx_w1", 14, "ceiling: MCTP RX partly pipelined (beat decoder, registered MIC verdict; 22 before, issue 27)"),
    ("mctp_rx_w4", 12, "ceiling: MCTP RX partly pipelined (beat decoder, registered MIC verdict, the decoder's room looked up: 11 at 45a5ba3, a level of slack; 21 before, issue 27)"),
    ("regs_w4", 11, "ceiling: the 32-bit counters' increments, which ripple in abc but are carry chains on the ECP5 (the read multiplexer is registered: 210 MHz, issue 27)"),
];

/// Entries the guard leaves to `offload synth --depth`, each for its Yosys time on two cores:
/// the W = 64 MPA blocks (tens of minutes of synthesis), MCTP RX at W = 8 (a minute of Yosys
/// since issue 27's beat decoder, eight before; W = 1 and 4 guard the same description), and the tops and the board core, which are the blocks above plus a
/// register block.
fn out_of_ci(name: &str) -> bool {
    name == "mpa_tx_w64" || name == "mpa_rx_w64" || name == "mctp_rx_w8" || name.starts_with("top_") || name.starts_with("board_")
}

/// Every budgeted block through `tools::lut4_depth`, the Yosys runs spread over the cores
/// (`tools::par_map`), widest blocks first: they take longest (CRC-32C W = 64 about a minute),
/// and started last they would leave one core idle while they finish.
#[test]
fn every_shipped_block_within_budget() {
    assert!(tools::which("yosys").is_some(), "`yosys` is not installed: run scripts/install-deps");
    let mut entries: Vec<_> = catalogue().into_iter().filter(|e| !out_of_ci(&e.name)).collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.width_bytes));
    let results = tools::par_map(&entries, |e| {
        let (_, budget, why) = BUDGETS
            .iter()
            .find(|b| b.0 == e.name)
            .unwrap_or_else(|| panic!("{}: no depth budget in hdl/tests/logic_depth.rs", e.name));
        let depth = tools::lut4_depth(&e.shipped_verilog(), &e.module_name()).map_err(|err| format!("{}: {err}", e.name))?;
        eprintln!("{}: {depth} LUT4 levels (budget {budget}: {why})", e.name);
        if depth > *budget {
            return Err(format!("{}: {depth} LUT4 levels > {budget} ({why})", e.name));
        }
        Ok(())
    });
    assert!(!results.is_empty(), "no entry checked");
    let over: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    assert!(over.is_empty(), "logic depth over budget:\n{}", over.join("\n"));
}

/// The guard must see a deep path where there is one, or it proves nothing.
#[test]
fn depth_of_a_known_chain() {
    // A 64-bit adder between registers: its carry ripples through tens of LUT4 levels.
    let v = "module top(input wire clock, input wire [63:0] a, input wire [63:0] b, output reg [63:0] q);\n\
             reg [63:0] ar, br;\n\
             always @(posedge clock) begin ar <= a; br <= b; q <= ar + br; end\nendmodule\n";
    let d = tools::lut4_depth(v, "top").unwrap();
    assert!(d >= 16, "a 64-bit ripple adder measured {d} LUT4 levels");
}
