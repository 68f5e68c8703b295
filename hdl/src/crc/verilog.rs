//! Verilog text of one CRC step, emitted from a [`CrcNetwork`] as flat XOR expressions of
//! constant-masked bits (Yosys is slow on nested-loop CRC descriptions; flat XORs synthesise in
//! seconds): the body of the [`super::CrcStep`] leaf, and of the MCTP blocks' text until they
//! are rewritten.

use super::network::CrcNetwork;
use std::fmt::Write;

/// Hex digits of a bit vector (bit 0 = least significant).
pub(crate) fn hex(bits: &[bool]) -> String {
    bits.chunks(4)
        .rev()
        .map(|c| {
            let v = c.iter().enumerate().fold(0u32, |a, (i, &b)| a | ((b as u32) << i));
            char::from_digit(v, 16).unwrap().to_ascii_uppercase()
        })
        .collect()
}


/// One CRC step as combinational logic, for blocks that embed the CRC (the MPA framer): from
/// register `r` (consumption order), `W` data octets `data` and octet mask `keep` (contiguous
/// low octets), declares `{p}_nxt` (the register after the step, [`CrcNetwork::step`]) and
/// `{p}_fin` (the finished CRC of `{p}_nxt`, [`CrcNetwork::finish`]). Same scheme and XOR trees
/// as the engine; all names start with `p`.
pub fn step_logic(net: &CrcNetwork, p: &str, r: &str, data: &str, keep: &str) -> String {
    let w = net.bytes;
    let m = net.reg_bytes;
    let rb = 8 * m;
    let db = 8 * w;
    let sb = net.shift_bits();
    let mut s = String::new();
    writeln!(s, "// {}: one {}-octet step, partial beats through the same network.", net.params.name, w).unwrap();
    // Through a sized wire: a 1-bit port has no range to index.
    writeln!(s, "wire [{}:0] {p}_keep = {keep};", w - 1).unwrap();
    writeln!(s, "reg [{}:0] {p}_k;", sb - 1).unwrap();
    writeln!(s, "always @(*) begin").unwrap();
    writeln!(s, "   {p}_k = {sb}'d0;").unwrap();
    for i in 0..w {
        writeln!(s, "   if ({p}_keep[{i}]) {p}_k = {sb}'d{};", i + 1).unwrap();
    }
    writeln!(s, "end").unwrap();
    let ov = w.min(m);
    // Octets past k never reach the window, so `data` needs no masking.
    writeln!(s, "wire [{}:0] {p}_d = {data};", db - 1).unwrap();
    if db > 8 * ov {
        writeln!(s, "wire [{}:0] {p}_v = {p}_d ^ {{{}'h0, {r}[{}:0]}};", db - 1, db - 8 * ov, 8 * ov - 1).unwrap();
    } else {
        writeln!(s, "wire [{}:0] {p}_v = {p}_d ^ {r}[{}:0];", db - 1, 8 * ov - 1).unwrap();
    }
    writeln!(s, "reg [{}:0] {p}_win;", db - 1).unwrap();
    writeln!(s, "reg [{}:0] {p}_ovf;", rb - 1).unwrap();
    writeln!(s, "always @(*) begin").unwrap();
    writeln!(s, "   case ({p}_k)").unwrap();
    for k in 0..=w {
        let label = if k == w { "default".to_string() } else { format!("{sb}'d{k}") };
        let win = match k {
            0 => format!("{db}'h0"),
            k if k == w => format!("{p}_v"),
            k => format!("{{{p}_v[{}:0], {}'h0}}", 8 * k - 1, 8 * (w - k)),
        };
        let ovf = match k {
            0 => r.to_string(),
            k if k >= m => format!("{rb}'h0"),
            k => format!("{{{}'h0, {r}[{}:{}]}}", 8 * k, rb - 1, 8 * k),
        };
        writeln!(s, "      {label}: begin {p}_win = {win}; {p}_ovf = {ovf}; end").unwrap();
    }
    writeln!(s, "   endcase").unwrap();
    writeln!(s, "end").unwrap();
    s.push_str(&network_outputs(net, p));
    s
}

/// [`step_logic`] with the partial-beat window formed by a logarithmic byte shifter (two shift
/// bits per stage: one 4:1 mux per bit) on `W - k` instead of a `k`-way case: the structure the
/// stand-alone engine had, smaller in `synth_xilinx` (docs/PERFORMANCE.md). Same outputs.
pub fn step_logic_shifter(net: &CrcNetwork, p: &str, r: &str, data: &str, keep: &str) -> String {
    let w = net.bytes;
    if w == 1 {
        return step_logic(net, p, r, data, keep);
    }
    let m = net.reg_bytes;
    let rb = 8 * m;
    let db = 8 * w;
    let lb = w.trailing_zeros() as usize;
    let mut s = String::new();
    writeln!(s, "// {}: one {}-octet step; a partial beat's k octets right-aligned by a byte shifter.", net.params.name, w).unwrap();
    writeln!(s, "wire [{}:0] {p}_keep = {keep};", w - 1).unwrap();
    // Shift W - k (k >= 1): a priority chain, later lines win; k = 0 (a null beat) is `none`.
    writeln!(s, "wire {p}_none = ~|{p}_keep;").unwrap();
    writeln!(s, "reg [{}:0] {p}_s;", lb - 1).unwrap();
    writeln!(s, "always @(*) begin").unwrap();
    writeln!(s, "   {p}_s = {lb}'d{};", w - 1).unwrap();
    for i in 1..w {
        writeln!(s, "   if ({p}_keep[{i}]) {p}_s = {lb}'d{};", w - 1 - i).unwrap();
    }
    writeln!(s, "end").unwrap();
    let ov = w.min(m);
    if db > 8 * ov {
        writeln!(s, "wire [{}:0] {p}_v = {data} ^ {{{}'h0, {r}[{}:0]}};", db - 1, db - 8 * ov, 8 * ov - 1).unwrap();
    } else {
        writeln!(s, "wire [{}:0] {p}_v = {data} ^ {r}[{}:0];", db - 1, 8 * ov - 1).unwrap();
    }
    let mut cur = format!("{p}_v");
    let mut bit = 0;
    let mut stage = 0;
    while bit < lb {
        let nbits = (lb - bit).min(2);
        let unit = 1usize << bit;
        let sel = if nbits == 1 { format!("{p}_s[{bit}]") } else { format!("{p}_s[{}:{}]", bit + 1, bit) };
        let shifted = |t: usize| -> String {
            let by = 8 * t * unit;
            if by == 0 { cur.clone() } else { format!("{{{}[{}:0], {}'h0}}", cur, db - 1 - by, by) }
        };
        let expr = if nbits == 1 {
            format!("{sel} ? {} : {}", shifted(1), shifted(0))
        } else {
            format!("({sel} == 2'd0) ? {} : ({sel} == 2'd1) ? {} : ({sel} == 2'd2) ? {} : {}", shifted(0), shifted(1), shifted(2), shifted(3))
        };
        let name = format!("{p}_sh{stage}");
        writeln!(s, "wire [{}:0] {name} = {expr};", db - 1).unwrap();
        cur = name;
        bit += nbits;
        stage += 1;
    }
    writeln!(s, "wire [{}:0] {p}_win = {p}_none ? {db}'h0 : {cur};", db - 1).unwrap();
    // Register octets k..m-1 not consumed, moved down; all of it on a null beat.
    writeln!(s, "reg [{}:0] {p}_ovf;", rb - 1).unwrap();
    writeln!(s, "always @(*) begin").unwrap();
    writeln!(s, "   {p}_ovf = {rb}'h0;").unwrap();
    for k in 1..=w.min(m - 1) {
        writeln!(s, "   if ({p}_s == {lb}'d{}) {p}_ovf = {{{}'h0, {r}[{}:{}]}};", w - k, 8 * k, rb - 1, 8 * k).unwrap();
    }
    writeln!(s, "   if ({p}_none) {p}_ovf = {r};").unwrap();
    writeln!(s, "end").unwrap();
    s.push_str(&network_outputs(net, p));
    s
}

/// `{p}_nxt` (the network over `{p}_win`, XOR the overflow `{p}_ovf`, one flat parity per output
/// bit) and `{p}_fin` (bit permutation and xorout): the common end of both step forms.
fn network_outputs(net: &CrcNetwork, p: &str) -> String {
    let rb = 8 * net.reg_bytes;
    let db = 8 * net.bytes;
    let cb = net.params.width as usize;
    let mut s = String::new();
    writeln!(s, "wire [{}:0] {p}_nxt;", rb - 1).unwrap();
    for j in 0..rb {
        let mut mask = vec![false; db];
        for (i, c) in net.columns.iter().enumerate() {
            mask[i] = *c >> j & 1 != 0;
        }
        writeln!(s, "assign {p}_nxt[{j}] = ^({p}_win & {db}'h{}) ^ {p}_ovf[{j}];", hex(&mask)).unwrap();
    }
    let fin: Vec<String> = (0..cb).rev().map(|j| format!("{p}_nxt[{}]", net.out_perm[j])).collect();
    writeln!(s, "wire [{}:0] {p}_fin = {{{}}} ^ {cb}'h{:X};", cb - 1, fin.join(", "), net.params.xorout).unwrap();
    s
}
