//! Verilog text of the register block, generated from the register map
//! (`offload_driver::registers::MAP`). It mirrors [`super::regs::RegModel::clock`]; register
//! `NAME` is held in `r_name`, this block's counters in `c_*`.

use super::regs::{source, Own, RegModel, Source};
use offload_driver::registers::{
    self as map, Access, CONTROL_MCTP_RESET, CONTROL_MCTP_RX_RESET, CONTROL_MPA_RESET, ID_VALUE,
    MAP,
};
use std::fmt::Write;

fn bit(mask: u32) -> u32 {
    assert!(mask.is_power_of_two());
    mask.trailing_zeros()
}

fn reg_name(name: &str) -> String {
    format!("r_{}", name.to_ascii_lowercase())
}

/// The `r_*` register holding the RW register at `offset`.
fn rw(offset: u8) -> String {
    let r = map::register(offset).expect("mapped");
    assert!(
        matches!(r.access, Access::Rw { .. }),
        "{} is not RW",
        r.name
    );
    reg_name(r.name)
}

pub fn body(m: &RegModel) -> String {
    let mut s = String::new();
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }
    let rws: Vec<_> = MAP
        .iter()
        .filter_map(|r| match r.access {
            Access::Rw { reset, mask } => Some((r, reset, mask)),
            Access::Ro => None,
        })
        .collect();

    o!("// OffloadTop register block: the map of offload_driver::registers behind Corundum's reg_* interface.");
    o!("// Mirrors offload_hdl::top::regs::RegModel::clock.");
    for (r, _, _) in &rws {
        o!("reg [31:0] {};", reg_name(r.name));
    }
    for c in Own::ALL {
        o!("reg [31:0] {};", c.verilog());
    }
    o!("reg mpa_first;");
    o!("initial begin");
    for (r, reset, _) in &rws {
        o!("   {} = 32'h{reset:08X};", reg_name(r.name));
    }
    for c in Own::ALL {
        o!("   {} = 32'h0;", c.verilog());
    }
    o!("   mpa_first = 1'b1; reg_wr_ack = 1'b0; reg_rd_ack = 1'b0; reg_rd_data = 32'h0;");
    o!("end");

    // Configuration outputs.
    let control = rw(map::CONTROL);
    let mpa = rw(map::MPA_CONFIG);
    let flags = rw(map::MCTP_FLAGS);
    let eids = rw(map::MCTP_EIDS);
    let smbus = rw(map::MCTP_SMBUS);
    let tag = map::MCTP_FLAGS_TAG_SHIFT;
    let seq = map::MCTP_FLAGS_SEQ_SHIFT;
    o!("always @(*) begin");
    o!(
        "   mpa_reset = reset | {control}[{}];",
        bit(CONTROL_MPA_RESET)
    );
    o!(
        "   mctp_reset = reset | {control}[{}];",
        bit(CONTROL_MCTP_RESET)
    );
    o!("   mpa_markers = {mpa}[{}];", bit(map::MPA_CONFIG_MARKERS));
    o!("   mpa_crc = {mpa}[{}];", bit(map::MPA_CONFIG_CRC));
    o!("   mpa_mulpdu = {}[15:0];", rw(map::MPA_MULPDU));
    o!("   mpa_offset = {}[15:0];", rw(map::MPA_OFFSET));
    o!("   mctp_src_eid = {eids}[7:0];");
    o!("   mctp_dst_eid = {eids}[15:8];");
    o!("   mctp_tag = {flags}[{}:{tag}];", tag + 2);
    o!("   mctp_to = {flags}[{}];", bit(map::MCTP_FLAGS_TO));
    o!("   mctp_seq = {flags}[{}:{seq}];", seq + 1);
    o!("   mctp_mtu = {}[7:0];", rw(map::MCTP_MTU));
    o!("   mctp_mic = {flags}[{}];", bit(map::MCTP_FLAGS_MIC));
    o!("   mctp_smbus = {flags}[{}];", bit(map::MCTP_FLAGS_SMBUS));
    o!("   mctp_smbus_src = {smbus}[6:0];");
    o!("   mctp_smbus_dst = {smbus}[14:8];");
    let rx = rw(map::MCTP_RX_CONFIG);
    o!(
        "   mctp_rx_reset = reset | {control}[{}];",
        bit(CONTROL_MCTP_RX_RESET)
    );
    o!("   mctp_rx_smbus = {rx}[{}];", bit(map::MCTP_RX_SMBUS));
    o!("   mctp_rx_mic = {rx}[{}];", bit(map::MCTP_RX_MIC));
    o!("   mctp_rx_strict = {rx}[{}];", bit(map::MCTP_RX_STRICT));
    o!("   mctp_rx_max_len = {}[12:0];", rw(map::MCTP_RX_MAX_LEN));
    o!("end");

    // Read multiplexer.
    o!("reg [31:0] rd_mux;");
    o!("always @(*) begin");
    o!("   case (reg_rd_addr[7:2])");
    for r in MAP {
        let v = match r.access {
            Access::Rw { .. } => reg_name(r.name),
            Access::Ro => match source(r.name).expect("checked by RegModel::new") {
                Source::Id => format!("32'h{ID_VALUE:08X}"),
                Source::Version => format!("32'h{:08X}", m.version()),
                Source::Own(c) => c.verilog().to_string(),
                Source::Input(c) => c.port(),
            },
        };
        o!("      6'd{}: rd_mux = {v}; // {}", r.offset / 4, r.name);
    }
    o!("      default: rd_mux = 32'h0;");
    o!("   endcase");
    o!("end");
    o!("wire [1:0] unused_addr_low = {{reg_rd_addr[1:0] | reg_wr_addr[1:0]}};");
    o!("wire [31:0] strb_mask = {{{{8{{reg_wr_strb[3]}}}}, {{8{{reg_wr_strb[2]}}}}, {{8{{reg_wr_strb[1]}}}}, {{8{{reg_wr_strb[0]}}}}}};");
    o!("wire mpa_hs = mpa_s_tvalid & mpa_s_tready;");
    o!("wire mctp_hs = mctp_s_tvalid & mctp_s_tready;");

    o!("always @(posedge clock) begin");
    o!("   reg_wr_ack <= 1'b0;");
    o!("   reg_rd_ack <= 1'b0;");
    o!("   reg_rd_data <= 32'h0;");
    o!("   if (reg_wr_en & ~reg_wr_ack) begin");
    o!("      reg_wr_ack <= 1'b1;");
    o!("      case (reg_wr_addr[7:2])");
    for (r, _, mask) in &rws {
        let n = reg_name(r.name);
        o!("         6'd{}: {n} <= (({n} & ~strb_mask) | (reg_wr_data & strb_mask)) & 32'h{mask:08X};", r.offset / 4);
    }
    o!("         default: ;");
    o!("      endcase");
    o!("   end");
    o!("   if (reg_rd_en & ~reg_rd_ack) begin");
    o!("      reg_rd_ack <= 1'b1;");
    o!("      reg_rd_data <= rd_mux;");
    o!("   end");
    let (ui, dz, dm, mi) = (
        Own::MpaUlpdusIn.verilog(),
        Own::MpaDropZeroLen.verilog(),
        Own::MpaDropOverMulpdu.verilog(),
        Own::MctpMessagesIn.verilog(),
    );
    o!("   if (mpa_reset) begin");
    o!("      mpa_first <= 1'b1; {ui} <= 32'h0; {dz} <= 32'h0; {dm} <= 32'h0;");
    o!("   end else if (mpa_hs) begin");
    o!("      mpa_first <= mpa_s_tlast;");
    o!("      if (mpa_s_tlast) {ui} <= {ui} + 32'h1;");
    o!("      if (mpa_first & (mpa_s_len == 16'h0)) {dz} <= {dz} + 32'h1;");
    o!("      if (mpa_first & (mpa_s_len > mpa_mulpdu)) {dm} <= {dm} + 32'h1;");
    o!("   end");
    o!("   if (mctp_reset) {mi} <= 32'h0;");
    o!("   else if (mctp_hs & mctp_s_tlast) {mi} <= {mi} + 32'h1;");
    let rf = Own::MctpRxFramesIn.verilog();
    o!("   if (mctp_rx_reset) {rf} <= 32'h0;");
    o!("   else if (mctp_rx_s_tvalid & mctp_rx_s_tready & mctp_rx_s_tlast) {rf} <= {rf} + 32'h1;");
    o!("   if (reset) begin");
    for (r, reset, _) in &rws {
        o!("      {} <= 32'h{reset:08X};", reg_name(r.name));
    }
    o!("      reg_wr_ack <= 1'b0; reg_rd_ack <= 1'b0; reg_rd_data <= 32'h0;");
    o!("   end");
    o!("end");
    s
}
