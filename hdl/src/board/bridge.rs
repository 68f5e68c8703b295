//! The FrontPanel side of the XEM7010 board, without the vendor core: [`OkBridge`] turns
//! FrontPanel endpoint signals (wire-ins, a trigger-in, pipe-ins, pipe-outs, wire-outs, all in
//! the host interface clock `ti_clk`) into `OffloadTop`'s register bus and AXI4-Stream ports,
//! and [`BoardCore`] is the bridge with an `OffloadTop<W=4>` behind it. The feature-gated
//! [`super::xem7010`] only adds Opal Kelly's `okHost` and endpoint cells around `BoardCore`,
//! so everything between the endpoints and the blocks is Verilated and tested in the default
//! build (`offload-sim`'s board co-simulation with `offload_driver::ok::OkTransport`).
//!
//! # Endpoints (16-bit, FrontPanel USB 2.0)
//! | endpoint | use |
//! | --- | --- |
//! | WireIn 0x00 | register byte address |
//! | WireIn 0x01, 0x02 | register write data, low and high half |
//! | WireIn 0x03 | bit 0: hold the bridge and `OffloadTop` in reset |
//! | TriggerIn 0x40 | bit 0: write the register; bit 1: read it |
//! | WireOut 0x20, 0x21 | register read data, low and high half |
//! | WireOut 0x22 | [7:0] completed register accesses (mod 256); 8/9: MPA/MCTP input overflowed (sticky); 10/11: MPA/MCTP input idle (FIFO empty, no frame in progress) |
//! | WireOut 0x23, 0x24 | free words in the MPA / MCTP input FIFO |
//! | WireOut 0x25, 0x26 | beats waiting in the MPA / MCTP output FIFO |
//! | PipeIn 0x80, 0x81 | MPA ULPDUs / MCTP messages |
//! | PipeOut 0xA0, 0xA1 | FPDUs / MCTP packets |
//!
//! # Stream encoding (16-bit pipe words, little-endian octets)
//! In: per frame, `len[15:0]`, `len[16]`, then the octets zero-padded to a multiple of 4 (at
//! least one 4-octet beat, so a 0-octet frame is one empty beat). The host writes no more
//! words than the FIFO has free (WireOut 0x23/0x24); extra words are dropped and flagged.
//! Out: per beat, three words: data `[15:0]`, data `[31:16]`, flags `{valid, 10'b0, last,
//! keep[3:0]}`. A read while the FIFO is empty returns an all-zero (not valid) triple; the
//! host reads `3 ×` the count in WireOut 0x25/0x26.
//! Pipe-out timing: `ep_datain` is registered on `ep_read` (valid the clock after it), as the
//! USB 2.0 `okPipeOut` expects.
//!
//! `OkBridge` has no Rust cycle model: rust-hdl's simulator must not run it (its `update`
//! panics); it is verified in Verilator through `BoardCore`.

use crate::axis::{AxisSink, AxisSource};
use crate::top::reg_bus::RegMaster;
use crate::top::OffloadTop;
use rust_hdl::prelude::*;
use std::fmt::Write;

/// FIFO depths and endpoint addresses: the host transport's (`offload_driver::ok`), defined
/// once there.
pub use offload_driver::ok::{ep, IN_FIFO_WORDS, OUT_FIFO_BEATS};

/// The endpoint-to-`OffloadTop` bridge (Verilog from [`body`]).
#[derive(LogicBlock, Default)]
pub struct OkBridge {
    pub clock: Signal<In, Clock>,
    pub wi_addr: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub wi_control: Signal<In, Bits<16>>,
    pub ti_bus: Signal<In, Bits<16>>,
    pub mpa_in_write: Signal<In, Bit>,
    pub mpa_in_data: Signal<In, Bits<16>>,
    pub mctp_in_write: Signal<In, Bit>,
    pub mctp_in_data: Signal<In, Bits<16>>,
    pub mpa_out_read: Signal<In, Bit>,
    pub mctp_out_read: Signal<In, Bit>,
    pub wo_data_lo: Signal<Out, Bits<16>>,
    pub wo_data_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub wo_mpa_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_out_count: Signal<Out, Bits<16>>,
    pub mpa_out_data: Signal<Out, Bits<16>>,
    pub mctp_out_data: Signal<Out, Bits<16>>,
    pub leds: Signal<Out, Bits<8>>,
    // OffloadTop side.
    pub top_reset: Signal<Out, Bit>,
    pub reg_bus: RegMaster,
    pub mpa_s: AxisSource<32, 4>,
    pub mpa_s_len: Signal<Out, Bits<16>>,
    pub mpa_m: AxisSink<32, 4>,
    pub mctp_s: AxisSource<32, 4>,
    pub mctp_s_len: Signal<Out, Bits<17>>,
    pub mctp_m: AxisSink<32, 4>,
}

impl Logic for OkBridge {
    fn update(&mut self) {
        panic!("OkBridge has no rust-hdl model: simulate BoardCore in Verilator (offload-sim)");
    }

    fn connect(&mut self) {
        for s in [
            &mut self.wo_data_lo,
            &mut self.wo_data_hi,
            &mut self.wo_status,
            &mut self.wo_mpa_in_free,
            &mut self.wo_mctp_in_free,
            &mut self.wo_mpa_out_count,
            &mut self.wo_mctp_out_count,
            &mut self.mpa_out_data,
            &mut self.mctp_out_data,
        ] {
            s.connect();
        }
        self.leds.connect();
        self.top_reset.connect();
        self.reg_bus.wr_addr.connect();
        self.reg_bus.wr_data.connect();
        self.reg_bus.wr_strb.connect();
        self.reg_bus.wr_en.connect();
        self.reg_bus.rd_addr.connect();
        self.reg_bus.rd_en.connect();
        self.mpa_s.tdata.connect();
        self.mpa_s.tkeep.connect();
        self.mpa_s.tvalid.connect();
        self.mpa_s.tlast.connect();
        self.mpa_s_len.connect();
        self.mpa_m.tready.connect();
        self.mctp_s.tdata.connect();
        self.mctp_s.tkeep.connect();
        self.mctp_s.tvalid.connect();
        self.mctp_s.tlast.connect();
        self.mctp_s_len.connect();
        self.mctp_m.tready.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(crate::ports::body_for_bundles(&body(), self))
    }
}

/// Width in bits of a counter holding `0..=max`.
fn bits_for(max: usize) -> usize {
    (usize::BITS - max.leading_zeros()) as usize
}

/// One input channel: FIFO of pipe words, then the unpacker into 4-octet beats.
fn in_channel(s: &mut String, p: &str, len_bits: usize) {
    let ab = bits_for(IN_FIFO_WORDS - 1);
    let nb = ab + 1;
    let depth = IN_FIFO_WORDS;
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }
    o!("// {p} input: FIFO of pipe words, then len[15:0], len[16], data words -> 4-octet beats.");
    o!("reg [15:0] {p}_if_mem [0:{}];", depth - 1);
    o!(
        "reg [{}:0] {p}_if_wp; reg [{}:0] {p}_if_rp; reg [{}:0] {p}_if_n; reg {p}_ovf;",
        ab - 1,
        ab - 1,
        nb - 1
    );
    o!("reg [2:0] {p}_u_st; reg [16:0] {p}_u_len; reg [16:0] {p}_u_left; reg [15:0] {p}_u_lo;");
    o!("reg [31:0] {p}_u_data; reg [3:0] {p}_u_keep; reg {p}_u_last;");
    o!("initial begin {p}_if_wp = 0; {p}_if_rp = 0; {p}_if_n = 0; {p}_ovf = 0; {p}_u_st = 0; {p}_u_len = 0; {p}_u_left = 0; {p}_u_lo = 0; {p}_u_data = 0; {p}_u_keep = 0; {p}_u_last = 0; end");
    o!("wire {p}_if_full = {p}_if_n == {nb}'d{depth};");
    o!("wire {p}_if_push = {p}_in_write & ~{p}_if_full;");
    o!("wire [15:0] {p}_if_dout = {p}_if_mem[{p}_if_rp];");
    o!("wire {p}_if_pop = ({p}_if_n != {nb}'d0) & ({p}_u_st != U_BEAT);");
    o!("always @(posedge clock) if ({p}_if_push) {p}_if_mem[{p}_if_wp] <= {p}_in_data;");
    o!("always @(posedge clock) begin");
    o!("   if (rst) begin");
    o!("      {p}_if_wp <= 0; {p}_if_rp <= 0; {p}_if_n <= 0; {p}_ovf <= 1'b0; {p}_u_st <= U_H0;");
    o!("   end else begin");
    o!("      if ({p}_if_push) {p}_if_wp <= {p}_if_wp + 1'b1;");
    o!("      if ({p}_if_pop) {p}_if_rp <= {p}_if_rp + 1'b1;");
    o!(
        "      {p}_if_n <= {p}_if_n + {{{}'d0, {p}_if_push}} - {{{}'d0, {p}_if_pop}};",
        nb - 1,
        nb - 1
    );
    o!("      if ({p}_in_write & {p}_if_full) {p}_ovf <= 1'b1;");
    o!("      case ({p}_u_st)");
    o!("         U_H0: if ({p}_if_pop) begin {p}_u_len[15:0] <= {p}_if_dout; {p}_u_st <= U_H1; end");
    o!("         U_H1: if ({p}_if_pop) begin {p}_u_len[16] <= {p}_if_dout[0]; {p}_u_left <= {{{p}_if_dout[0], {p}_u_len[15:0]}}; {p}_u_st <= U_LO; end");
    o!("         U_LO: if ({p}_if_pop) begin {p}_u_lo <= {p}_if_dout; {p}_u_st <= U_HI; end");
    o!("         U_HI: if ({p}_if_pop) begin");
    o!("            {p}_u_data <= {{{p}_if_dout, {p}_u_lo}};");
    o!("            {p}_u_keep <= ({p}_u_left >= 17'd4) ? 4'hF : ({p}_u_left == 17'd3) ? 4'h7 : ({p}_u_left == 17'd2) ? 4'h3 : ({p}_u_left == 17'd1) ? 4'h1 : 4'h0;");
    o!("            {p}_u_last <= {p}_u_left <= 17'd4;");
    o!("            {p}_u_st <= U_BEAT;");
    o!("         end");
    o!("         U_BEAT: if ({p}_s_tready) begin");
    o!("            {p}_u_left <= ({p}_u_left >= 17'd4) ? {p}_u_left - 17'd4 : 17'd0;");
    o!("            {p}_u_st <= {p}_u_last ? U_H0 : U_LO;");
    o!("         end");
    o!("         default: {p}_u_st <= U_H0;");
    o!("      endcase");
    o!("   end");
    o!("end");
    o!("always @(*) begin");
    o!("   {p}_s_tdata = {p}_u_data; {p}_s_tkeep = {p}_u_keep; {p}_s_tlast = {p}_u_last;");
    o!("   {p}_s_tvalid = ~rst & ({p}_u_st == U_BEAT);");
    o!("   {p}_s_len = {p}_u_len[{}:0];", len_bits - 1);
    o!(
        "   wo_{p}_in_free = 16'd{depth} - {{{}'d0, {p}_if_n}};",
        16 - nb
    );
    o!("end");
    if len_bits < 17 {
        o!("wire unused_{p}_len = {p}_u_len[16];");
    }
    o!("wire {p}_in_idle = ({p}_if_n == {nb}'d0) & ({p}_u_st == U_H0);");
}

/// One output channel: beats into a FIFO, read out as word triples.
fn out_channel(s: &mut String, p: &str) {
    let ab = bits_for(OUT_FIFO_BEATS - 1);
    let nb = ab + 1;
    let depth = OUT_FIFO_BEATS;
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }
    o!("// {p} output: beats {{last, keep, data}} into a FIFO, read as data[15:0], data[31:16], flags.");
    o!("reg [36:0] {p}_of_mem [0:{}];", depth - 1);
    o!(
        "reg [{}:0] {p}_of_wp; reg [{}:0] {p}_of_rp; reg [{}:0] {p}_of_n;",
        ab - 1,
        ab - 1,
        nb - 1
    );
    o!("reg [1:0] {p}_o_w; reg {p}_o_cur;");
    o!("initial begin {p}_of_wp = 0; {p}_of_rp = 0; {p}_of_n = 0; {p}_o_w = 0; {p}_o_cur = 0; {p}_out_data = 0; end");
    o!("wire {p}_of_push = {p}_m_tvalid & {p}_m_tready;");
    o!("wire [36:0] {p}_of_head = {p}_of_mem[{p}_of_rp];");
    o!("wire {p}_of_pop = {p}_out_read & ({p}_o_w == 2'd2) & {p}_o_cur;");
    o!("always @(posedge clock) if ({p}_of_push) {p}_of_mem[{p}_of_wp] <= {{{p}_m_tlast, {p}_m_tkeep, {p}_m_tdata}};");
    o!("always @(posedge clock) begin");
    o!("   if (rst) begin");
    o!("      {p}_of_wp <= 0; {p}_of_rp <= 0; {p}_of_n <= 0; {p}_o_w <= 2'd0; {p}_o_cur <= 1'b0; {p}_out_data <= 16'h0;");
    o!("   end else begin");
    o!("      if ({p}_of_push) {p}_of_wp <= {p}_of_wp + 1'b1;");
    o!("      if ({p}_of_pop) {p}_of_rp <= {p}_of_rp + 1'b1;");
    o!(
        "      {p}_of_n <= {p}_of_n + {{{}'d0, {p}_of_push}} - {{{}'d0, {p}_of_pop}};",
        nb - 1,
        nb - 1
    );
    o!("      if ({p}_out_read) begin");
    o!("         case ({p}_o_w)");
    o!("            2'd0: begin {p}_o_cur <= {p}_of_n != {nb}'d0; {p}_out_data <= ({p}_of_n != {nb}'d0) ? {p}_of_head[15:0] : 16'h0; {p}_o_w <= 2'd1; end");
    o!("            2'd1: begin {p}_out_data <= {p}_o_cur ? {p}_of_head[31:16] : 16'h0; {p}_o_w <= 2'd2; end");
    o!("            default: begin {p}_out_data <= {p}_o_cur ? {{1'b1, 10'h0, {p}_of_head[36:32]}} : 16'h0; {p}_o_w <= 2'd0; end");
    o!("         endcase");
    o!("      end");
    o!("   end");
    o!("end");
    o!("always @(*) begin");
    o!("   {p}_m_tready = ~rst & ({p}_of_n < {nb}'d{});", depth - 1);
    o!("   wo_{p}_out_count = {{{}'d0, {p}_of_n}};", 16 - nb);
    o!("end");
}

pub fn body() -> String {
    use offload_driver::ok::{BEAT_OCTETS, FLAG_LAST, FLAG_VALID};
    // The layouts written literally below, checked against the host's definitions.
    assert_eq!(
        (FLAG_VALID, FLAG_LAST, BEAT_OCTETS),
        (1 << 15, 1 << 4, 4),
        "output flags layout changed"
    );
    assert_eq!(
        (
            ep::STATUS_MPA_OVERFLOW,
            ep::STATUS_MCTP_OVERFLOW,
            ep::STATUS_MPA_IDLE,
            ep::STATUS_MCTP_IDLE
        ),
        (1 << 8, 1 << 9, 1 << 10, 1 << 11),
        "status layout changed"
    );
    assert_eq!(
        (ep::TI_WRITE_BIT, ep::TI_READ_BIT),
        (0, 1),
        "trigger bits changed"
    );
    let mut s = String::new();
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }
    o!("// FrontPanel endpoints <-> OffloadTop (see offload_hdl::board::bridge).");
    o!("localparam U_H0 = 3'd0, U_H1 = 3'd1, U_LO = 3'd2, U_HI = 3'd3, U_BEAT = 3'd4;");
    o!("wire rst = wi_control[0];");
    o!("wire [14:0] unused_control = wi_control[15:1];");
    o!("wire [7:0] unused_addr_hi = wi_addr[15:8];");
    o!("wire [13:0] unused_trigger = ti_bus[15:2];");
    o!("wire unused_wait = reg_wr_wait | reg_rd_wait; // always 0: every access completes in a clock");
    // Register bridge.
    o!("reg [1:0] b_st; reg [7:0] b_count; reg [31:0] b_rdata; reg [25:0] heartbeat;");
    o!("initial begin b_st = 0; b_count = 0; b_rdata = 0; heartbeat = 0; reg_wr_en = 0; reg_rd_en = 0; reg_wr_addr = 0; reg_wr_data = 0; reg_rd_addr = 0; end");
    o!("always @(posedge clock) begin");
    o!("   heartbeat <= heartbeat + 26'd1;");
    o!("   if (rst) begin");
    o!("      b_st <= 2'd0; b_count <= 8'd0; b_rdata <= 32'h0; reg_wr_en <= 1'b0; reg_rd_en <= 1'b0;");
    o!("   end else begin");
    o!("      case (b_st)");
    o!("         2'd0: if (ti_bus[0]) begin");
    o!("               reg_wr_addr <= wi_addr[7:0]; reg_wr_data <= {{wi_data_hi, wi_data_lo}}; reg_wr_en <= 1'b1; b_st <= 2'd1;");
    o!("            end else if (ti_bus[1]) begin");
    o!("               reg_rd_addr <= wi_addr[7:0]; reg_rd_en <= 1'b1; b_st <= 2'd2;");
    o!("            end");
    o!("         2'd1: if (reg_wr_ack) begin reg_wr_en <= 1'b0; b_count <= b_count + 8'd1; b_st <= 2'd0; end");
    o!("         2'd2: if (reg_rd_ack) begin reg_rd_en <= 1'b0; b_rdata <= reg_rd_data; b_count <= b_count + 8'd1; b_st <= 2'd0; end");
    o!("         default: b_st <= 2'd0;");
    o!("      endcase");
    o!("   end");
    o!("end");
    in_channel(&mut s, "mpa", 16);
    in_channel(&mut s, "mctp", 17);
    out_channel(&mut s, "mpa");
    out_channel(&mut s, "mctp");
    o!("always @(*) begin");
    o!("   top_reset = rst;");
    o!("   reg_wr_strb = 4'hF;");
    o!("   wo_data_lo = b_rdata[15:0]; wo_data_hi = b_rdata[31:16];");
    o!("   wo_status = {{4'h0, mctp_in_idle, mpa_in_idle, mctp_ovf, mpa_ovf, b_count}};");
    o!("   // Active low: a heartbeat and the input/output activity.");
    o!("   leds = ~{{heartbeat[25], 3'b000, mctp_m_tvalid, mctp_s_tvalid, mpa_m_tvalid, mpa_s_tvalid}};");
    o!("end");
    s
}

/// `OkBridge` with an `OffloadTop` (MPA TX and MCTP TX at 4 octets per beat) behind it: the
/// board design minus the Opal Kelly cells. Its ports are the FrontPanel endpoint signals.
#[derive(LogicBlock, Default)]
pub struct BoardCore {
    pub clock: Signal<In, Clock>,
    pub wi_addr: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub wi_control: Signal<In, Bits<16>>,
    pub ti_bus: Signal<In, Bits<16>>,
    pub mpa_in_write: Signal<In, Bit>,
    pub mpa_in_data: Signal<In, Bits<16>>,
    pub mctp_in_write: Signal<In, Bit>,
    pub mctp_in_data: Signal<In, Bits<16>>,
    pub mpa_out_read: Signal<In, Bit>,
    pub mctp_out_read: Signal<In, Bit>,
    pub wo_data_lo: Signal<Out, Bits<16>>,
    pub wo_data_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub wo_mpa_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_out_count: Signal<Out, Bits<16>>,
    pub mpa_out_data: Signal<Out, Bits<16>>,
    pub mctp_out_data: Signal<Out, Bits<16>>,
    pub leds: Signal<Out, Bits<8>>,
    /// The MCTP RX path of `OffloadTop`, passed through: not bridged to FrontPanel yet.
    pub mctp_rx_s: AxisSink<32, 4>,
    pub mctp_rx_m: AxisSource<32, 4>,
    pub mctp_rx_m_src_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_dst_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_tag: Signal<Out, Bits<3>>,
    pub mctp_rx_m_to: Signal<Out, Bit>,
    pub bridge: OkBridge,
    pub top: OffloadTop<32, 4, 64, 96, 32, 4>,
}

impl Logic for BoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.bridge.clock.next = self.clock.val();
        self.top.clock.next = self.clock.val();
        // Endpoint side.
        self.bridge.wi_addr.next = self.wi_addr.val();
        self.bridge.wi_data_lo.next = self.wi_data_lo.val();
        self.bridge.wi_data_hi.next = self.wi_data_hi.val();
        self.bridge.wi_control.next = self.wi_control.val();
        self.bridge.ti_bus.next = self.ti_bus.val();
        self.bridge.mpa_in_write.next = self.mpa_in_write.val();
        self.bridge.mpa_in_data.next = self.mpa_in_data.val();
        self.bridge.mctp_in_write.next = self.mctp_in_write.val();
        self.bridge.mctp_in_data.next = self.mctp_in_data.val();
        self.bridge.mpa_out_read.next = self.mpa_out_read.val();
        self.bridge.mctp_out_read.next = self.mctp_out_read.val();
        self.wo_data_lo.next = self.bridge.wo_data_lo.val();
        self.wo_data_hi.next = self.bridge.wo_data_hi.val();
        self.wo_status.next = self.bridge.wo_status.val();
        self.wo_mpa_in_free.next = self.bridge.wo_mpa_in_free.val();
        self.wo_mctp_in_free.next = self.bridge.wo_mctp_in_free.val();
        self.wo_mpa_out_count.next = self.bridge.wo_mpa_out_count.val();
        self.wo_mctp_out_count.next = self.bridge.wo_mctp_out_count.val();
        self.mpa_out_data.next = self.bridge.mpa_out_data.val();
        self.mctp_out_data.next = self.bridge.mctp_out_data.val();
        self.leds.next = self.bridge.leds.val();
        AxisSink::<32, 4>::link(&mut self.mctp_rx_s, &mut self.top.mctp_rx_s);
        AxisSource::<32, 4>::link(&mut self.mctp_rx_m, &mut self.top.mctp_rx_m);
        self.mctp_rx_m_src_eid.next = self.top.mctp_rx_m_src_eid.val();
        self.mctp_rx_m_dst_eid.next = self.top.mctp_rx_m_dst_eid.val();
        self.mctp_rx_m_tag.next = self.top.mctp_rx_m_tag.val();
        self.mctp_rx_m_to.next = self.top.mctp_rx_m_to.val();
        // OffloadTop side.
        self.top.reset.next = self.bridge.top_reset.val();
        RegMaster::join(&mut self.bridge.reg_bus, &mut self.top.reg_bus);
        AxisSource::<32, 4>::join(&mut self.bridge.mpa_s, &mut self.top.mpa_s);
        self.top.mpa_s_len.next = self.bridge.mpa_s_len.val();
        AxisSource::<32, 4>::join(&mut self.top.mpa_m, &mut self.bridge.mpa_m);
        AxisSource::<32, 4>::join(&mut self.bridge.mctp_s, &mut self.top.mctp_s);
        self.top.mctp_s_len.next = self.bridge.mctp_s_len.val();
        AxisSource::<32, 4>::join(&mut self.top.mctp_m, &mut self.bridge.mctp_m);
    }
}
