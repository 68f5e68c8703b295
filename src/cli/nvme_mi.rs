//! `offload nvme-mi`: an NVMe-MI requester through a running `offload mctpd` (its control
//! socket's `nvme-mi` request carries one message and returns the final response). It prints
//! the fields nvme-cli prints for the same data, with nvme-cli's names, so a user without
//! nvme-cli has the same tool.
//!
//! ```text
//! offload nvme-mi health|ctrl-health|identify|smart-log|error-log|fw-log|get-feature|
//!                 config get|config set|read … --eid N [--control PATH | --local EID]
//! ```

use super::mctp::{from_hex, parse_u8, to_hex, DaemonArgs};
use anyhow::{anyhow, bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use offload_driver::mctp::stack::nvme_mi::{config_id, data_structure, opcode, MiRequest, MiResponse};
use offload_driver::nvme::admin::AdminCommand;
use offload_driver::nvme::identify::{cns, ctrl as idc, ns as idn};
use offload_driver::nvme::log_page::{lid, smart};
use offload_driver::nvme::NSID_ALL;
use offload_driver::nvme_mi::admin::{AdminRequest, AdminResponse, MAX_DATA_LEN};
use offload_driver::nvme_mi::mi_command::smbus_frequency;
use offload_driver::nvme_mi::{status, ParameterErrorLocation};
use std::fmt::Write as _;

#[derive(Subcommand, Debug)]
pub enum NvmeMiCommand {
    /// NVM Subsystem Health Status Poll.
    Health(HealthArgs),
    /// Controller Health Status Poll.
    CtrlHealth(CtrlHealthArgs),
    /// Identify: controller (default), namespace, active namespace list or controller list.
    Identify(IdentifyArgs),
    /// Get Log Page: SMART / Health Information (as `nvme smart-log`).
    SmartLog(AdminArgs),
    /// Get Log Page: Error Information (as `nvme error-log`).
    ErrorLog(ErrorLogArgs),
    /// Get Log Page: Firmware Slot Information (as `nvme fw-log`).
    FwLog(AdminArgs),
    /// Get Features (as `nvme get-feature`).
    GetFeature(GetFeatureArgs),
    /// Configuration Get / Set.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Read NVMe-MI Data Structure.
    Read(ReadArgs),
}

/// Where the endpoint is and how to reach it.
#[derive(Args, Debug)]
pub struct Target {
    /// The Management Endpoint's EID.
    #[arg(long, value_parser = parse_u8)]
    eid: u8,
    /// How long to wait for a response, ms.
    #[arg(long, default_value = "2000")]
    timeout: u64,
    #[command(flatten)]
    daemon: DaemonArgs,
}

#[derive(Args, Debug)]
pub struct HealthArgs {
    #[command(flatten)]
    target: Target,
    /// Clear Status: clear the Composite Controller Status flags after reading them.
    #[arg(long)]
    clear: bool,
}

#[derive(Args, Debug)]
pub struct CtrlHealthArgs {
    #[command(flatten)]
    target: Target,
    /// First controller ID to report.
    #[arg(long, default_value = "0")]
    start: u16,
    /// Most entries to report (1..=256).
    #[arg(long, default_value = "256", value_parser = clap::value_parser!(u16).range(1..=256))]
    max: u16,
    /// Report every controller, not only those with changes.
    #[arg(long)]
    all: bool,
    /// Clear the reported controllers' changed flags.
    #[arg(long)]
    clear: bool,
}

#[derive(Args, Debug)]
pub struct AdminArgs {
    #[command(flatten)]
    target: Target,
    /// Controller ID.
    #[arg(long, default_value = "0")]
    ctrl: u16,
}

#[derive(Args, Debug)]
pub struct IdentifyArgs {
    #[command(flatten)]
    admin: AdminArgs,
    /// Identify Namespace NSID (as `nvme id-ns`).
    #[arg(long, conflicts_with_all = ["ns_list", "ctrl_list"])]
    ns: Option<u32>,
    /// Active namespace list (as `nvme list-ns`).
    #[arg(long, conflicts_with = "ctrl_list")]
    ns_list: bool,
    /// Controller list (as `nvme list-ctrl`).
    #[arg(long)]
    ctrl_list: bool,
}

#[derive(Args, Debug)]
pub struct ErrorLogArgs {
    #[command(flatten)]
    admin: AdminArgs,
    /// Entries to read (default: all the controller keeps, ELPE + 1).
    #[arg(long)]
    entries: Option<u32>,
}

#[derive(Args, Debug)]
pub struct GetFeatureArgs {
    #[command(flatten)]
    admin: AdminArgs,
    /// Feature identifier.
    #[arg(long, short = 'f', value_parser = parse_u8)]
    feature_id: u8,
    /// Select: 0 current, 1 default, 2 saved, 3 supported capabilities.
    #[arg(long, short = 's', default_value = "0", value_parser = clap::value_parser!(u8).range(0..=3))]
    sel: u8,
    /// CDW11 (e.g. the Temperature Threshold's sensor and threshold type).
    #[arg(long, default_value = "0")]
    cdw11: u32,
}

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Configuration Get.
    Get(ConfigGetArgs),
    /// Configuration Set.
    Set(ConfigSetArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ConfigItem {
    SmbusFrequency,
    MctpTu,
}

#[derive(Args, Debug)]
pub struct ConfigGetArgs {
    #[command(flatten)]
    target: Target,
    #[arg(value_enum)]
    item: ConfigItem,
    #[arg(long, default_value = "0")]
    port: u8,
}

#[derive(Args, Debug)]
pub struct ConfigSetArgs {
    #[command(flatten)]
    target: Target,
    #[arg(long, default_value = "0")]
    port: u8,
    /// SMBus/I2C frequency: 100k, 400k or 1m.
    #[arg(long, conflicts_with_all = ["mctp_tu", "clear_health_status"])]
    smbus_frequency: Option<String>,
    /// MCTP transmission unit size, octets.
    #[arg(long, conflicts_with = "clear_health_status")]
    mctp_tu: Option<u16>,
    /// Health Status Change: the Composite Controller Status flags to clear (a mask).
    #[arg(long)]
    clear_health_status: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Structure {
    Subsystem,
    Port,
    CtrlList,
    CtrlInfo,
}

#[derive(Args, Debug)]
pub struct ReadArgs {
    #[command(flatten)]
    target: Target,
    #[arg(value_enum)]
    structure: Structure,
    #[arg(long, default_value = "0")]
    port: u8,
    /// Controller ID (ctrl-info) or the first one to list (ctrl-list).
    #[arg(long, default_value = "0")]
    ctrl: u16,
}

/// Sends one request message through the daemon and returns the final response message.
fn transact(t: &Target, msg: &[u8]) -> anyhow::Result<Vec<u8>> {
    let path = super::mctp::control_path(&t.daemon)?;
    let line = format!("nvme-mi {} {} {}", t.eid, t.timeout, to_hex(msg));
    let lines = super::mctpd::request(&path, &line)?;
    let hex = lines
        .first()
        .and_then(|l| l.strip_prefix("rx in-progress "))
        .and_then(|l| l.split_once(' '))
        .map(|(_, h)| h)
        .ok_or_else(|| anyhow!("mctpd gave no response line"))?;
    from_hex(hex)
}

/// An MI command; an error status becomes an error naming it (and the Parameter Error
/// Location of an Invalid Parameter).
fn mi(t: &Target, opcode: u8, dword0: u32, dword1: u32) -> anyhow::Result<MiResponse> {
    let req = MiRequest {
        opcode,
        dword0,
        dword1,
        data: vec![],
    };
    let r = MiResponse::decode(&transact(t, &req.encode()?)?)?;
    mi_status(r.status, r.nmresp)?;
    Ok(r)
}

fn mi_status(s: u8, nmresp: [u8; 3]) -> anyhow::Result<()> {
    if s == status::SUCCESS {
        return Ok(());
    }
    let mut m = format!("NVMe-MI status: {}(0x{s:x})", status::describe(s));
    if s == status::INVALID_PARAMETER {
        let p = ParameterErrorLocation::from_nmresp(nmresp);
        let _ = write!(m, " at octet {} bit {}", p.byte, p.bit);
    }
    bail!(m)
}

/// An Admin command of `len` octets of data from `offset`.
fn admin(a: &AdminArgs, cmd: AdminCommand, offset: u32, len: u32) -> anyhow::Result<AdminResponse> {
    let req = AdminRequest::new(a.ctrl, cmd, offset, len);
    let r = AdminResponse::decode(&transact(&a.target, &req.encode(false)?)?)?;
    mi_status(r.status, r.nmresp)?;
    let st = r.nvme_status();
    if !st.is_success() {
        bail!("NVMe status: {st}");
    }
    Ok(r)
}

fn get_log(a: &AdminArgs, id: u8, nsid: u32, len: usize) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    while out.len() < len {
        let chunk = (len - out.len()).min(MAX_DATA_LEN) as u32;
        let cmd = AdminCommand::get_log_page(id, nsid, out.len() as u64, chunk);
        let r = admin(a, cmd, 0, chunk)?;
        let n = r.data.len();
        out.extend_from_slice(&r.data);
        if n < chunk as usize {
            break;
        }
    }
    Ok(out)
}

fn le16(d: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([d[at], d[at + 1]])
}
fn le32(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().expect("4 octets"))
}
fn le64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 octets"))
}
fn le128(d: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(d[at..at + 16].try_into().expect("16 octets"))
}
/// C's `%#x`: `0` for zero, `0x…` otherwise.
fn hx(v: impl Into<u64>) -> String {
    match v.into() {
        0 => "0".into(),
        v => format!("{v:#x}"),
    }
}
fn ascii(d: &[u8]) -> String {
    d.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect()
}
/// nvme-cli's `uint128_t_to_si_string`: two decimals and an SI prefix of 1000.
fn si(v: f64) -> String {
    let (mut v, mut suffix) = (v, "");
    for (m, s) in [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if v >= m {
            v /= m;
            suffix = s;
            break;
        }
    }
    format!("{v:.2} {suffix}B")
}

fn id_ctrl_text(d: &[u8]) -> String {
    let mut o = String::from("NVME Identify Controller:\n");
    let mut f = |k: &str, v: String| {
        let _ = writeln!(o, "{k:<10}: {v}");
    };
    f("vid", hx(le16(d, idc::VID)));
    f("ssvid", hx(le16(d, idc::SSVID)));
    f("sn", ascii(&d[idc::SN..idc::SN + 20]));
    f("mn", ascii(&d[idc::MN..idc::MN + 40]));
    f("fr", ascii(&d[idc::FR..idc::FR + 8]));
    f("rab", d[idc::RAB].to_string());
    f("ieee", format!("{:02x}{:02x}{:02x}", d[idc::IEEE + 2], d[idc::IEEE + 1], d[idc::IEEE]));
    f("cmic", hx(d[idc::CMIC]));
    f("mdts", d[idc::MDTS].to_string());
    f("cntlid", hx(le16(d, idc::CNTLID)));
    f("ver", hx(le32(d, idc::VER)));
    f("cntrltype", d[idc::CNTRLTYPE].to_string());
    f("nvmsr", d[idc::NVMSR].to_string());
    f("mec", d[idc::MEC].to_string());
    f("oacs", hx(le16(d, idc::OACS)));
    f("acl", d[idc::ACL].to_string());
    f("aerl", d[idc::AERL].to_string());
    f("frmw", hx(d[idc::FRMW]));
    f("lpa", hx(d[idc::LPA]));
    f("elpe", d[idc::ELPE].to_string());
    f("npss", d[idc::NPSS].to_string());
    f("wctemp", le16(d, idc::WCTEMP).to_string());
    f("cctemp", le16(d, idc::CCTEMP).to_string());
    f("tnvmcap", le128(d, idc::TNVMCAP).to_string());
    f("unvmcap", le128(d, idc::UNVMCAP).to_string());
    f("sqes", hx(d[idc::SQES]));
    f("cqes", hx(d[idc::CQES]));
    f("nn", le32(d, idc::NN).to_string());
    f("subnqn", ascii(&d[idc::SUBNQN..idc::SUBNQN + 256]));
    o
}

fn id_ns_text(nsid: u32, d: &[u8]) -> String {
    let mut o = format!("NVME Identify Namespace {nsid}:\n");
    let mut f = |k: &str, v: String| {
        let _ = writeln!(o, "{k:<8}: {v}");
    };
    f("nsze", hx(le64(d, idn::NSZE)));
    f("ncap", hx(le64(d, idn::NCAP)));
    f("nuse", hx(le64(d, idn::NUSE)));
    f("nsfeat", hx(d[idn::NSFEAT]));
    f("nlbaf", d[idn::NLBAF].to_string());
    f("flbas", hx(d[idn::FLBAS]));
    f("nmic", hx(d[idn::NMIC]));
    f("nvmcap", le128(d, idn::NVMCAP).to_string());
    f("nguid", d[idn::NGUID..idn::NGUID + 16].iter().map(|b| format!("{b:02x}")).collect());
    f("eui64", d[idn::EUI64..idn::EUI64 + 8].iter().map(|b| format!("{b:02x}")).collect());
    let lbads = d[idn::LBAF0 + 2];
    let _ = writeln!(
        o,
        "lbaf  0 : ms:{}   lbads:{lbads} rp:{:#x} (in use)",
        le16(d, idn::LBAF0),
        d[idn::LBAF0 + 3] & 3
    );
    o
}

fn smart_text(d: &[u8]) -> String {
    let t = le16(d, smart::COMPOSITE_TEMPERATURE);
    let c = |k: u16| i32::from(k) - 273;
    let mut o = format!("Smart Log for NVME device:mctp namespace-id:{NSID_ALL:x}\n");
    let n = |at| le128(d, at).to_string();
    let _ = writeln!(o, "critical_warning\t\t\t: {}", hx(d[smart::CRITICAL_WARNING]));
    let _ = writeln!(o, "temperature\t\t\t\t: {}°C ({t} Kelvin)", c(t));
    let _ = writeln!(o, "available_spare\t\t\t\t: {}%", d[smart::AVAILABLE_SPARE]);
    let _ = writeln!(o, "available_spare_threshold\t\t: {}%", d[smart::SPARE_THRESHOLD]);
    let _ = writeln!(o, "percentage_used\t\t\t\t: {}%", d[smart::PERCENTAGE_USED]);
    let _ = writeln!(o, "endurance group critical warning summary: {}", hx(d[6]));
    let dur = le128(d, smart::DATA_UNITS_READ);
    let duw = le128(d, smart::DATA_UNITS_WRITTEN);
    let _ = writeln!(o, "Data Units Read\t\t\t\t: {dur} ({})", si(dur as f64 * 512000.0));
    let _ = writeln!(o, "Data Units Written\t\t\t: {duw} ({})", si(duw as f64 * 512000.0));
    let _ = writeln!(o, "host_read_commands\t\t\t: {}", n(smart::HOST_READS));
    let _ = writeln!(o, "host_write_commands\t\t\t: {}", n(smart::HOST_WRITES));
    let _ = writeln!(o, "controller_busy_time\t\t\t: {}", n(smart::CONTROLLER_BUSY_TIME));
    let _ = writeln!(o, "power_cycles\t\t\t\t: {}", n(smart::POWER_CYCLES));
    let _ = writeln!(o, "power_on_hours\t\t\t\t: {}", n(smart::POWER_ON_HOURS));
    let _ = writeln!(o, "unsafe_shutdowns\t\t\t: {}", n(smart::UNSAFE_SHUTDOWNS));
    let _ = writeln!(o, "media_errors\t\t\t\t: {}", n(smart::MEDIA_ERRORS));
    let _ = writeln!(o, "num_err_log_entries\t\t\t: {}", n(smart::ERROR_LOG_ENTRIES));
    let _ = writeln!(o, "Warning Temperature Time\t\t: {}", le32(d, 192));
    let _ = writeln!(o, "Critical Composite Temperature Time\t: {}", le32(d, 196));
    for i in 0..8 {
        let k = le16(d, smart::TEMPERATURE_SENSOR_1 + 2 * i);
        if k != 0 {
            let _ = writeln!(o, "Temperature Sensor {}           : {}°C ({k} Kelvin)", i + 1, c(k));
        }
    }
    o
}

fn error_log_text(d: &[u8]) -> String {
    let entries = d.len() / 64;
    let mut o = format!("Error Log Entries for device:mctp entries:{entries}\n");
    o.push_str(".................\n");
    for i in 0..entries {
        let e = &d[i * 64..(i + 1) * 64];
        let _ = writeln!(o, " Entry[{i:2}]   ");
        o.push_str(".................\n");
        let _ = writeln!(o, "error_count\t: {}", le64(e, 0));
        let _ = writeln!(o, "sqid\t\t: {}", le16(e, 8));
        let _ = writeln!(o, "cmdid\t\t: {}", hx(le16(e, 10)));
        let sf = le16(e, 12);
        let _ = writeln!(o, "status_field\t: {}", hx(sf >> 1));
        let _ = writeln!(o, "phase_tag\t: {}", hx(sf & 1));
        let _ = writeln!(o, "parm_err_loc\t: {}", hx(le16(e, 14)));
        let _ = writeln!(o, "lba\t\t: {}", hx(le64(e, 16)));
        let _ = writeln!(o, "nsid\t\t: {}", hx(le32(e, 24)));
        o.push_str(".................\n");
    }
    o
}

fn fw_log_text(d: &[u8]) -> String {
    let mut o = String::from("Firmware Log for device:mctp\n");
    let _ = writeln!(o, "afi  : {}", hx(d[0]));
    for i in 0..7 {
        let f = &d[8 + 8 * i..16 + 8 * i];
        if f[0] != 0 {
            let _ = writeln!(o, "frs{} : {:#016x} ({})", i + 1, le64(f, 0), ascii(f));
        }
    }
    o
}

fn health_text(d: &[u8]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "nss   : {}", hx(d[0]));
    let _ = writeln!(o, "sw    : {}", hx(d[1]));
    let _ = writeln!(o, "ctemp : {}°C", d[2] as i8);
    let _ = writeln!(o, "pdlu  : {}%", d[3]);
    let _ = writeln!(o, "ccs   : {}", hx(le16(d, 4)));
    o
}

pub fn run(c: NvmeMiCommand) -> anyhow::Result<()> {
    let text = match c {
        NvmeMiCommand::Health(a) => {
            let r = mi(&a.target, opcode::SUBSYSTEM_HEALTH_STATUS_POLL, 0, u32::from(a.clear) << 31)?;
            if r.data.len() < 8 {
                bail!("NVM Subsystem Health Data Structure of {} octets, expected 8", r.data.len());
            }
            health_text(&r.data)
        }
        NvmeMiCommand::CtrlHealth(a) => {
            let dword0 = u32::from(a.start) | (u32::from(a.max - 1) << 16) | (u32::from(a.all) << 31);
            let dword1 = 0x1FF7 | (u32::from(a.clear) << 31);
            let r = mi(&a.target, opcode::CONTROLLER_HEALTH_STATUS_POLL, dword0, dword1)?;
            let mut o = format!("entries: {}\n", r.nmresp[0]);
            for e in r.data.chunks_exact(16) {
                let k = le16(e, 4);
                let _ = writeln!(
                    o,
                    "ctlid {} csts {} ctemp {}°C ({k} Kelvin) pdlu {}% spare {}% cwarn {}",
                    hx(le16(e, 0)),
                    hx(le16(e, 2)),
                    i32::from(k) - 273,
                    e[6],
                    e[7],
                    hx(e[8])
                );
            }
            o
        }
        NvmeMiCommand::Identify(a) => {
            let (cmd, nsid) = if let Some(n) = a.ns {
                (AdminCommand::identify(cns::NAMESPACE, 0, n), n)
            } else if a.ns_list {
                (AdminCommand::identify(cns::ACTIVE_NAMESPACE_LIST, 0, 0), 0)
            } else if a.ctrl_list {
                (AdminCommand::identify(cns::CONTROLLER_LIST, 0, 0), 0)
            } else {
                (AdminCommand::identify(cns::CONTROLLER, 0, 0), 0)
            };
            let d = admin(&a.admin, cmd, 0, 4096)?.data;
            if d.len() != 4096 {
                bail!("Identify data of {} octets, expected 4096", d.len());
            }
            if a.ns.is_some() {
                id_ns_text(nsid, &d)
            } else if a.ns_list {
                let mut o = String::new();
                for (i, id) in d.chunks_exact(4).map(|c| le32(c, 0)).take_while(|&i| i != 0).enumerate() {
                    let _ = writeln!(o, "[{i:4}]:{}", hx(id));
                }
                o
            } else if a.ctrl_list {
                let n = le16(&d, 0);
                let mut o = format!("num of ctrls present: {n}\n");
                for i in 0..usize::from(n.min(2047)) {
                    let _ = writeln!(o, "[{i:4}]:{}", hx(le16(&d, 2 + 2 * i)));
                }
                o
            } else {
                id_ctrl_text(&d)
            }
        }
        NvmeMiCommand::SmartLog(a) => smart_text(&get_log(&a, lid::SMART_HEALTH, NSID_ALL, 512)?),
        NvmeMiCommand::ErrorLog(a) => {
            let entries = match a.entries {
                Some(n) => n.max(1),
                None => {
                    let id = admin(&a.admin, AdminCommand::identify(cns::CONTROLLER, 0, 0), 0, 4096)?;
                    u32::from(id.data[idc::ELPE]) + 1
                }
            };
            error_log_text(&get_log(&a.admin, lid::ERROR_INFORMATION, 0, entries as usize * 64)?)
        }
        NvmeMiCommand::FwLog(a) => fw_log_text(&get_log(&a, lid::FIRMWARE_SLOT, 0, 512)?),
        NvmeMiCommand::GetFeature(a) => {
            let cmd = AdminCommand::get_features(a.feature_id, a.sel, a.cdw11);
            let r = admin(&a.admin, cmd, 0, 0)?;
            // nvme-cli: "get-feature:%#0*x (%s), %s value:%#0*x" (C's `#` adds no 0x to 0).
            let fid = if a.feature_id == 0 { "00".to_string() } else { format!("{:#04x}", a.feature_id) };
            let value = if r.cdw0 == 0 { "00000000".to_string() } else { format!("{:#010x}", r.cdw0) };
            let name = match a.feature_id {
                0x02 => "Power Management",
                0x04 => "Temperature Threshold",
                0x07 => "Number of Queues",
                _ => "Unknown",
            };
            let sel = ["Current", "Default", "Saved", "Supported capabilities"][usize::from(a.sel)];
            format!("get-feature:{fid} ({name}), {sel} value:{value}\n")
        }
        NvmeMiCommand::Config(ConfigCommand::Get(a)) => {
            let port = u32::from(a.port) << 24;
            match a.item {
                ConfigItem::SmbusFrequency => {
                    let r = mi(&a.target, opcode::CONFIGURATION_GET, port | u32::from(config_id::SMBUS_FREQUENCY), 0)?;
                    let f = r.nmresp[0] & 0xF;
                    format!("port {}: smbus frequency {} ({})\n", a.port, f, smbus_frequency::describe(f))
                }
                ConfigItem::MctpTu => {
                    let r = mi(&a.target, opcode::CONFIGURATION_GET, port | u32::from(config_id::MCTP_TRANSMISSION_UNIT), 0)?;
                    format!("port {}: mctp transmission unit {}\n", a.port, u16::from_le_bytes([r.nmresp[0], r.nmresp[1]]))
                }
            }
        }
        NvmeMiCommand::Config(ConfigCommand::Set(a)) => {
            let port = u32::from(a.port) << 24;
            let (dword0, dword1) = if let Some(f) = &a.smbus_frequency {
                let code = match f.to_ascii_lowercase().as_str() {
                    "100k" => smbus_frequency::KHZ_100,
                    "400k" => smbus_frequency::KHZ_400,
                    "1m" => smbus_frequency::MHZ_1,
                    _ => bail!("--smbus-frequency {f}: expected 100k, 400k or 1m"),
                };
                (port | (u32::from(code) << 8) | u32::from(config_id::SMBUS_FREQUENCY), 0)
            } else if let Some(tu) = a.mctp_tu {
                (port | u32::from(config_id::MCTP_TRANSMISSION_UNIT), u32::from(tu))
            } else if let Some(m) = &a.clear_health_status {
                let mask = parse_u32(m).context("--clear-health-status")?;
                (u32::from(config_id::HEALTH_STATUS_CHANGE), mask)
            } else {
                bail!("config set: give --smbus-frequency, --mctp-tu or --clear-health-status");
            };
            mi(&a.target, opcode::CONFIGURATION_SET, dword0, dword1)?;
            String::new()
        }
        NvmeMiCommand::Read(a) => {
            let dtype = match a.structure {
                Structure::Subsystem => data_structure::SUBSYSTEM_INFORMATION,
                Structure::Port => data_structure::PORT_INFORMATION,
                Structure::CtrlList => data_structure::CONTROLLER_LIST,
                Structure::CtrlInfo => data_structure::CONTROLLER_INFORMATION,
            };
            let dword0 = (u32::from(dtype) << 24) | (u32::from(a.port) << 16) | u32::from(a.ctrl);
            let r = mi(&a.target, opcode::READ_DATA_STRUCTURE, dword0, 0)?;
            read_text(a.structure, &r.data)?
        }
    };
    print!("{text}");
    Ok(())
}

fn parse_u32(s: &str) -> anyhow::Result<u32> {
    Ok(match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16)?,
        None => s.parse()?,
    })
}

/// The data structures with libnvme's field names.
fn read_text(s: Structure, d: &[u8]) -> anyhow::Result<String> {
    let need = match s {
        Structure::CtrlList => 2,
        _ => 32,
    };
    if d.len() < need {
        bail!("data structure of {} octets, expected {need}", d.len());
    }
    let mut o = String::new();
    match s {
        Structure::Subsystem => {
            let _ = writeln!(o, "nump : {}", d[0]);
            let _ = writeln!(o, "mjr  : {}", d[1]);
            let _ = writeln!(o, "mnr  : {}", d[2]);
        }
        Structure::Port => {
            let _ = writeln!(o, "portt    : {}", d[0]);
            let _ = writeln!(o, "mmctptus : {}", le16(d, 2));
            let _ = writeln!(o, "meb      : {}", le32(d, 4));
            let _ = writeln!(o, "vpd_addr : {}", hx(d[8]));
            let _ = writeln!(o, "mvpd_freq: {}", d[9]);
            let _ = writeln!(o, "mme_addr : {}", hx(d[10]));
            let _ = writeln!(o, "mme_freq : {}", d[11]);
            let _ = writeln!(o, "nvmebm   : {}", d[12]);
        }
        Structure::CtrlList => {
            let n = usize::from(le16(d, 0));
            let _ = writeln!(o, "num of ctrls present: {n}");
            for i in 0..n.min((d.len() - 2) / 2) {
                let _ = writeln!(o, "[{i:4}]:{}", hx(le16(d, 2 + 2 * i)));
            }
        }
        Structure::CtrlInfo => {
            let _ = writeln!(o, "portid : {}", d[0]);
            let _ = writeln!(o, "prii   : {}", hx(d[5]));
            let _ = writeln!(o, "pri    : {}", hx(le16(d, 6)));
            let _ = writeln!(o, "vid    : {}", hx(le16(d, 8)));
            let _ = writeln!(o, "did    : {}", hx(le16(d, 10)));
            let _ = writeln!(o, "ssvid  : {}", hx(le16(d, 12)));
            let _ = writeln!(o, "ssid   : {}", hx(le16(d, 14)));
        }
    }
    Ok(o)
}
