//! The counter and the blinker against Verilator 5: counts, reset, the VCD's time scale, and
//! how `verilator::gen` built them.
#![cfg(not(no_verilator))]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use verilated_counter::blink::Blink;
use verilated_counter::counter::Counter;

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("verilated-counter-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One rising and one falling edge, traced at `t` and `t + 5` ns.
fn tick(c: &mut Counter, t: u64) {
    c.clock_toggle();
    c.eval();
    c.trace_at(Duration::from_nanos(t));
    c.clock_toggle();
    c.eval();
    c.trace_at(Duration::from_nanos(t + 5));
}

#[test]
fn counter_counts_enabled_clocks_and_resets() {
    let mut c = Counter::default();
    c.reset_toggle(); // reset high
    tick(&mut c, 0);
    assert_eq!(c.count(), 0);
    c.reset_toggle(); // reset low
    c.set_enable(1);
    for i in 1..=5 {
        tick(&mut c, 0);
        assert_eq!(c.count(), i);
    }
    c.set_enable(0);
    for _ in 0..3 {
        tick(&mut c, 0);
    }
    assert_eq!(c.count(), 5, "held while enable is low");
    c.set_enable(1);
    for _ in 0..300 {
        tick(&mut c, 0);
    }
    assert_eq!(c.count(), ((5 + 300) % 256) as u8, "wraps at 8 bits");
    c.reset_toggle();
    tick(&mut c, 0);
    assert_eq!(c.count(), 0, "synchronous reset");
    c.finish();
}

#[test]
fn counter_vcd_has_a_nanosecond_timescale_and_the_counts() {
    let path = scratch("vcd").join("counter.vcd");
    {
        let mut c = Counter::default();
        c.open_trace(&path, 99).unwrap();
        c.set_enable(1);
        // Settle with the clock low first: Verilator 5 takes the first eval's clock as the
        // previous value, so a first eval with the clock high is no edge.
        c.eval();
        c.trace_at(Duration::ZERO);
        for i in 1..=4 {
            tick(&mut c, 10 * i);
        }
        assert_eq!(c.count(), 4);
        c.finish();
    }
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$timescale 1ns $end"), "VCD header:\n{}", &vcd[..vcd.len().min(400)]);
    // The fourth rising edge, at 40 ns, makes the count 4.
    let at_40 = vcd.split("\n#40\n").nth(1).expect("a dump at 40 ns");
    let at_40 = at_40.split("\n#").next().unwrap();
    assert!(at_40.contains("b00000100 "), "count 4 at 40 ns:\n{at_40}");
    assert!(vcd.contains("\n#45\n"), "a dump at 45 ns");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn blink_is_built_without_trace_and_takes_div_from_the_command_line() {
    let mut b = Blink::default();
    b.reset_toggle();
    b.clock_toggle();
    b.eval();
    b.clock_toggle();
    b.eval();
    b.reset_toggle();
    let mut led = Vec::new();
    for _ in 0..9 {
        b.clock_toggle();
        b.eval();
        b.clock_toggle();
        b.eval();
        led.push(b.led());
    }
    // DIV = 3 (`-GDIV=3`; the Verilog's default is 2): the LED changes every third clock.
    assert_eq!(led, [0, 0, 1, 1, 1, 0, 0, 0, 1]);
    b.finish();
}

unsafe extern "C" {
    fn counter_probe() -> i32;
}

#[test]
fn the_callers_cc_build_compiles_the_model() {
    // rtl/probe.cpp returns COUNTER_PROBE, defined only in build.rs's cc::Build.
    assert_eq!(unsafe { counter_probe() }, 42);
}

#[test]
fn a_small_model_is_one_translation_unit() {
    let dir = PathBuf::from(concat!(env!("OUT_DIR"), "/counter"));
    let mk = std::fs::read_to_string(dir.join("Vcounter_classes.mk")).unwrap();
    assert!(mk.contains("VM_PARALLEL_BUILDS = 0"), "{mk}");
    let all = std::fs::read_to_string(dir.join("Vcounter__ALL.cpp")).unwrap();
    let classes: Vec<&str> = mk
        .lines()
        .map(|l| l.trim().trim_end_matches('\\').trim())
        .filter(|l| l.starts_with("Vcounter") && !l.contains(' '))
        .collect();
    assert!(classes.len() >= 5, "{classes:?}");
    for c in &classes {
        assert!(all.contains(&format!("#include \"{c}.cpp\"")), "{c} missing from:\n{all}");
    }
    // The archive: that unit and the two user files (the FFI shim, rtl/probe.cpp).
    let ar = Command::new("ar").arg("t").arg(dir.join("libVcounter__ALL.a")).output().unwrap();
    let members: Vec<String> = String::from_utf8(ar.stdout).unwrap().lines().map(String::from).collect();
    assert_eq!(members.len(), 3, "{members:?}");
    assert!(members.iter().any(|m| m.ends_with("Vcounter__ALL.o")), "{members:?}");
}

/// A model Verilator splits (`VM_PARALLEL_BUILDS = 1`, here forced with `--output-split 1`)
/// is compiled file by file: the classes `V<top>_classes.mk` marks slow (`VM_CLASSES_SLOW`,
/// `VM_SUPPORT_SLOW`) into their own archive, which the builder compiles unoptimised as
/// verilated.mk's `OPT_SLOW` does, the rest into `V<top>__ALL`. (The blinker tests above
/// show the two archives link and run.)
#[test]
fn a_split_model_compiles_its_slow_classes_apart() {
    let dir = PathBuf::from(concat!(env!("OUT_DIR"), "/blink"));
    let mk = std::fs::read_to_string(dir.join("Vblink_classes.mk")).unwrap();
    assert!(mk.contains("VM_PARALLEL_BUILDS = 1"), "{mk}");
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    let mut into: Option<bool> = None;
    for line in mk.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            into = None;
            continue;
        }
        if let Some(var) = line.split('=').next().filter(|_| line.contains('=')) {
            let var = var.trim_end_matches('+').trim();
            into = ["VM_CLASSES_FAST", "VM_SUPPORT_FAST", "VM_CLASSES_SLOW", "VM_SUPPORT_SLOW"]
                .contains(&var)
                .then(|| var.ends_with("_SLOW"));
            continue;
        }
        let name = line.trim_end_matches('\\').trim();
        match into {
            Some(true) => slow.push(name.to_string()),
            Some(false) => fast.push(name.to_string()),
            None => {}
        }
    }
    assert!(!slow.is_empty() && !fast.is_empty(), "fast {fast:?}, slow {slow:?}");
    let members = |lib: &str| -> Vec<String> {
        let ar = Command::new("ar").arg("t").arg(dir.join(lib)).output().unwrap();
        assert!(ar.status.success(), "ar t {lib}");
        String::from_utf8(ar.stdout).unwrap().lines().map(String::from).collect()
    };
    let (fast_ar, slow_ar) = (members("libVblink__ALL.a"), members("libVblink__ALL_slow.a"));
    for c in &slow {
        let o = format!("-{c}.o");
        assert!(slow_ar.iter().any(|m| m.ends_with(&o)), "{c} not in the slow archive {slow_ar:?}");
        assert!(!fast_ar.iter().any(|m| m.ends_with(&o)), "{c} in the fast archive too");
    }
    for c in &fast {
        let o = format!("-{c}.o");
        assert!(fast_ar.iter().any(|m| m.ends_with(&o)), "{c} not in the fast archive {fast_ar:?}");
    }
}
