//! Verilog text of the MCTP TX packetizer body, generated for one width. It mirrors
//! [`super::model::MctpTxModel::next_state`] statement by statement; the names below are the
//! model's (`e_*` are the model's "this cycle" values: the side channels on a first beat, the
//! registers otherwise). The MIC and PEC steps come from the CRC engine's generator
//! (`crc::verilog::step_logic`).

use super::model::{MctpTxModel, SMBUS_PREFIX};
use crate::crc::verilog::step_logic;
use offload_driver::mctp::header::{
    EID_BROADCAST, EID_RESERVED, EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TO_BIT,
};
use offload_driver::mctp::smbus::COMMAND_CODE;
use offload_driver::mctp::{HEADER_LEN, MAX_MESSAGE_LEN, MAX_MTU, MIN_MTU, SMBUS_MAX_MTU};
use offload_driver::nvme_mi::{MIC_LEN, OOB_MAX_MESSAGE_LEN};
use std::fmt::Write;

/// Width in bits of a counter holding `0..=max`.
fn bits_for(max: usize) -> usize {
    (usize::BITS - max.leading_zeros()).max(1) as usize
}

pub fn body(m: &MctpTxModel) -> String {
    // The flags octet below is written as {SOM, EOM, seq[1:0], TO, tag[2:0]}.
    assert_eq!((SOM_BIT, EOM_BIT, SEQ_SHIFT, TO_BIT), (7, 6, 4, 3), "MCTP flag layout changed");
    let w = m.w;
    let db = 8 * w;
    let hmax = m.hmax;
    // Item octets: the window and this beat's octets and MIC, which are only taken with h ≤ W,
    // so h + c ≤ 2W + 4 = hmax.
    let ib = hmax;
    let mic_init = m.mic_net.init_r;
    let mic_rb = 8 * m.mic_net.reg_bytes;
    let pec_init = m.pec_net.init_r;
    let pec_rb = 8 * m.pec_net.reg_bytes;
    let hdr_all = SMBUS_PREFIX + HEADER_LEN;
    let ones = format!("{w}'h{}", "F".repeat(w.div_ceil(4)));
    let (eid_lo, eid_hi) = (*EID_RESERVED.start(), *EID_RESERVED.end());
    // Shift amounts carry only the bits their range needs (nh, p, k ≤ W; h ≤ W when shifted), so the
    // byte shifters have no levels for amounts that cannot occur.
    let pb = bits_for(w);
    let mut s = String::new();
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }

    o!("// MCTP TX packetizer (DSP0236 packets, NVMe-MI MIC, DSP0237 SMBus binding), {w} octet(s) per beat.");
    o!("// Mirrors offload_hdl::mctp_tx::model::MctpTxModel::next_state; names are the model's.");
    o!("localparam IDLE = 2'd0, BODY = 2'd1, TAIL = 2'd2, DROP = 2'd3;");
    o!("reg [1:0] phase;");
    o!("reg [7:0] h;");
    o!("reg [{}:0] win;", 8 * hmax - 1);
    o!("reg [16:0] in_left;");
    o!("reg [16:0] msg_left;");
    o!("reg [7:0] pkt_left;");
    o!("reg [3:0] hpos;");
    o!("reg som;");
    o!("reg eom;");
    o!("reg [1:0] seq;");
    o!("reg [7:0] c_src;");
    o!("reg [7:0] c_dst;");
    o!("reg [2:0] c_tag;");
    o!("reg c_to;");
    o!("reg [7:0] c_mtu;");
    o!("reg c_mic;");
    o!("reg c_smbus;");
    o!("reg [6:0] c_sa_src;");
    o!("reg [6:0] c_sa_dst;");
    o!("reg [{}:0] mic_r;", mic_rb - 1);
    o!("reg [{}:0] pec_r;", pec_rb - 1);
    o!("initial begin");
    o!("   phase = IDLE; h = 8'd0; win = {}'h0; in_left = 17'h0; msg_left = 17'h0; pkt_left = 8'h0; hpos = 4'h0;", 8 * hmax);
    o!("   som = 1'b0; eom = 1'b0; seq = 2'd0; c_src = 8'h0; c_dst = 8'h0; c_tag = 3'h0; c_to = 1'b0; c_mtu = 8'h0;");
    o!("   c_mic = 1'b0; c_smbus = 1'b0; c_sa_src = 7'h0; c_sa_dst = 7'h0;");
    o!("   mic_r = {mic_rb}'h{mic_init:X}; pec_r = {pec_rb}'h{pec_init:X};");
    o!("   m_tdata = {db}'h0; m_tkeep = {w}'h0; m_tvalid = 1'b0; m_tlast = 1'b0;");
    o!("   packets = 32'h0; messages = 32'h0; dropped = 32'h0; len_errors = 32'h0;");
    o!("end");

    // Input side and refusals.
    o!("wire adv = ~m_tvalid | m_tready;");
    o!("wire [{}:0] keep_in = s_tlast ? s_tkeep : {ones};", w - 1);
    o!("reg [7:0] k_in;");
    o!("always @(*) begin");
    o!("   k_in = 8'd0;");
    for i in 0..w {
        o!("   if (keep_in[{i}]) k_in = 8'd{};", i + 1);
    }
    o!("end");
    o!("wire idle = phase == IDLE;");
    o!("wire in_drop = phase == DROP;");
    o!("// What offload_driver::mctp::transmit refuses (model::refused).");
    o!(
        "wire refused = (s_len == 17'd0) | (s_len > 17'd{MAX_MESSAGE_LEN}) | (cfg_mtu < 8'd{MIN_MTU}) | (cfg_mtu > 8'd{MAX_MTU})"
    );
    o!("   | (cfg_smbus & (cfg_mtu > 8'd{SMBUS_MAX_MTU}))");
    o!("   | ((cfg_src_eid >= 8'd{eid_lo}) & (cfg_src_eid <= 8'd{eid_hi})) | (cfg_src_eid == 8'd{EID_BROADCAST})");
    o!("   | ((cfg_dst_eid >= 8'd{eid_lo}) & (cfg_dst_eid <= 8'd{eid_hi}))");
    o!("   | (cfg_mic & (~s_tdata[7] | (s_len > 17'd{})));", OOB_MAX_MESSAGE_LEN - MIC_LEN);
    o!("wire idle_bad = idle & s_tvalid & refused;");

    // This cycle's message and packet state.
    o!("wire [16:0] msg_left_in = s_len + (cfg_mic ? 17'd{MIC_LEN} : 17'd0);");
    o!("wire [16:0] mtu_in = {{9'd0, cfg_mtu}};");
    o!("wire [7:0] e_src = idle ? cfg_src_eid : c_src;");
    o!("wire [7:0] e_dst = idle ? cfg_dst_eid : c_dst;");
    o!("wire [2:0] e_tag = idle ? cfg_tag : c_tag;");
    o!("wire e_to = idle ? cfg_to : c_to;");
    o!("wire [7:0] e_mtu = idle ? cfg_mtu : c_mtu;");
    o!("wire e_mic = idle ? cfg_mic : c_mic;");
    o!("wire e_smbus = idle ? cfg_smbus : c_smbus;");
    o!("wire [6:0] e_sa_src = idle ? cfg_smbus_src : c_sa_src;");
    o!("wire [6:0] e_sa_dst = idle ? cfg_smbus_dst : c_sa_dst;");
    o!("wire [16:0] e_in_left = idle ? s_len : in_left;");
    o!("wire [16:0] e_msg_left = idle ? msg_left_in : msg_left;");
    o!("wire [7:0] e_pkt_left = idle ? ((msg_left_in < mtu_in) ? msg_left_in[7:0] : cfg_mtu) : pkt_left;");
    o!("wire [3:0] e_hpos = idle ? 4'd0 : hpos;");
    o!("wire e_som = idle | som;");
    o!("wire e_eom = idle ? (msg_left_in <= mtu_in) : eom;");
    o!("wire [1:0] e_seq = idle ? cfg_seq : seq;");
    o!("wire [{}:0] e_mic_r = idle ? {mic_rb}'h{mic_init:X} : mic_r;", mic_rb - 1);
    o!("wire [{}:0] e_pec_r = idle ? {pec_rb}'h{pec_init:X} : pec_r;", pec_rb - 1);

    o!("wire take = ~reset & ~in_drop & ~idle_bad & adv & s_tvalid & (idle | ((phase == BODY) & (h <= 8'd{w})));");
    o!("wire [7:0] c_in = take ? (s_tlast ? k_in : 8'd{w}) : 8'd0;");
    s.push_str(&step_logic(&m.mic_net, "mc", "e_mic_r", "s_tdata", "keep_in"));
    o!("wire mic_add = take & s_tlast & e_mic;");
    o!("wire [7:0] c = c_in + (mic_add ? 8'd{MIC_LEN} : 8'd0);");
    // Items: {win, this beat & keep, MIC}; the window above h is zero.
    let masked: Vec<String> = (0..w).rev().map(|i| format!("(keep_in[{i}] ? s_tdata[{}:{}] : 8'h0)", 8 * i + 7, 8 * i)).collect();
    o!("wire [{}:0] beat_masked = {{{}}};", db - 1, masked.join(", "));
    o!("wire [{}:0] mic_w = {{{}'h0, mc_fin}};", 8 * ib - 1, 8 * ib - 32);
    o!("wire [{}:0] beat_w = {{{}'h0, beat_masked}};", 8 * ib - 1, 8 * ib - db);
    o!("wire [{}:0] cur = take ? (beat_w | (mic_add ? (mic_w << {{k_in[{}:0], 3'b000}}) : {}'h0)) : {}'h0;", 8 * ib - 1, pb - 1, 8 * ib, 8 * ib);
    o!("// A beat is only taken with h <= {w}: the low bits of h are the whole shift then.");
    o!("wire [{}:0] items = win | (cur << {{h[{}:0], 3'b000}});", 8 * ib - 1, pb - 1);
    o!("wire ending = (phase == TAIL) | (take & s_tlast);");

    // Frame assembly.
    o!("wire [3:0] hdr_len = e_smbus ? 4'd{hdr_all} : 4'd{HEADER_LEN};");
    o!("wire [3:0] hdr_rem = hdr_len - e_hpos;");
    o!("wire [7:0] nh = (hdr_rem > 4'd{w}) ? 8'd{w} : {{4'd0, hdr_rem}};", w = w.min(15));
    o!("wire [7:0] room = 8'd{w} - nh;");
    o!("wire [7:0] p = (e_pkt_left < room) ? e_pkt_left : room;");
    o!("wire pkt_end = e_pkt_left <= room;");
    o!("wire [7:0] np = nh + p;");
    o!("wire pec_here = e_smbus & pkt_end & (np < 8'd{w});");
    o!("wire frame_end = e_smbus ? pec_here : pkt_end;");
    o!("wire [7:0] used = np + {{7'd0, pec_here}};");
    o!("wire enough = ({{1'b0, h}} + {{1'b0, c}} >= {{1'b0, p}}) | ending;");
    o!("wire active = ~idle | take;");
    o!("wire emit = ~reset & ~in_drop & ~idle_bad & adv & active & enough;");

    // Header octets, SMBus prefix first.
    o!("wire [7:0] flags = {{e_som, e_eom, e_seq, e_to, e_tag}};");
    o!("wire [7:0] count = e_pkt_left + 8'd{};", 1 + HEADER_LEN);
    o!(
        "wire [63:0] hdr_bytes = e_smbus ? {{flags, e_src, e_dst, 8'h{HEADER_VERSION:02X}, e_sa_src, 1'b1, count, 8'h{COMMAND_CODE:02X}, e_sa_dst, 1'b0}}"
    );
    o!("                             : {{32'h0, flags, e_src, e_dst, 8'h{HEADER_VERSION:02X}}};");
    o!("wire [63:0] hdr_sh = hdr_bytes >> {{e_hpos, 3'b000}};");
    if db < 64 {
        o!("wire [{}:0] unused_hdr_sh = hdr_sh[63:{db}];", 63 - db);
    }
    o!("wire [{}:0] pay_sh = items[{}:0] << {{nh[{}:0], 3'b000}};", db - 1, db - 1, pb - 1);
    o!("reg [{}:0] lanes;", db - 1);
    o!("always @(*) begin");
    for j in 0..w {
        let hdr = if j < 8 { format!("hdr_sh[{}:{}]", 8 * j + 7, 8 * j) } else { "8'h0".into() };
        o!(
            "   lanes[{}:{}] = (8'd{j} < nh) ? {hdr} : ((8'd{j} < np) ? pay_sh[{}:{}] : 8'h0);",
            8 * j + 7,
            8 * j,
            8 * j + 7,
            8 * j
        );
    }
    o!("end");
    let pk: Vec<String> = (0..w).rev().map(|j| format!("(np > 8'd{j})")).collect();
    o!("wire [{}:0] pec_keep = {{{}}};", w - 1, pk.join(", "));
    s.push_str(&step_logic(&m.pec_net, "pc", "e_pec_r", "lanes", "pec_keep"));
    o!("reg [{}:0] lanes_out;", db - 1);
    o!("always @(*) begin");
    o!("   lanes_out = lanes;");
    for j in 0..w {
        o!("   if (pec_here && np == 8'd{j}) lanes_out[{}:{}] = pc_fin;", 8 * j + 7, 8 * j);
    }
    o!("end");
    let ku: Vec<String> = (0..w).rev().map(|j| format!("(used > 8'd{j})")).collect();
    o!("wire [{}:0] keep_used = {{{}}};", w - 1, ku.join(", "));

    // What is left for the window, and the counters of the message.
    o!("wire [8:0] hc = {{1'b0, h}} + {{1'b0, c}};");
    o!("wire [7:0] left = (hc >= {{1'b0, p}}) ? hc[7:0] - p : 8'd0;");
    o!("wire [{}:0] rest_all = items >> {{p[{}:0], 3'b000}};", 8 * ib - 1, pb - 1);
    let wn: Vec<String> =
        (0..hmax).rev().map(|b| format!("((8'd{b} < left) ? rest_all[{}:{}] : 8'h0)", 8 * b + 7, 8 * b)).collect();
    o!("wire [{}:0] win_next = {{{}}};", 8 * hmax - 1, wn.join(", "));
    o!("wire [16:0] c_in17 = {{9'd0, c_in}};");
    o!("wire [16:0] in_left_n = (e_in_left > c_in17) ? e_in_left - c_in17 : 17'd0;");
    o!("wire len_err_last = take & s_tlast & (e_in_left != c_in17);");
    o!("wire [16:0] msg_left_n = e_msg_left - {{9'd0, p}};");
    o!("wire last_msg = frame_end & (msg_left_n == 17'd0);");
    o!("wire [16:0] mtu17 = {{9'd0, e_mtu}};");
    o!("wire [7:0] next_pkt = (msg_left_n < mtu17) ? msg_left_n[7:0] : e_mtu;");
    o!("wire len_err = len_err_last | (last_msg & ~ending);");

    o!("always @(*) s_tready = ~reset & (in_drop | idle_bad | take);");
    o!("always @(posedge clock) begin");
    o!("   if (reset) begin");
    o!("      phase <= IDLE; h <= 8'd0; win <= {}'h0; in_left <= 17'h0; msg_left <= 17'h0; pkt_left <= 8'h0; hpos <= 4'h0;", 8 * hmax);
    o!("      som <= 1'b0; eom <= 1'b0; seq <= 2'd0; c_src <= 8'h0; c_dst <= 8'h0; c_tag <= 3'h0; c_to <= 1'b0; c_mtu <= 8'h0;");
    o!("      c_mic <= 1'b0; c_smbus <= 1'b0; c_sa_src <= 7'h0; c_sa_dst <= 7'h0;");
    o!("      mic_r <= {mic_rb}'h{mic_init:X}; pec_r <= {pec_rb}'h{pec_init:X};");
    o!("      m_tdata <= {db}'h0; m_tkeep <= {w}'h0; m_tvalid <= 1'b0; m_tlast <= 1'b0;");
    o!("      packets <= 32'h0; messages <= 32'h0; dropped <= 32'h0; len_errors <= 32'h0;");
    o!("   end else begin");
    o!("      if (adv) m_tvalid <= 1'b0;");
    o!("      if (in_drop) begin");
    o!("         if (s_tvalid & s_tlast) phase <= IDLE;");
    o!("      end else if (idle_bad) begin");
    o!("         dropped <= dropped + 32'h1;");
    o!("         if (~s_tlast) phase <= DROP;");
    o!("      end else if (emit) begin");
    o!("         m_tdata <= lanes_out;");
    o!("         m_tkeep <= keep_used;");
    o!("         m_tvalid <= 1'b1;");
    o!("         m_tlast <= frame_end;");
    o!("         h <= left;");
    o!("         win <= win_next;");
    o!("         pec_r <= frame_end ? {pec_rb}'h{pec_init:X} : pc_nxt;");
    o!("         c_src <= e_src; c_dst <= e_dst; c_tag <= e_tag; c_to <= e_to; c_mtu <= e_mtu;");
    o!("         c_mic <= e_mic; c_smbus <= e_smbus; c_sa_src <= e_sa_src; c_sa_dst <= e_sa_dst;");
    o!("         som <= e_som; eom <= e_eom; seq <= e_seq;");
    o!("         mic_r <= take ? mc_nxt : e_mic_r;");
    o!("         in_left <= in_left_n;");
    o!("         msg_left <= msg_left_n;");
    o!("         hpos <= e_hpos + nh[3:0];");
    o!("         pkt_left <= e_pkt_left - p;");
    o!("         phase <= ending ? TAIL : BODY;");
    o!("         if (frame_end) begin");
    o!("            packets <= packets + 32'h1;");
    o!("            if (msg_left_n == 17'd0) begin");
    o!("               messages <= messages + 32'h1;");
    o!("               h <= 8'd0;");
    o!("               win <= {}'h0;", 8 * hmax);
    o!("               mic_r <= {mic_rb}'h{mic_init:X};");
    o!("               phase <= ending ? IDLE : DROP;");
    o!("            end else begin");
    o!("               pkt_left <= next_pkt;");
    o!("               eom <= msg_left_n <= mtu17;");
    o!("               som <= 1'b0;");
    o!("               seq <= e_seq + 2'd1;");
    o!("               hpos <= 4'd0;");
    o!("            end");
    o!("         end");
    o!("         if (len_err) len_errors <= len_errors + 32'h1;");
    o!("      end");
    o!("   end");
    o!("end");
    s
}
