## Opal Kelly XEM7010 (Artix-7 XC7A50T-1FGG484 / XC7A75T) top of the offload:
## offload_hdl::board::xem7010::Xem7010Offload (cargo feature `board`, docs/TOP.md).
## Port names are rust-hdl's for that top (`hi$sig_in` is field `sig_in` of `hi`). Pins, I/O
## standards and host-interface timing are those rust-hdl-bsp-ok-xem7010 / rust-hdl-ok-core 0.46
## attach to the same signals (OpalKellyHostInterface::xem_7010, xem_7010_leds), which follow
## Opal Kelly's XEM7010 pin list and FrontPanel USB 2.0 timing; rust-hdl's Vivado flow
## generates the equivalent constraints from them. This file is the reviewable copy for a user
## who builds the Verilog in their own Vivado project.

## FrontPanel host interface (USB 2.0, 16-bit), 3.3 V LVCMOS.
## hi_in[0] is the host interface clock okHostClk (48 MHz); everything in the design runs on
## ti_clk, which okHost derives from it: one clock domain.
set_property PACKAGE_PIN Y18  [get_ports {hi$sig_in[0]}]
set_property PACKAGE_PIN V17  [get_ports {hi$sig_in[1]}]
set_property PACKAGE_PIN AA19 [get_ports {hi$sig_in[2]}]
set_property PACKAGE_PIN V20  [get_ports {hi$sig_in[3]}]
set_property PACKAGE_PIN W17  [get_ports {hi$sig_in[4]}]
set_property PACKAGE_PIN AB20 [get_ports {hi$sig_in[5]}]
set_property PACKAGE_PIN V19  [get_ports {hi$sig_in[6]}]
set_property PACKAGE_PIN AA18 [get_ports {hi$sig_in[7]}]
set_property PACKAGE_PIN Y21  [get_ports {hi$sig_out[0]}]
set_property PACKAGE_PIN U20  [get_ports {hi$sig_out[1]}]
set_property PACKAGE_PIN AB22 [get_ports {hi$sig_inout[0]}]
set_property PACKAGE_PIN AB21 [get_ports {hi$sig_inout[1]}]
set_property PACKAGE_PIN Y22  [get_ports {hi$sig_inout[2]}]
set_property PACKAGE_PIN AA21 [get_ports {hi$sig_inout[3]}]
set_property PACKAGE_PIN AA20 [get_ports {hi$sig_inout[4]}]
set_property PACKAGE_PIN W22  [get_ports {hi$sig_inout[5]}]
set_property PACKAGE_PIN W21  [get_ports {hi$sig_inout[6]}]
set_property PACKAGE_PIN T20  [get_ports {hi$sig_inout[7]}]
set_property PACKAGE_PIN R19  [get_ports {hi$sig_inout[8]}]
set_property PACKAGE_PIN P19  [get_ports {hi$sig_inout[9]}]
set_property PACKAGE_PIN U21  [get_ports {hi$sig_inout[10]}]
set_property PACKAGE_PIN T21  [get_ports {hi$sig_inout[11]}]
set_property PACKAGE_PIN R21  [get_ports {hi$sig_inout[12]}]
set_property PACKAGE_PIN P21  [get_ports {hi$sig_inout[13]}]
set_property PACKAGE_PIN R22  [get_ports {hi$sig_inout[14]}]
set_property PACKAGE_PIN P22  [get_ports {hi$sig_inout[15]}]
set_property PACKAGE_PIN V22  [get_ports {hi$sig_aa}]
set_property PACKAGE_PIN P20  [get_ports {hi$sig_mux}]
set_property IOSTANDARD LVCMOS33 [get_ports {hi$sig_in[*] hi$sig_out[*] hi$sig_inout[*] hi$sig_aa hi$sig_mux}]
set_property SLEW FAST [get_ports {hi$sig_in[*]}]

## The eight user LEDs (active low), 3.3 V LVCMOS.
set_property PACKAGE_PIN N13 [get_ports {led[0]}]
set_property PACKAGE_PIN N14 [get_ports {led[1]}]
set_property PACKAGE_PIN P15 [get_ports {led[2]}]
set_property PACKAGE_PIN P16 [get_ports {led[3]}]
set_property PACKAGE_PIN N17 [get_ports {led[4]}]
set_property PACKAGE_PIN P17 [get_ports {led[5]}]
set_property PACKAGE_PIN R16 [get_ports {led[6]}]
set_property PACKAGE_PIN R17 [get_ports {led[7]}]
set_property IOSTANDARD LVCMOS33 [get_ports {led[*]}]

## Timing: okHostClk, 20.83 ns (48 MHz).
create_clock -name okHostClk -period 20.83 [get_ports {hi$sig_in[0]}]
## Host-interface inputs: valid 6.7 ns (hi_in) / 11.0 ns (hi_inout) after the edge, captured
## two clocks later (FrontPanel's USB 2.0 interface protocol), outputs due 8.9 / 9.2 ns.
set_input_delay -add_delay -max -clock [get_clocks {okHostClk}] 6.700 [get_ports {hi$sig_in[*]}]
set_input_delay -add_delay -min -clock [get_clocks {okHostClk}] 0.000 [get_ports {hi$sig_in[*]}]
set_multicycle_path -setup -from [get_ports {hi$sig_in[*]}] 2
set_input_delay -add_delay -max -clock [get_clocks {okHostClk}] 11.000 [get_ports {hi$sig_inout[*]}]
set_input_delay -add_delay -min -clock [get_clocks {okHostClk}] 0.000 [get_ports {hi$sig_inout[*]}]
set_multicycle_path -setup -from [get_ports {hi$sig_inout[*]}] 2
set_output_delay -add_delay -clock [get_clocks {okHostClk}] 8.900 [get_ports {hi$sig_out[*]}]
set_output_delay -add_delay -clock [get_clocks {okHostClk}] 9.200 [get_ports {hi$sig_inout[*]}]
## The LEDs are not timed.
set_false_path -to [get_ports {led[*]}]

## The XEM7010's 200 MHz LVDS system clock (K4/J4, LVDS_25) is not used by this design; a
## design that adds a faster offload clock domain would constrain it here:
## create_clock -name sys_clk -period 5.000 [get_ports sys_clock_p]
## set_clock_groups -asynchronous -group okHostClk -group sys_clk

## Configuration bank voltage (XEM7010: 3.3 V).
set_property CFGBVS VCCO [current_design]
set_property CONFIG_VOLTAGE 3.3 [current_design]
