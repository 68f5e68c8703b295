//! Verilog text of the MPA TX framer body, generated for one width. It mirrors
//! [`super::model::MpaTxModel::next_state`] statement by statement; the names below are the
//! model's. The CRC step comes from the CRC engine's generator (`crc::verilog::step_logic`).

use super::model::MpaTxModel;
use crate::crc::verilog::step_logic;
use std::fmt::Write;

/// Width in bits of a counter holding `0..=max`.
fn bits_for(max: usize) -> usize {
    (usize::BITS - max.leading_zeros()).max(1) as usize
}

pub fn body(m: &MpaTxModel) -> String {
    let w = m.w;
    let n = m.n;
    let hmax = n + 1; // held words at most
    // Item window: held words, then this beat's words. Input is taken only when h ≤ N, so
    // h + c ≤ 2N+1 items at most.
    let items = hmax + n;
    let db = 8 * w;
    let hb = bits_for(hmax);
    let lb = bits_for(n);
    // Counts and lane indices (all ≤ 2N+3 ≤ 35) and octet counts (≤ 64) in 8 bits.
    let init = m.net.init_r;
    let ones = format!("{w}'h{}", "F".repeat(w.div_ceil(4)));
    let mut s = String::new();
    macro_rules! o { ($($t:tt)*) => { writeln!(s, $($t)*).unwrap() } }

    o!("// MPA TX framer (RFC 5044 FPDUs with Markers and CRC-32C), {w} octets = {n} word lane(s) per beat.");
    o!("// Mirrors offload_hdl::mpa_tx::model::MpaTxModel::next_state; names are the model's.");
    o!("localparam IDLE = 2'd0, BODY = 2'd1, TAIL = 2'd2, DROP = 2'd3;");
    o!("// Input skid buffer: in_* is the beat the assembly sees, sk_* the one taken while it stalled.");
    o!("reg in_v; reg [{}:0] in_data; reg in_last; reg [15:0] in_len; reg [7:0] in_count;", db - 1);
    o!("reg sk_v; reg [{}:0] sk_data; reg sk_last; reg [15:0] sk_len; reg [7:0] sk_count;", db - 1);
    o!("reg [1:0] phase;");
    o!("reg [15:0] off;");
    o!("// (0 - off[8:2]) mod 128, kept in step with off: the next Marker lane without a subtractor.");
    o!("reg [6:0] mpos_q;");
    o!("// off - hdr_off (the model's registers): a Marker's FPDUPTR without a 16-bit subtract on the late path.");
    o!("reg [15:0] since_hdr;");
    o!("reg hdr_pending;");
    o!("reg [{}:0] held;", 32 * hmax - 1);
    o!("reg [{}:0] h;", hb - 1);
    o!("reg [15:0] carry;");
    o!("reg [31:0] crc_r;");
    o!("// Stage A -> B register: an assembled beat without its CRC word.");
    o!("reg a_valid;");
    o!("reg [{}:0] a_lanes;", db - 1);
    o!("reg [{}:0] a_keep;", w - 1);
    o!("reg a_crc_here;");
    o!("reg [7:0] a_crc_lane;");
    o!("initial begin");
    o!("   in_v = 1'b0; in_data = {db}'h0; in_last = 1'b0; in_len = 16'h0; in_count = 8'd0;");
    o!("   sk_v = 1'b0; sk_data = {db}'h0; sk_last = 1'b0; sk_len = 16'h0; sk_count = 8'd0;");
    o!("   mpos_q = 7'd0;");
    o!("   phase = IDLE; off = 16'h0; since_hdr = 16'h0; hdr_pending = 1'b0; held = {}'h0; h = {hb}'d0;", 32 * hmax);
    o!("   carry = 16'h0; crc_r = 32'h{init:08X};");
    o!("   a_valid = 1'b0; a_lanes = {db}'h0; a_keep = {w}'h0; a_crc_here = 1'b0; a_crc_lane = 8'd0;");
    o!("   m_tdata = {db}'h0; m_tkeep = {w}'h0; m_tvalid = 1'b0; m_tlast = 1'b0; fpdus = 32'h0; dropped = 32'h0;");
    o!("end");

    // Port side of the skid buffer: the beat masked by tkeep (the PAD comes out as zeros) and
    // its body word count, ⌈(2+k)/4⌉ on a last beat: word j ≥ 1 is present iff octet 4j-2 is
    // kept (tkeep is contiguous), so the count is a sum of N tkeep bits.
    o!("wire [{}:0] keep_in = s_tlast ? s_tkeep : {ones};", w - 1);
    let masked: Vec<String> = (0..w).rev().map(|i| format!("(keep_in[{i}] ? s_tdata[{}:{}] : 8'h0)", 8 * i + 7, 8 * i)).collect();
    o!("wire [{}:0] beat_masked = {{{}}};", db - 1, masked.join(", "));
    let terms: Vec<String> = (1..=n).map(|j| format!("{{7'd0, keep_in[{}]}}", 4 * j - 2)).collect();
    o!("wire [7:0] c_last = 8'd1 + {};", terms.join(" + "));
    o!("wire [7:0] p_count = s_tlast ? c_last : 8'd{n};");

    // Behind the buffer.
    o!("wire adv_b = ~m_tvalid | m_tready;");
    o!("wire adv = ~a_valid | adv_b;");
    o!("wire len_bad = (in_len == 16'h0) | (in_len > cfg_mulpdu);");
    o!("wire in_drop = phase == DROP;");
    o!("wire idle_bad = (phase == IDLE) & in_v & len_bad;");
    // Marker lane: ((512 - off mod 512) mod 512) / 4.
    o!("wire [7:0] mpos = {{1'b0, mpos_q}};");
    o!("// Offsets are 4-aligned: the low bits of cfg_offset are ignored.");
    o!("wire [1:0] unused_offset_low = cfg_offset[1:0];");
    // mpos < N with N a power of two: the high bits are zero (a NOR, not a comparator).
    let lg = n.trailing_zeros() as usize;
    o!("wire mk = cfg_markers & ~|mpos_q[6:{lg}];");
    o!("wire [7:0] h8 = {{{}'d0, h}};", 8 - hb);
    o!("wire take = ~reset & ~in_drop & ~idle_bad & adv & in_v & ((phase == IDLE) | ((phase == BODY) & (h8 + {{7'd0, mk}} <= 8'd{n})));");
    o!("wire first = phase == IDLE;");
    o!("wire hdr_pend = (first & take) | hdr_pending;");

    // Body words of this beat: {0, beat, carry}.
    o!("wire [15:0] carry_eff = first ? {{in_len[7:0], in_len[15:8]}} : carry;");
    o!("wire [{}:0] cur = {{16'h0, in_data, carry_eff}};", db + 31);
    // The lane counts are computed for both outcomes of `take` (whether this beat's input is
    // taken), which arrives late (it depends on m_tready), and chosen at the end.
    for (x, c, end) in [("t", "in_count".to_string(), "(phase == TAIL) | in_last"), ("n", "8'd0".to_string(), "phase == TAIL")] {
        o!("wire [7:0] n_body_{x} = h8 + {c};");
        o!("wire ending_{x} = {end};");
        o!("wire [7:0] crc_lane_{x} = n_body_{x} + {{7'd0, mk & (mpos <= n_body_{x})}};");
        o!("wire crc_here_{x} = ending_{x} & (crc_lane_{x} < 8'd{n});");
        o!("wire complete_{x} = ending_{x} | (n_body_{x} >= 8'd{n}) | (mk & (mpos < n_body_{x}) & (n_body_{x} == 8'd{}));", n - 1);
        o!("wire [7:0] used_{x} = crc_here_{x} ? crc_lane_{x} + 8'd1 : 8'd{n};");
        o!("wire [7:0] left_{x} = crc_here_{x} ? 8'd0 : n_body_{x} + {{7'd0, mk}} - 8'd{n};");
    }
    for (v, w8) in [("n_body", true), ("crc_lane", true), ("used", true), ("left", true), ("crc_here", false), ("complete", false)] {
        let decl = if w8 { "[7:0] " } else { "" };
        o!("wire {decl}{v} = take ? {v}_t : {v}_n;");
    }

    // The item window: item[i] = i < h ? held[i] : cur[i - h], as one left shift of this
    // beat's words past the held ones (held words at and above h are always zero).
    o!("wire [{}:0] cur_w = {{{}'h0, cur}};", 32 * items - 1, 32 * (items - n - 1));
    o!("wire [{}:0] held_w = {{{}'h0, held}};", 32 * items - 1, 32 * (items - hmax));
    o!("wire [{}:0] item = held_w | (cur_w << {{h, 5'b00000}});", 32 * items - 1);

    // Lane assembly.
    o!("wire ending = take ? ending_t : ending_n;");
    // A beat goes out when it ends the ULPDU (then it is full or holds the CRC) or its lanes
    // are full: N body words, or N-1 and a Marker with a word after it. Every beat but the
    // one with the CRC is full and uses its Marker lane, which keeps the counts below simple.

    o!("wire emit = adv & complete & ~in_drop & ~idle_bad & (~first | take);");
    // Header lane and Marker pointer (§4.3: 0 before the ULPDU_Length field it belongs to).
    o!("wire [{}:0] hdr_lane = (mk & (mpos == 8'd0)) ? {lb}'d1 : {lb}'d0;", lb - 1);
    o!("wire hdr_placed = hdr_pend & ({{{}'d0, hdr_lane}} < 8'd{n});", 8 - lb);
    // The pointer is off + 4·mpos - hdr_off: 4·mpos when the header is placed in this beat
    // (then in lane 0: a Marker in lane 0 comes before it and points 0), else since_hdr + 4·mpos.
    o!("wire before_header = hdr_pend & (mpos == 8'd0);");
    o!("wire [15:0] ptr_far = since_hdr + {{6'd0, mpos, 2'b00}};");
    o!("wire [15:0] ptr = before_header ? 16'h0 : (hdr_placed ? {{6'd0, mpos, 2'b00}} : ptr_far);");
    o!("wire [6:0] mpos_nx = mpos_q - used[6:0];");
    o!("wire [7:0] used_past_hdr = used - {{{}'d0, hdr_lane}};", 8 - lb);
    o!("reg [{}:0] lanes;", db - 1);
    o!("always @(*) begin");
    o!("   lanes = {db}'h0;");
    for l in 0..n {
        let here = format!("lanes[{}:{}]", 32 * l + 31, 32 * l);
        let after = if l >= 1 {
            format!(
                "else if (mk && mpos < 8'd{l}) {here} = (8'd{} < n_body) ? item[{}:{}] : 32'h0; ",
                l - 1,
                32 * (l - 1) + 31,
                32 * (l - 1)
            )
        } else {
            String::new()
        };
        o!(
            "   if (mk && mpos == 8'd{l}) {here} = {{ptr[7:0], ptr[15:8], 16'h0}}; {after}else {here} = (8'd{l} < n_body) ? item[{}:{}] : 32'h0;",
            32 * l + 31,
            32 * l
        );
    }
    o!("end");
    // Stage B: CRC over the lanes before the CRC lane (all lanes when it is not in this beat).
    o!("wire [7:0] covered = a_crc_here ? a_crc_lane : 8'd{n};");
    let cov: Vec<String> = (0..n).rev().map(|l| format!("{{4{{covered > 8'd{l}}}}}")).collect();
    o!("wire [{}:0] cov_keep = {{{}}};", w - 1, cov.join(", "));
    s.push_str(&step_logic(&m.net, "fc", "crc_r", "a_lanes", "cov_keep"));
    o!("wire [31:0] crc_word = cfg_crc ? fc_fin : 32'h0;");
    o!("reg [{}:0] lanes_out;", db - 1);
    o!("always @(*) begin");
    o!("   lanes_out = a_lanes;");
    for l in 0..n {
        o!("   if (a_crc_here && a_crc_lane == 8'd{l}) lanes_out[{}:{}] = crc_word;", 32 * l + 31, 32 * l);
    }
    o!("end");
    // Words left to hold: a full beat takes N - mk body words, so held_next[i] is
    // item[N - mk + i] — one of two fixed shifts — and a CRC beat leaves none.

    o!("wire [{}:0] rest_all = mk ? (item >> {}) : (item >> {});", 32 * items - 1, 32 * (n - 1), 32 * n);
    o!("wire [{}:0] rest = rest_all[{}:0];", 32 * hmax - 1, 32 * hmax - 1);
    o!("wire [{}:0] unused_rest = rest_all[{}:{}];", 32 * (items - hmax) - 1, 32 * items - 1, 32 * hmax);
    let hn: Vec<String> = (0..hmax)
        .rev()
        .map(|i| format!("((8'd{i} < left) ? rest[{}:{}] : 32'h0)", 32 * i + 31, 32 * i))
        .collect();
    o!("wire [{}:0] held_next = {{{}}};", 32 * hmax - 1, hn.join(", "));
    let ku: Vec<String> = (0..n).rev().map(|l| format!("{{4{{used > 8'd{l}}}}}")).collect();
    o!("wire [{}:0] keep_used = {{{}}};", w - 1, ku.join(", "));

    o!("wire pop = ~reset & ((in_drop & in_v) | idle_bad | take);");
    o!("always @(*) s_tready = ~reset & ~sk_v;");
    o!("always @(posedge clock) begin");
    o!("   if (reset) begin");
    o!("      in_v <= 1'b0; sk_v <= 1'b0;");
    o!("      mpos_q <= 7'd0 - cfg_offset[8:2];");
    o!("      phase <= IDLE; off <= {{cfg_offset[15:2], 2'b00}}; since_hdr <= {{cfg_offset[15:2], 2'b00}}; hdr_pending <= 1'b0;");
    o!("      held <= {}'h0; h <= {hb}'d0; carry <= 16'h0; crc_r <= 32'h{init:08X};", 32 * hmax);
    o!("      a_valid <= 1'b0; a_lanes <= {db}'h0; a_keep <= {w}'h0; a_crc_here <= 1'b0; a_crc_lane <= 8'd0;");
    o!("      m_tdata <= {db}'h0; m_tkeep <= {w}'h0; m_tvalid <= 1'b0; m_tlast <= 1'b0; fpdus <= 32'h0; dropped <= 32'h0;");
    o!("   end else begin");
    o!("      if (pop) begin");
    o!("         in_v <= sk_v; in_data <= sk_data; in_last <= sk_last; in_len <= sk_len; in_count <= sk_count;");
    o!("         sk_v <= 1'b0;");
    o!("      end");
    o!("      if (s_tvalid & s_tready) begin");
    o!("         if (~in_v | pop) begin");
    o!("            in_v <= 1'b1; in_data <= beat_masked; in_last <= s_tlast; in_len <= s_len; in_count <= p_count;");
    o!("         end else begin");
    o!("            sk_v <= 1'b1; sk_data <= beat_masked; sk_last <= s_tlast; sk_len <= s_len; sk_count <= p_count;");
    o!("         end");
    o!("      end");
    o!("      if (adv_b) begin");
    o!("         m_tvalid <= a_valid;");
    o!("         a_valid <= 1'b0;");
    o!("         if (a_valid) begin");
    o!("            m_tdata <= lanes_out;");
    o!("            m_tkeep <= a_keep;");
    o!("            m_tlast <= a_crc_here;");
    o!("            crc_r <= a_crc_here ? 32'h{init:08X} : fc_nxt;");
    o!("            if (a_crc_here) fpdus <= fpdus + 32'h1;");
    o!("         end");
    o!("      end");
    o!("      if (in_drop) begin");
    o!("         if (in_v & in_last) phase <= IDLE;");
    o!("      end else if (idle_bad) begin");
    o!("         dropped <= dropped + 32'h1;");
    o!("         if (~in_last) phase <= DROP;");
    o!("      end else begin");
    o!("         if (take) carry <= in_data[{}:{}];", db - 1, db - 16);
    o!("         if (emit) begin");
    o!("            a_lanes <= lanes;");
    o!("            a_valid <= 1'b1;");
    o!("            a_crc_here <= crc_here;");
    o!("            a_crc_lane <= crc_lane;");
    o!("            a_keep <= keep_used;");
    o!("            off <= off + {{6'd0, used, 2'b00}};");
    o!("            mpos_q <= mpos_nx;");
    o!("            since_hdr <= hdr_placed ? {{6'd0, used_past_hdr, 2'b00}} : since_hdr + {{6'd0, used, 2'b00}};");
    o!("            hdr_pending <= hdr_pend & ~hdr_placed;");
    o!("            held <= held_next;");
    o!("            h <= left[{}:0];", hb - 1);
    o!("            phase <= crc_here ? IDLE : (ending ? TAIL : BODY);");
    o!("         end");
    o!("      end");
    o!("   end");
    o!("end");
    s
}
