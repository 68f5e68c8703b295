//! Verilates rtl/counter.v (with --trace) and rtl/blink.v (without, DIV = 3 given on the
//! command line, split into many files as a large model is) through the patched `verilator` crate, with the module generator's FFI.

use std::path::PathBuf;
use verilator::module::ModuleGenerator;
use verilator::r#gen::Verilator;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(no_verilator)");
    println!("cargo:rerun-if-changed=rtl");
    if verilator::find_verilator_root().is_none() {
        println!("cargo:warning=verilator not found: the tests will fail (apt-get install verilator)");
        println!("cargo:rustc-cfg=no_verilator");
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    ModuleGenerator::default().generate("rtl/modules.rs");
    let mut cxx = cc::Build::new();
    cxx.define("COUNTER_PROBE", "42");
    Verilator::default()
        .out_dir(out.join("counter"))
        .file("rtl/counter.v")
        .file(out.join("counter.cpp"))
        .file("rtl/probe.cpp")
        .with_trace(true)
        .compiler(cxx)
        .build("counter");
    Verilator::default()
        .out_dir(out.join("blink"))
        .file("rtl/blink.v")
        .file(out.join("blink.cpp"))
        .arg("-GDIV=3")
        // Split as Verilator splits a large model (VM_PARALLEL_BUILDS = 1): the builder then
        // compiles file by file, its slow classes apart.
        .args(["--output-split", "1"])
        .build("blink");
}
