//! Writes the MPA TX framer's Verilog at W = 4, 8, 64 to a folder (for lint and synthesis by hand).
use rust_hdl::prelude::*;
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    let mut a = offload_hdl::mpa_tx::MpaTx::<32, 4>::default();
    a.connect_all();
    std::fs::write(format!("{dir}/mpa_tx_w4.v"), generate_verilog(&a)).unwrap();
    let mut b = offload_hdl::mpa_tx::MpaTx::<64, 8>::default();
    b.connect_all();
    std::fs::write(format!("{dir}/mpa_tx_w8.v"), generate_verilog(&b)).unwrap();
    let mut c = offload_hdl::mpa_tx::MpaTx::<512, 64>::default();
    c.connect_all();
    std::fs::write(format!("{dir}/mpa_tx_w64.v"), generate_verilog(&c)).unwrap();
}
