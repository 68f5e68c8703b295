#!/bin/sh
# The open-flow figures of docs/PERFORMANCE.md for OffloadTop, reproduced:
#   Yosys synth_xilinx (LUT/FF counts) and, on an iCE40-HX8K, Yosys synth_ice40 + nextpnr-ice40
#   with the pins and clock target of constraints/ice40-hx8k-fmax.pcf.
# Usage: constraints/open-flow.sh [WIDTH=4] [OUTDIR=target/open-flow]
# Needs: yosys, nextpnr-ice40 (apt-get install yosys nextpnr-ice40 fpga-icestorm), cargo
# (or OFFLOAD=path/to/offload, an already built CLI).
set -eu
w=${1:-4}
out=${2:-target/open-flow}
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
yosys -q -l xilinx.log -p "read_verilog $top.v; synth_xilinx -flatten -top $top; stat" >/dev/null
echo "synth_xilinx $top:"
sed -n '/design hierarchy/,$p' xilinx.log | grep -E "LUT[1-6]|FD[RSCP]E|MUXF[78]|CARRY4" | awk '{s[$1]=$2} END {l=0; for (k in s) if (k ~ /^LUT/) l+=s[k]; f=0; for (k in s) if (k ~ /^FD/) f+=s[k]; print "  LUTs " l ", FFs " f}'
yosys -q -l ice40.log -p "read_verilog $top.v fmax_wrap.v; synth_ice40 -top fmax_wrap -json design.json" >/dev/null
nextpnr-ice40 --hx8k --package ct256 --json design.json --pcf "$here/ice40-hx8k-fmax.pcf" \
    --seed 1 --timing-allow-fail --asc design.asc -l nextpnr.log >/dev/null 2>&1
echo "nextpnr-ice40 --hx8k (ct256, $here/ice40-hx8k-fmax.pcf):"
# Utilisation after packing; Fmax after routing (the last report; the first is post-placement).
grep -E "ICESTORM_LC:" nextpnr.log | head -1 | sed 's/^Info: *//; s/^/  /'
grep -E "Max frequency for clock" nextpnr.log | tail -1 | sed 's/^[A-Za-z]*: */  /'
