//! The NVMe and NVMe-MI data structures the model builds, decoded by a C program through
//! libnvme 1.3's struct definitions (`<nvme/types.h>`, installed by `scripts/install-deps`
//! as libnvme-dev): every field the model sets comes back with its value, so the Rust offsets
//! are those nvme-cli and libnvme-mi read. Little-endian host assumed (as libnvme's structs
//! are read without conversion in the C program).

use offload_driver::nvme::admin::{execute, AdminCommand};
use offload_driver::nvme::identify;
use offload_driver::nvme::log_page;
use offload_driver::nvme::status::NvmeStatus;
use offload_driver::nvme::subsystem::{ErrorEntry, Namespace, Subsystem};
use offload_driver::nvme_mi::mi_command::{self as mi, SmbusPort};
use std::process::Command;

#[test]
fn libnvme_reads_the_models_structures() {
    let dir = std::env::temp_dir().join(format!("offload-nvme-layout-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("decode");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/libnvme/decode.c");
    let st = Command::new("cc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&bin)
        .arg(src)
        .status()
        .expect("running cc (a C compiler and libnvme-dev are needed: scripts/install-deps)");
    assert!(st.success(), "compiling {src} against <libnvme-mi.h>");

    let mut s = Subsystem::new(
        3,
        vec![Namespace::with_size(1, 77 * 4096, 4096).unwrap(), Namespace::with_size(4, 1 << 20, 512).unwrap()],
    );
    s.update_health(|h| {
        h.temperature_c = 44;
        h.available_spare = 8;
        h.percent_used = 21;
        h.power_on_hours = 4321;
    });
    s.log_error(ErrorEntry {
        error_count: 0,
        sqid: 0,
        cmdid: 0,
        status: NvmeStatus::generic(0x0B),
        parm_error_location: 4,
        lba: 0,
        nsid: 9,
    });
    let c = s.controllers[2].clone();
    let files: [(&str, Vec<u8>); 9] = [
        ("id-ctrl", identify::controller(&s, &c)),
        ("id-ns", identify::namespace(&s, &s.namespaces[0])),
        ("smart", log_page::smart_health(&s)),
        ("error", log_page::error_information(&s)),
        ("fw", log_page::firmware_slot(&s)),
        ("ctrl-info", mi::controller_information(&s, &c)),
        (
            "port-info",
            mi::port_information(&SmbusPort {
                max_mctp_tu: 251,
                vpd_address: 0x53,
                me_address: 0x1D,
                max_frequency: 2,
            }),
        ),
        ("health", mi::subsystem_health(&s)),
        ("ctrl-health", mi::controller_health(&s, &c).to_vec()),
    ];
    for (name, data) in &files {
        std::fs::write(dir.join(name), data).unwrap();
    }
    // The Admin path gives the same Identify bytes as the encoder.
    let via_admin = execute(&mut s.clone(), 2, &AdminCommand::identify(1, 0, 0));
    assert_eq!(via_admin.data, files[0].1);

    let out = Command::new(&bin).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let expected = "\
vid 0x1b36 ssvid 0x1af4 sn OFFLOAD-MI-0001      mn offload NVMe-MI model                    fr 1.1.0    cntlid 2 ver 0x20000
mec 1 frmw 0x5 elpe 15 npss 0 wctemp 343 cctemp 358 nn 4 sqes 0x66 subnqn nqn.2026-11.invalid.offload:nvme-mi-model
tnvmcap 1363968
nsze 77 ncap 77 nuse 77 lbads 12 nmic 1
cw 1 temp 317 spare 8 thresh 10 used 21 poh 4321 cycles 56 errs 1 sensor1 317
error_count 1 status 0x400b pel 0x4 nsid 9
afi 2 frs1 1.0.0    frs2 1.1.0   
portid 0 prii 1 pri 2 vid 0x1b36 did 0x10 ssvid 0x1af4 ssid 0x1100
portt 2 mmctptus 251 vpd 0x53 mvpd_freq 2 mme 0x1d mme_freq 2
nss 0x30 sw 0xfe ctemp 44 pdlu 21 ccs 0x1e00
ctlid 2 csts 0x1 ctemp 317 pdlu 21 spare 8 cwarn 0x1
";
    assert_eq!(text, expected);
    let _ = std::fs::remove_dir_all(&dir);
}
