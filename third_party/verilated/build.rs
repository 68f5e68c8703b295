extern crate cc;
extern crate verilator;

use std::env;
use std::path::PathBuf;
use verilator::find_verilator_root;
use verilator::verilator_version;

fn getenv_unwrap(v: &str) -> String {
    match env::var(v) {
        Ok(s) => s,
        Err(..) => fail(&format!("environment variable `{}` not defined", v)),
    }
}

fn fail(s: &str) -> ! {
    panic!("\n{}\n\nbuild script failed, must exit now", s)
}

fn main() {
    // The cfgs set below, declared so that rustc >= 1.80 does not warn about them.
    println!("cargo:rustc-check-cfg=cfg(verilator_version, values(any()))");
    println!("cargo:rustc-check-cfg=cfg(verilator, values(\"flush_and_exit_cb\"))");
    println!("cargo:rustc-check-cfg=cfg(verilated_no_verilator)");
    if let Some(root) = find_verilator_root() {
        // cargo:rustc-cfg=KEY[="VALUE"]
        let (major, minor) = verilator_version().unwrap();
        println!("cargo:rustc-cfg=verilator_version=\"{}.{}\"", major, minor);
        // Verilator 4.038 replaced flushCb(VerilatedVoidCb) with addFlushCb/addExitCb;
        // Verilator 5 removed the old API.
        if major > 4 || (major == 4 && minor >= 38) {
            println!("cargo:rustc-cfg=verilator=\"flush_and_exit_cb\"");
        }

        let include = root.join("include");

        let mut target = getenv_unwrap("TARGET");
        if target.ends_with("-darwin") {
            target = target + "11";
        }

        let files = vec![
            "verilated.cpp",
            "verilated_cov.cpp",
            "verilated_dpi.cpp",
            "verilated_save.cpp",
            "verilated_vcd_c.cpp",
            "verilated_vpi.cpp",
        ];

        let mut files: Vec<PathBuf> = files.iter().map(|p| include.join(p)).collect();
        // Verilator 5's verilated.cpp always refers to VlThreadPool.
        if major >= 5 {
            files.push(include.join("verilated_threads.cpp"));
        }

        let mut cfg = cc::Build::new();
        let tool = cfg.get_compiler();
        cfg.cpp(true).target(&target);
        if tool.is_like_clang() {
            cfg.flag("-faligned-new")
                .flag("-fbracket-depth=4096")
                .flag("-Qunused-arguments")
                .flag("-Wno-parentheses-equality")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        if tool.is_like_gnu() {
            cfg.flag("-std=gnu++17")
                .flag("-faligned-new")
                .flag("-Wno-bool-operation")
                .flag("-Wno-sign-compare")
                .flag("-Wno-uninitialized")
                .flag("-Wno-unused-but-set-variable")
                .flag("-Wno-unused-parameter")
                .flag("-Wno-unused-variable")
                .flag("-Wno-shadow");
        }
        cfg.define("VERILATOR_VERSION_MAJOR", format!("{}", major).as_str())
            .define("VERILATOR_VERSION_MINOR", format!("{}", minor).as_str());
        cfg.include(&include)
            .include(include.join("vltstd"))
            .files(files)
            .file("src/verilated_shim.cpp")
            .file("src/verilatedvcdc_shim.cpp");
        cfg.compile("verilated_all");
    } else {
        // Without Verilator the Rust API still compiles, so that crates depending on this one
        // can build and say what to install; calling into the runtime then fails to link.
        println!("cargo:warning=verilated: Verilator not found (set `VERILATOR_ROOT` or put `verilator` on `PATH`): built without the Verilated runtime");
        println!("cargo:rustc-cfg=verilated_no_verilator");
        // Build again once Verilator is installed (a missing file always counts as changed).
        println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");
        for dir in env::split_paths(&env::var_os("PATH").unwrap_or_default()) {
            println!("cargo:rerun-if-changed={}", dir.join("verilator_bin").display());
        }
    }
}
