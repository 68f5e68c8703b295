//! The runtime builds, links and reports the Verilator on PATH.

#[cfg(verilated_no_verilator)]
#[test]
fn verilator_is_installed() {
    panic!("verilated was built without Verilator: install it (apt-get install verilator) and rebuild");
}

#[cfg(not(verilated_no_verilator))]
use std::process::Command;

#[cfg(not(verilated_no_verilator))]
#[test]
fn product_is_the_verilator_on_path() {
    assert_eq!(verilated::product_name().to_str().unwrap(), "Verilator");
    let out = Command::new("verilator").arg("--version").output().unwrap();
    let version = String::from_utf8(out.stdout).unwrap();
    // "Verilator 5.006 2023-01-22 rev ..." against "5.006 2023-01-22"
    let ours = verilated::product_version().to_str().unwrap().to_string();
    assert!(!ours.is_empty());
    assert!(version.contains(&ours), "verilator --version says {:?}, the runtime {:?}", version, ours);
}

#[cfg(not(verilated_no_verilator))]
#[test]
fn vcd_rollover_mb_is_megabytes() {
    let dir = std::env::temp_dir().join(format!("verilated-rollover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("empty.vcd");
    {
        let mut vcd = verilated::vcd::Vcd::default();
        vcd.rollover_mb(1);
        vcd.open(&path).unwrap();
        // No signals: every dump is a time stamp line, about 9 bytes: ~3 MiB in all.
        for t in 0..350_000u64 {
            vcd.dump(1_000_000 + t);
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let sizes: Vec<u64> = files.iter().map(|f| f.metadata().unwrap().len()).collect();
    std::fs::remove_dir_all(&dir).unwrap();
    // The header, then files of about 1 MiB each.
    assert!((3..=5).contains(&files.len()), "{:?} {:?}", files, sizes);
    assert!(sizes[1] > 1 << 20 && sizes[1] < (1 << 20) + (64 << 10), "{:?} {:?}", files, sizes);
}
