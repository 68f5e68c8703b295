//! Verilog text of the MCTP RX depacketizer body, generated for one width. It mirrors
//! [`super::model::MctpRxModel::next_state`] statement by statement; the names below are the
//! model's (`e_*` are the model's "this cycle" values: the decision in the beat holding the
//! flags octet, the registers otherwise; `j_*` are the end cycle's judgement). The MIC and PEC
//! steps come from the CRC engine's generator (`crc::verilog::step_logic`). The memory is
//! written and read in a block of its own (one write port, one registered read port with
//! enable) so synthesis maps it to block RAM.

use super::model::{MctpRxModel, DESC_DEPTH, HW_MAX_LEN, MAX_PAYLOAD, POS_MAX};
use crate::crc::verilog::step_logic;
use offload_driver::mctp::header::{EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TO_BIT};
use offload_driver::mctp::smbus::COMMAND_CODE;
use offload_driver::mctp::{BASELINE_MTU, HEADER_LEN};
use offload_driver::nvme_mi::MIC_LEN;
use std::fmt::Write;

fn log2(x: u32) -> usize {
    assert!(x.is_power_of_two());
    x.trailing_zeros() as usize
}

pub fn body(m: &MctpRxModel) -> String {
    // The flags octet is read as {SOM, EOM, seq[1:0], TO, tag[2:0]}.
    assert_eq!(
        (SOM_BIT, EOM_BIT, SEQ_SHIFT, TO_BIT),
        (7, 6, 4, 3),
        "MCTP flag layout changed"
    );
    let w = m.w;
    let db = 8 * w;
    let rb = log2(m.rw);
    let ab = rb + 1;
    let sb = log2(m.sw).max(1);
    let mb = rb + 1;
    let memd = (m.rw + m.sw) as usize;
    let mic_init = m.mic_net.init_r;
    let mic_rb = 8 * m.mic_net.reg_bytes;
    let pec_init = m.pec_net.init_r;
    let pec_rb = 8 * m.pec_net.reg_bytes;
    let ones = format!("{w}'h{:X}", (1u32 << w) - 1);
    let dd = DESC_DEPTH;
    let dh = log2(dd as u32);
    // Descriptor fields, low to high: slot, start, len, next, src, dst, tag, to.
    let f_slot = 0;
    let f_start = 1;
    let f_len = f_start + ab;
    let f_next = f_len + 13;
    let f_src = f_next + ab;
    let f_dst = f_src + 8;
    let f_tag = f_dst + 8;
    let f_to = f_tag + 3;
    let dqw = f_to + 1;
    let mut s = String::new();
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }

    o!("// MCTP RX depacketizer (DSP0236 reassembly, one context; DSP0237 SMBus binding; NVMe-MI MIC), {w} octet(s) per beat.");
    o!("// Mirrors offload_hdl::mctp_rx::model::MctpRxModel::next_state; names are the model's.");
    o!("localparam T_NONE = 2'd0, T_RING = 2'd1, T_SLOT = 2'd2;");
    o!("reg [{}:0] mem [0:{}];", db - 1, memd - 1);
    o!("reg in_frame;");
    o!("reg endc;");
    o!("reg [15:0] pos;");
    o!("reg [15:0] flen;");
    o!("reg [63:0] hdr;");
    o!("reg [{}:0] pec_r;", pec_rb - 1);
    o!("reg pec_ok;");
    o!("reg [1:0] tgt;");
    o!("reg [{}:0] wa;", ab - 1);
    o!("reg [7:0] wf;");
    o!("reg [{}:0] win;", db - 1);
    o!("reg [{}:0] mic_w;", mic_rb - 1);
    o!("reg [7:0] first_w;");
    o!("reg [15:0] pidx;");
    o!("reg [{}:0] sa;", ab - 1);
    o!("reg ctx_open;");
    o!("reg [7:0] ctx_src;");
    o!("reg [7:0] ctx_dst;");
    o!("reg [2:0] ctx_tag;");
    o!("reg ctx_to;");
    o!("reg [1:0] last_seq;");
    o!("reg [15:0] unit;");
    o!("reg [15:0] clen;");
    o!("reg [{}:0] c_wa;", ab - 1);
    o!("reg [7:0] c_wf;");
    o!("reg [{}:0] c_win;", db - 1);
    o!("reg [{}:0] mic_c;", mic_rb - 1);
    o!("reg [7:0] c_first;");
    o!("reg [{}:0] ms;", ab - 1);
    o!("reg [{}:0] dq [0:{}];", dqw - 1, dd - 1);
    o!("reg [{}:0] dhead;", dh - 1);
    o!("reg [{}:0] dcount;", dh);
    o!("reg slot_busy;");
    o!("reg rd_active;");
    o!("reg [{}:0] rd;", dqw - 1);
    o!("reg [{}:0] rp;", ab - 1);
    o!("integer q;");
    o!("initial begin");
    o!("   in_frame = 1'b0; endc = 1'b0; pos = 16'h0; flen = 16'h0; hdr = 64'h0; pec_r = {pec_rb}'h{pec_init:X}; pec_ok = 1'b0;");
    o!("   tgt = T_NONE; wa = {ab}'h0; wf = 8'h0; win = {db}'h0; mic_w = {mic_rb}'h{mic_init:X}; first_w = 8'h0; pidx = 16'h0; sa = {ab}'h0;");
    o!("   ctx_open = 1'b0; ctx_src = 8'h0; ctx_dst = 8'h0; ctx_tag = 3'h0; ctx_to = 1'b0; last_seq = 2'h0; unit = 16'h0; clen = 16'h0;");
    o!("   c_wa = {ab}'h0; c_wf = 8'h0; c_win = {db}'h0; mic_c = {mic_rb}'h{mic_init:X}; c_first = 8'h0; ms = {ab}'h0;");
    o!("   for (q = 0; q < {dd}; q = q + 1) dq[q] = {dqw}'h0;");
    o!("   dhead = {dh}'h0; dcount = {}'h0; slot_busy = 1'b0; rd_active = 1'b0; rd = {dqw}'h0; rp = {ab}'h0;", dh + 1);
    o!("   m_tdata = {db}'h0; m_tkeep = {w}'h0; m_tvalid = 1'b0; m_tlast = 1'b0;");
    o!("   m_src_eid = 8'h0; m_dst_eid = 8'h0; m_tag = 3'h0; m_to = 1'b0;");
    let counters = super::COUNTERS;
    o!(
        "   {}",
        counters
            .iter()
            .map(|c| format!("{c} = 32'h0;"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    o!("end");

    // ---- Reader ----
    o!("wire adv = ~m_tvalid | m_tready;");
    o!("wire have = dcount != {}'h0;", dh + 1);
    o!("wire [{}:0] dq_head = dq[dhead];", dqw - 1);
    o!("wire [{}:0] e_rd = rd_active ? rd : dq_head;", dqw - 1);
    o!("wire e_slot = e_rd[{f_slot}];");
    o!(
        "wire [{}:0] e_start = e_rd[{}:{f_start}];",
        ab - 1,
        f_start + ab - 1
    );
    o!("wire [12:0] e_len = e_rd[{}:{f_len}];", f_len + 12);
    o!(
        "wire [{}:0] e_next = e_rd[{}:{f_next}];",
        ab - 1,
        f_next + ab - 1
    );
    o!("wire [7:0] e_src = e_rd[{}:{f_src}];", f_src + 7);
    o!("wire [7:0] e_dst = e_rd[{}:{f_dst}];", f_dst + 7);
    o!("wire [2:0] e_tag = e_rd[{}:{f_tag}];", f_tag + 2);
    o!("wire e_to = e_rd[{f_to}];");
    o!("wire e_ractive = rd_active | have;");
    o!("wire pop = ~reset & adv & ~rd_active & have;");
    o!("wire rd_en = ~reset & adv & e_ractive;");
    o!("wire rd_last = e_len <= 13'd{w};");
    let rk: Vec<String> = (0..w).rev().map(|j| format!("(e_len > 13'd{j})")).collect();
    o!("wire [{}:0] rd_keep = {{{}}};", w - 1, rk.join(", "));
    o!(
        "wire [{}:0] rd_idx = e_slot ? {{1'b1, {}'h0, e_start[{}:0]}} : {{1'b0, e_start[{}:0]}};",
        mb - 1,
        rb - sb,
        sb - 1,
        rb - 1
    );
    o!("wire [{}:0] e_start1 = e_start + {ab}'d1;", ab - 1);
    o!("wire [12:0] e_len_w = e_len - 13'd{w};");
    o!(
        "wire [{}:0] rd_n = {{e_rd[{}:{f_next}], e_len_w, e_start1, e_slot}};",
        dqw - 1,
        dqw - 1
    );

    // ---- End cycle: judgement ----
    let hb = |i: usize| format!("hdr[{}:{}]", 8 * i + 7, 8 * i);
    o!("wire [7:0] h0 = {};", hb(0));
    o!("wire [7:0] h1 = {};", hb(1));
    o!("wire [7:0] h2 = {};", hb(2));
    o!("wire [7:0] h3 = {};", hb(3));
    o!("wire [7:0] mh0 = cfg_smbus ? {} : h0;", hb(4));
    o!("wire [7:0] mh1 = cfg_smbus ? {} : h1;", hb(5));
    o!("wire [7:0] mh2 = cfg_smbus ? {} : h2;", hb(6));
    o!("wire [7:0] mh3 = cfg_smbus ? {} : h3;", hb(7));
    o!("wire [15:0] pkt_len = cfg_smbus ? flen - 16'd5 : flen;");
    o!("wire [15:0] maxl = (cfg_max_len > 13'd{HW_MAX_LEN}) ? 16'd{HW_MAX_LEN} : {{3'h0, cfg_max_len}};");
    o!(
        "wire v_oversize = ~cfg_smbus & (flen > 16'd{});",
        HEADER_LEN + MAX_PAYLOAD
    );
    o!("wire v_smb1 = cfg_smbus & ((flen < 16'd5) | (flen - 16'd4 != {{8'h0, h2}}));");
    o!("wire v_pec = cfg_smbus & ~pec_ok;");
    o!("wire v_smb2 = cfg_smbus & ((h1 != 8'h{COMMAND_CODE:02X}) | h0[0] | ~h3[0]);");
    o!("wire v_malf = (pkt_len <= 16'd{HEADER_LEN}) | (mh0 != 8'h{HEADER_VERSION:02X});");
    o!("wire ok_bind = ~v_oversize & ~v_smb1 & ~v_pec & ~v_smb2 & ~v_malf;");
    o!("wire [15:0] plen = pkt_len - 16'd{HEADER_LEN};");
    o!("wire j_som = mh3[7];");
    o!("wire j_eom = mh3[6];");
    o!("wire [1:0] j_seq = mh3[5:4];");
    o!("wire j_match = ctx_open & (mh1 == ctx_dst) & (mh2 == ctx_src) & (mh3[2:0] == ctx_tag) & (mh3[3] == ctx_to);");
    o!("wire som_unit_bad = cfg_strict & ~j_eom & (plen < 16'd{BASELINE_MTU});");
    o!("wire som_too_long = plen > maxl;");
    o!("wire [1:0] seq_exp = last_seq + 2'd1;");
    o!("wire cont_unit_bad = cfg_strict & ((~j_eom & (plen != unit)) | (j_eom & (plen > unit)));");
    o!("wire [15:0] cont_len = clen + plen;");
    o!("wire cont_ok = j_match & (j_seq == seq_exp) & ~cont_unit_bad & ~(cont_len > maxl);");
    o!("wire j_deliver = ok_bind & (j_som ? (~som_unit_bad & ~som_too_long & j_eom) : (cont_ok & j_eom));");
    o!("wire [15:0] j_len = j_som ? plen : cont_len;");
    let wk: Vec<String> = (0..w).rev().map(|j| format!("(wf > 8'd{j})")).collect();
    o!("wire [{}:0] wf_keep = {{{}}};", w - 1, wk.join(", "));
    s.push_str(&step_logic(&m.mic_net, "mj", "mic_w", "win", "wf_keep"));
    o!(
        "wire mic_bad = cfg_mic & (~first_w[7] | (j_len <= 16'd{MIC_LEN}) | (mj_fin != 32'h{:08X}));",
        m.residue
    );
    o!("wire publish = endc & j_deliver & ~mic_bad;");
    o!(
        "wire [{}:0] j_next = wa + {{{}'h0, wf != 8'h0}};",
        ab - 1,
        ab - 1
    );
    o!(
        "wire [{}:0] j_start = (tgt == T_SLOT) ? {ab}'h0 : (j_som ? sa : ms);",
        ab - 1
    );
    o!("wire [15:0] j_olen = j_len - (cfg_mic ? 16'd{MIC_LEN} : 16'd0);");
    o!(
        "wire [{}:0] j_desc = {{mh3[3], mh3[2:0], mh1, mh2, j_next, j_olen[12:0], j_start, tgt == T_SLOT}};",
        dqw - 1
    );
    o!("wire [{}:0] dtail = dhead + dcount[{}:0];", dh - 1, dh - 1);

    // ---- Ingest: one beat ----
    o!("wire [{}:0] keep_in = s_tlast ? s_tkeep : {ones};", w - 1);
    o!("reg [7:0] k;");
    o!("always @(*) begin");
    o!("   k = 8'd0;");
    for i in 0..w {
        o!("   if (keep_in[{i}]) k = 8'd{};", i + 1);
    }
    o!("end");
    o!("reg [63:0] e_hdr;");
    o!("always @(*) begin");
    o!("   e_hdr = hdr;");
    for i in 0..8usize {
        for j in 0..w.min(i + 1) {
            o!(
                "   if (pos == 16'd{}) e_hdr[{}:{}] = s_tdata[{}:{}];",
                i - j,
                8 * i + 7,
                8 * i,
                8 * j + 7,
                8 * j
            );
        }
    }
    o!("end");
    let eb = |i: usize| format!("e_hdr[{}:{}]", 8 * i + 7, 8 * i);
    o!("wire [7:0] em1 = cfg_smbus ? {} : {};", eb(5), eb(1));
    o!("wire [7:0] em2 = cfg_smbus ? {} : {};", eb(6), eb(2));
    o!("wire [7:0] em3 = cfg_smbus ? {} : {};", eb(7), eb(3));
    o!("wire [15:0] fl = cfg_smbus ? 16'd7 : 16'd3;");
    o!("wire flags_here = (pos <= fl) & (pos + 16'd{w} > fl);");
    o!("wire d_som = em3[7];");
    o!("wire d_eom = em3[6];");
    o!("wire d_match = ctx_open & (em1 == ctx_dst) & (em2 == ctx_src) & (em3[2:0] == ctx_tag) & (em3[3] == ctx_to);");
    o!("wire d_slot = d_som & ctx_open & ~d_match & d_eom;");
    o!("wire d_ring_som = d_som & ~(ctx_open & ~d_match);");
    o!("wire d_ring_cont = ~d_som & d_match;");
    o!(
        "wire [{}:0] c_end = c_wa + {{{}'h0, c_wf != 8'h0}};",
        ab - 1,
        ab - 1
    );
    o!("wire [1:0] e_tgt = ~flags_here ? tgt : (d_slot ? T_SLOT : ((d_ring_som | d_ring_cont) ? T_RING : T_NONE));");
    o!(
        "wire [{}:0] e_wa = ~flags_here ? wa : (d_slot ? {ab}'h0 : (d_ring_som ? (ctx_open ? c_end : ms) : (d_ring_cont ? c_wa : wa)));",
        ab - 1
    );
    o!("wire fresh = flags_here & (d_slot | d_ring_som);");
    o!("wire cont = flags_here & d_ring_cont;");
    o!("wire [7:0] e_wf = fresh ? 8'h0 : (cont ? c_wf : wf);");
    o!(
        "wire [{}:0] e_win = fresh ? {db}'h0 : (cont ? c_win : win);",
        db - 1
    );
    o!(
        "wire [{}:0] e_mic = fresh ? {mic_rb}'h{mic_init:X} : (cont ? mic_c : mic_w);",
        mic_rb - 1
    );
    o!("wire [7:0] e_first = fresh ? 8'h0 : (cont ? c_first : first_w);");
    o!("wire in_first = ~in_frame;");
    o!("wire [{}:0] used = e_wa - rp;", ab - 1);
    o!(
        "wire ring_ok = (e_tgt != T_RING) | (used <= {ab}'d{});",
        m.rw - 2
    );
    o!("wire slot_ok = ~(flags_here & (e_tgt == T_SLOT) & slot_busy);");
    o!("wire start_ok = ~in_first | (dcount < {}'d{dd});", dh + 1);
    o!("wire rdy = ~reset & ~endc & start_ok & ring_ok & slot_ok;");
    o!("wire take = s_tvalid & rdy;");
    o!("always @(*) s_tready = rdy;");

    // Payload lanes [a, kk), clipped to the packet limit, shifted down to lane 0.
    o!(
        "wire [7:0] hp = cfg_smbus ? 8'd{} : 8'd{HEADER_LEN};",
        HEADER_LEN + 4
    );
    o!("wire [7:0] kk = s_tlast ? ((cfg_smbus & (k != 8'd0)) ? k - 8'd1 : (cfg_smbus ? 8'd0 : k)) : 8'd{w};");
    o!("wire [15:0] hp16 = {{8'h0, hp}};");
    o!("wire [15:0] a16 = (hp16 > pos) ? hp16 - pos : 16'd0;");
    o!("wire [7:0] a = (a16 > 16'd{w}) ? 8'd{w} : a16[7:0];");
    o!("wire [7:0] n = (kk > a) ? kk - a : 8'd0;");
    o!("wire [15:0] room = 16'd{MAX_PAYLOAD} - pidx;");
    o!("wire [7:0] n_eff = ({{8'h0, n}} < room) ? n : room[7:0];");
    o!("wire [{}:0] sh = s_tdata >> {{a, 3'b000}};", db - 1);
    let pm: Vec<String> = (0..w)
        .rev()
        .map(|j| format!("((8'd{j} < n_eff) ? sh[{}:{}] : 8'h0)", 8 * j + 7, 8 * j))
        .collect();
    o!("wire [{}:0] pay = {{{}}};", db - 1, pm.join(", "));
    let wm: Vec<String> = (0..w)
        .rev()
        .map(|j| format!("((8'd{j} < e_wf) ? e_win[{}:{}] : 8'h0)", 8 * j + 7, 8 * j))
        .collect();
    o!("wire [{}:0] win_m = {{{}}};", db - 1, wm.join(", "));
    o!(
        "wire [{}:0] comb = {{{db}'h0, win_m}} | ({{{db}'h0, pay}} << {{e_wf, 3'b000}});",
        2 * db - 1
    );
    o!("wire [7:0] total = e_wf + n_eff;");
    o!("wire full = total >= 8'd{w};");
    o!("wire [{}:0] all_keep = {ones};", w - 1);
    s.push_str(&step_logic(
        &m.mic_net,
        "mw",
        "e_mic",
        &format!("comb[{}:0]", db - 1),
        "all_keep",
    ));
    o!(
        "wire [{}:0] pec_keep = s_tlast ? {{{}}} : {ones};",
        w - 1,
        (0..w)
            .rev()
            .map(|j| format!("(k > 8'd{})", j + 1))
            .collect::<Vec<_>>()
            .join(", ")
    );
    s.push_str(&step_logic(
        &m.pec_net, "pc", "pec_r", "s_tdata", "pec_keep",
    ));
    o!("reg [7:0] pec_lane;");
    o!("always @(*) begin");
    o!("   pec_lane = 8'h0;");
    for j in 0..w {
        o!(
            "   if (k == 8'd{}) pec_lane = s_tdata[{}:{}];",
            j + 1,
            8 * j + 7,
            8 * j
        );
    }
    o!("end");
    o!("wire [16:0] pos_sum = {{1'b0, pos}} + {{9'h0, (s_tlast ? k : 8'd{w})}};");
    o!("wire [15:0] pos_n = pos_sum > 17'd{POS_MAX} ? 16'd{POS_MAX} : pos_sum[15:0];");
    o!("wire [{}:0] e_wa1 = e_wa + {ab}'d1;", ab - 1);

    // ---- Memory: one write port, one registered read port ----
    o!("wire beat_we = take & (e_tgt != T_NONE) & full;");
    o!("wire end_we = endc & (tgt != T_NONE) & (wf != 8'h0);");
    o!("wire [{}:0] w_addr = beat_we ? e_wa : wa;", ab - 1);
    o!("wire w_slot = beat_we ? (e_tgt == T_SLOT) : (tgt == T_SLOT);");
    o!(
        "wire [{}:0] w_idx = w_slot ? {{1'b1, {}'h0, w_addr[{}:0]}} : {{1'b0, w_addr[{}:0]}};",
        mb - 1,
        rb - sb,
        sb - 1,
        rb - 1
    );
    o!(
        "wire [{}:0] w_data = beat_we ? comb[{}:0] : win;",
        db - 1,
        db - 1
    );
    o!("always @(posedge clock) begin");
    o!("   if (beat_we | end_we) mem[w_idx] <= w_data;");
    o!("   if (rd_en) m_tdata <= mem[rd_idx];");
    o!("end");

    // ---- Registers ----
    o!("always @(posedge clock) begin");
    o!("   if (reset) begin");
    o!("      in_frame <= 1'b0; endc <= 1'b0; pos <= 16'h0; flen <= 16'h0; hdr <= 64'h0; pec_r <= {pec_rb}'h{pec_init:X}; pec_ok <= 1'b0;");
    o!("      tgt <= T_NONE; wa <= {ab}'h0; wf <= 8'h0; win <= {db}'h0; mic_w <= {mic_rb}'h{mic_init:X}; first_w <= 8'h0; pidx <= 16'h0; sa <= {ab}'h0;");
    o!("      ctx_open <= 1'b0; ctx_src <= 8'h0; ctx_dst <= 8'h0; ctx_tag <= 3'h0; ctx_to <= 1'b0; last_seq <= 2'h0; unit <= 16'h0; clen <= 16'h0;");
    o!("      c_wa <= {ab}'h0; c_wf <= 8'h0; c_win <= {db}'h0; mic_c <= {mic_rb}'h{mic_init:X}; c_first <= 8'h0; ms <= {ab}'h0;");
    o!("      dhead <= {dh}'h0; dcount <= {}'h0; slot_busy <= 1'b0; rd_active <= 1'b0; rd <= {dqw}'h0; rp <= {ab}'h0;", dh + 1);
    o!("      m_tkeep <= {w}'h0; m_tvalid <= 1'b0; m_tlast <= 1'b0;");
    o!("      m_src_eid <= 8'h0; m_dst_eid <= 8'h0; m_tag <= 3'h0; m_to <= 1'b0;");
    o!(
        "      {}",
        counters
            .iter()
            .map(|c| format!("{c} <= 32'h0;"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    o!("   end else begin");
    // Reader.
    o!("      if (adv) m_tvalid <= 1'b0;");
    o!("      if (pop) dhead <= dhead + {dh}'d1;");
    o!("      dcount <= dcount + {{{dh}'h0, publish}} - {{{dh}'h0, pop}};");
    o!("      if (rd_en) begin");
    o!("         m_tkeep <= rd_keep; m_tlast <= rd_last; m_tvalid <= 1'b1;");
    o!("         m_src_eid <= e_src; m_dst_eid <= e_dst; m_tag <= e_tag; m_to <= e_to;");
    o!("         rd <= rd_n;");
    o!("         rd_active <= ~rd_last;");
    o!("         if (~e_slot) rp <= rd_last ? e_next : e_start1;");
    o!("         else if (rd_last) slot_busy <= 1'b0;");
    o!("      end");
    // End cycle.
    o!("      if (endc) begin");
    o!("         endc <= 1'b0; in_frame <= 1'b0; pos <= 16'h0; hdr <= 64'h0; pec_r <= {pec_rb}'h{pec_init:X};");
    o!("         tgt <= T_NONE; wf <= 8'h0; win <= {db}'h0; pidx <= 16'h0;");
    o!("         if (v_oversize) oversize <= oversize + 32'h1;");
    o!("         else if (v_smb1) bad_smbus <= bad_smbus + 32'h1;");
    o!("         else if (v_pec) bad_pec <= bad_pec + 32'h1;");
    o!("         else if (v_smb2) bad_smbus <= bad_smbus + 32'h1;");
    o!("         else if (v_malf) malformed <= malformed + 32'h1;");
    o!("         else if (j_som) begin");
    o!("            if (j_match) begin restarted <= restarted + 32'h1; ctx_open <= 1'b0; end");
    o!("            if (som_unit_bad) bad_unit_size <= bad_unit_size + 32'h1;");
    o!("            else if (som_too_long) too_long <= too_long + 32'h1;");
    o!("            else if (j_eom) begin end");
    o!("            else if (ctx_open & ~j_match) contexts_full <= contexts_full + 32'h1;");
    o!("            else begin");
    o!("               ctx_open <= 1'b1; ms <= sa; ctx_src <= mh2; ctx_dst <= mh1; ctx_tag <= mh3[2:0]; ctx_to <= mh3[3];");
    o!("               last_seq <= j_seq; unit <= plen; clen <= plen; c_wa <= wa; c_wf <= wf; c_win <= win; mic_c <= mic_w; c_first <= first_w;");
    o!("            end");
    o!("         end");
    o!("         else if (~j_match) no_context <= no_context + 32'h1;");
    o!("         else if (j_seq != seq_exp) begin bad_sequence <= bad_sequence + 32'h1; ctx_open <= 1'b0; end");
    o!("         else if (cont_unit_bad) begin bad_unit_size <= bad_unit_size + 32'h1; ctx_open <= 1'b0; end");
    o!("         else if (cont_len > maxl) begin too_long <= too_long + 32'h1; ctx_open <= 1'b0; end");
    o!("         else if (j_eom) ctx_open <= 1'b0;");
    o!("         else begin");
    o!("            last_seq <= j_seq; clen <= cont_len; c_wa <= wa; c_wf <= wf; c_win <= win; mic_c <= mic_w;");
    o!("         end");
    o!("         if (j_deliver) begin");
    o!("            if (mic_bad) mic_errors <= mic_errors + 32'h1;");
    o!("            else begin");
    o!("               messages <= messages + 32'h1;");
    o!("               dq[dtail] <= j_desc;");
    o!("               if (tgt == T_SLOT) slot_busy <= 1'b1;");
    o!("               else ms <= j_next;");
    o!("            end");
    o!("         end");
    o!("      end");
    // Ingest.
    o!("      if (take) begin");
    o!("         hdr <= e_hdr;");
    o!("         pos <= pos_n;");
    o!("         pec_r <= pc_nxt;");
    o!("         if (s_tlast) begin");
    o!("            pec_ok <= (k != 8'd0) & (pc_fin == pec_lane);");
    o!("            flen <= pos_n;");
    o!("            endc <= 1'b1;");
    o!("            in_frame <= 1'b0;");
    o!("         end else in_frame <= 1'b1;");
    o!("         tgt <= e_tgt;");
    o!("         if (flags_here) sa <= e_wa;");
    o!("         if (e_tgt != T_NONE) begin");
    o!("            if (full) begin");
    o!(
        "               wa <= e_wa1; win <= comb[{}:{db}]; wf <= total - 8'd{w}; mic_w <= mw_nxt;",
        2 * db - 1
    );
    o!("            end else begin");
    o!(
        "               wa <= e_wa; win <= comb[{}:0]; wf <= total; mic_w <= e_mic;",
        db - 1
    );
    o!("            end");
    o!("            first_w <= (d_som & (pidx == 16'h0) & (n_eff != 8'h0)) ? pay[7:0] : e_first;");
    o!("         end");
    o!("         pidx <= pidx + {{8'h0, n_eff}};");
    o!("      end");
    o!("   end");
    o!("end");
    o!("// Bits computed but not needed (Verilator's lint skips names containing `unused`).");
    o!(
        "wire [{}:0] unused_bits = {{j_olen[15:13], em3[5:4], mw_fin, w_addr[{rb}]}};",
        3 + 2 + 32 + 1 - 1
    );
    s
}
