//! A model's VCD, written through the `verilated` crate: the time scale, an `eval` at +0 and the
//! rising edge at +5 of each 10 ns cycle, and the values a port took.

use offload_sim::{crc_model_info, trace_dir, PortDir, VerilatedModel};
use offload_driver::crc::CrcKind;

/// The VCD identifier code of the first variable called `name`.
fn code_of<'a>(vcd: &'a str, name: &str) -> &'a str {
    vcd.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|t| t.len() >= 6 && t[0] == "$var" && t[4] == name)
        .unwrap_or_else(|| panic!("no $var {name}"))[3]
}

/// The value changes dumped at time `t`.
fn at<'a>(vcd: &'a str, t: u64) -> &'a str {
    let after = vcd.split(&format!("\n#{t}\n")).nth(1).unwrap_or_else(|| panic!("no dump at {t}"));
    after.split("\n#").next().unwrap()
}

#[test]
fn start_trace_writes_every_eval_and_edge() {
    let info = crc_model_info(CrcKind::Crc32c, 8).unwrap_or_else(|e| panic!("{e}"));
    let path = trace_dir().join("trace-test-crc32c_w8.vcd");
    let words = [0x0123_4567_89ab_cdefu64, 0xa5a5_5a5a_0f0f_f0f0, 0xfeed_face_cafe_f00d];
    let first;
    {
        let mut m = VerilatedModel::new(info);
        m.start_trace(&path).unwrap();
        assert!(m.start_trace(&path).is_err(), "a model has one trace at a time");
        assert_eq!(m.trace_path(), Some(path.as_path()));
        let tdata = m.expect_port("s_tdata", PortDir::In, Some(64)).unwrap();
        m.reset(2);
        first = m.cycle();
        assert_eq!(first, 2);
        for w in words {
            m.set(tdata, w);
            m.eval();
            m.tick();
        }
        assert_eq!(m.cycle(), first + 3);
    }
    let vcd = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(vcd.contains("$timescale 1ns $end"), "{}", &vcd[..vcd.len().min(300)]);
    let clock = info.ports.iter().find(|p| p.is_clock).expect("a clock port").name;
    let clk = code_of(&vcd, clock);
    let tdata = code_of(&vcd, "s_tdata");
    for (i, w) in words.iter().enumerate() {
        let t = 10 * (first + i as u64);
        // The eval before the edge: the new tdata (the second eval of the first cycle, after
        // the one `reset` ends with, is at +1), the clock low again after the last edge.
        let settle_t = if i == 0 { t + 1 } else { t };
        let settle = at(&vcd, settle_t);
        assert!(settle.contains(&format!("b{w:064b} {tdata}")), "tdata at {settle_t}:\n{settle}");
        assert!(at(&vcd, t).contains(&format!("0{clk}")), "clock low at {t}:\n{}", at(&vcd, t));
        // The edge.
        let edge = at(&vcd, t + 5);
        assert!(edge.contains(&format!("1{clk}")), "clock high at {}:\n{edge}", t + 5);
    }
}
