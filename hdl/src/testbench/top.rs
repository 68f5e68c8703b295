//! `OffloadTop` under any [`ClockedModel`] as a transport for the host driver: [`TopBench`]
//! drives the register bus cycle by cycle (`RegisterBus`) and the stream ports through the
//! generic driver (`TopStreams`), so `offload_driver::registers::OffloadRegs` and `top_offload::TopOffload`
//! run against rust-hdl's simulation of the top, its Verilated Verilog, or both in
//! [`super::Lockstep`], exactly as they would against a board.

use super::axis::{run_streams, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel, PortId};
use crate::ports::Dir;
use offload_driver::mctp::Message;
use offload_driver::ok::{self, FrontPanel};
use offload_driver::registers::{RegisterBus, RegisterError};
use offload_driver::top_offload::{MpaRxFrames, StreamOutput, TopStreams};

/// A bus access that is not acknowledged within this many clocks is an error.
const BUS_TIMEOUT: u64 = 16;

struct BusPorts {
    wr_addr: PortId,
    wr_data: PortId,
    wr_strb: PortId,
    wr_en: PortId,
    wr_ack: PortId,
    rd_addr: PortId,
    rd_en: PortId,
    rd_data: PortId,
    rd_ack: PortId,
}

/// One `OffloadTop` (`top_w4`, `top_w8`) behind the host driver's traits, reset on creation.
pub struct TopBench<M: ClockedModel> {
    m: M,
    bus: BusPorts,
    mpa_in: AxisPorts,
    mpa_out: AxisPorts,
    mctp_in: AxisPorts,
    mctp_out: AxisPorts,
    rx_in: AxisPorts,
    rx_out: AxisPorts,
    /// The header-field side channels of `mctp_rx_m`: src, dst, tag, to.
    rx_side: [PortId; 4],
    mpa_rx_in: AxisPorts,
    mpa_rx_out: AxisPorts,
    /// `mpa_rx_m_tuser`: the verdict on each frame's last beat.
    mpa_rx_tuser: PortId,
    /// Idle cycles and back-pressure of the next [`TopStreams::stream`] calls.
    pub traffic: Traffic,
    /// Bus accesses so far (reads, writes).
    pub accesses: (u64, u64),
    /// What the last `stream` saw (throughput, stalls).
    pub last_run: Option<StreamRun>,
}

impl<M: ClockedModel> TopBench<M> {
    /// Runs `frames` from `input` to `output` (one stream pair of the top) with the bench's
    /// traffic; returns the output frames, each with the values of `side` on its last beat.
    /// Leaves the input idle and the output ready.
    fn run_pair(
        &mut self,
        input: &AxisPorts,
        output: &AxisPorts,
        frames: &[Vec<u8>],
        side: &[PortId],
    ) -> Result<Vec<(Vec<u8>, Vec<u64>)>, RegisterError> {
        let mut at_last = Vec::new();
        // The receivers' output comes their latency after the last input beat: drain at least that long.
        let drain = crate::mctp_rx::LATENCY.max(crate::mpa_rx::LATENCY) + 2;
        let traffic = Traffic { drain_cycles: self.traffic.drain_cycles.max(drain), ..self.traffic.clone() };
        let run = run_streams(&mut self.m, &[(input, frames)], &[output], &traffic, &mut |m, _| {
            let taken = m.get(output.tvalid) != 0 && output.tready.map_or(true, |r| m.get(r) != 0);
            if taken && output.tlast.is_some_and(|l| m.get(l) != 0) {
                at_last.push(side.iter().map(|&p| m.get(p)).collect::<Vec<u64>>());
            }
            Ok(())
        });
        self.m.set(input.tvalid, 0);
        if let Some(r) = output.tready {
            self.m.set(r, 1);
        }
        self.m.eval();
        let run = run.map_err(|e| RegisterError::Bus(e.to_string()))?;
        if at_last.len() != run.outputs[0].len() {
            return Err(RegisterError::Bus(format!("{} frames out, {} last beats seen", run.outputs[0].len(), at_last.len())));
        }
        let out = run.outputs[0].iter().cloned().zip(at_last).collect();
        self.last_run = Some(run);
        Ok(out)
    }

    /// Wraps a fresh model of the top (e.g. a Verilated one with a VCD open) and resets it for
    /// two clocks.
    pub fn new(mut m: M) -> Result<TopBench<M>, BenchError> {
        let p = |m: &M, n: &str, d: Dir, w: usize| m.expect_port(n, d, Some(w));
        let bus = BusPorts {
            wr_addr: p(&m, "reg_wr_addr", Dir::In, 8)?,
            wr_data: p(&m, "reg_wr_data", Dir::In, 32)?,
            wr_strb: p(&m, "reg_wr_strb", Dir::In, 4)?,
            wr_en: p(&m, "reg_wr_en", Dir::In, 1)?,
            wr_ack: p(&m, "reg_wr_ack", Dir::Out, 1)?,
            rd_addr: p(&m, "reg_rd_addr", Dir::In, 8)?,
            rd_en: p(&m, "reg_rd_en", Dir::In, 1)?,
            rd_data: p(&m, "reg_rd_data", Dir::Out, 32)?,
            rd_ack: p(&m, "reg_rd_ack", Dir::Out, 1)?,
        };
        let mpa_in = AxisPorts::bind(&m, "mpa_s_", true)?;
        let mpa_out = AxisPorts::bind(&m, "mpa_m_", false)?;
        let mctp_in = AxisPorts::bind(&m, "mctp_s_", true)?;
        let mctp_out = AxisPorts::bind(&m, "mctp_m_", false)?;
        let rx_in = AxisPorts::bind(&m, "mctp_rx_s_", true)?;
        let rx_out = AxisPorts::bind(&m, "mctp_rx_m_", false)?;
        let rx_side = [
            p(&m, "mctp_rx_m_src_eid", Dir::Out, 8)?,
            p(&m, "mctp_rx_m_dst_eid", Dir::Out, 8)?,
            p(&m, "mctp_rx_m_tag", Dir::Out, 3)?,
            p(&m, "mctp_rx_m_to", Dir::Out, 1)?,
        ];
        let mpa_rx_in = AxisPorts::bind(&m, "mpa_rx_s_", true)?;
        let mpa_rx_out = AxisPorts::bind(&m, "mpa_rx_m_", false)?;
        let mpa_rx_tuser = p(&m, "mpa_rx_m_tuser", Dir::Out, 1)?;
        if mpa_in.len.is_none() || mctp_in.len.is_none() {
            return Err(BenchError::Port(
                "the top's stream inputs need their _len side channels".into(),
            ));
        }
        if mpa_rx_out.tlast.is_none() {
            return Err(BenchError::Port("no mpa_rx_m_tlast".into()));
        }
        for o in [&mpa_out, &mctp_out, &rx_out, &mpa_rx_out] {
            if let Some(r) = o.tready {
                m.set(r, 1);
            }
        }
        m.reset(2);
        Ok(TopBench {
            m,
            bus,
            mpa_in,
            mpa_out,
            mctp_in,
            mctp_out,
            rx_in,
            rx_out,
            rx_side,
            mpa_rx_in,
            mpa_rx_out,
            mpa_rx_tuser,
            traffic: Traffic::full_rate(),
            accesses: (0, 0),
            last_run: None,
        })
    }

    pub fn model(&mut self) -> &mut M {
        &mut self.m
    }

    /// Clocks until `ack` is high after an edge; the request is dropped then.
    fn wait_ack(
        &mut self,
        en: PortId,
        ack: PortId,
        what: &str,
        offset: u8,
    ) -> Result<(), RegisterError> {
        for _ in 0..BUS_TIMEOUT {
            self.m.eval();
            self.m.tick();
            self.m.eval();
            if self.m.get(ack) != 0 {
                self.m.set(en, 0);
                self.m.eval();
                return Ok(());
            }
        }
        self.m.set(en, 0);
        Err(RegisterError::Bus(format!(
            "{what} of 0x{offset:02X} not acknowledged within {BUS_TIMEOUT} clocks"
        )))
    }

    /// A write with explicit byte strobes.
    pub fn write_strobed(&mut self, offset: u8, value: u32, strb: u8) -> Result<(), RegisterError> {
        let b = &self.bus;
        let (addr, data, st, en, ack) = (b.wr_addr, b.wr_data, b.wr_strb, b.wr_en, b.wr_ack);
        self.m.set(addr, offset as u64);
        self.m.set(data, value as u64);
        self.m.set(st, strb as u64);
        self.m.set(en, 1);
        self.accesses.1 += 1;
        self.wait_ack(en, ack, "write", offset)
    }
}

impl<M: ClockedModel> RegisterBus for TopBench<M> {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        let (addr, en, ack, data) = (
            self.bus.rd_addr,
            self.bus.rd_en,
            self.bus.rd_ack,
            self.bus.rd_data,
        );
        self.m.set(addr, offset as u64);
        self.m.set(en, 1);
        self.accesses.0 += 1;
        self.wait_ack(en, ack, "read", offset)?;
        // rd_data is valid with ack, which is still high (the next edge clears both).
        Ok(self.m.get(data) as u32)
    }

    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        self.write_strobed(offset, value, 0xF)
    }
}

impl<M: ClockedModel> TopStreams for TopBench<M> {
    fn stream(
        &mut self,
        ulpdus: &[Vec<u8>],
        messages: &[Vec<u8>],
    ) -> Result<StreamOutput, RegisterError> {
        let run = run_streams(
            &mut self.m,
            &[(&self.mpa_in, ulpdus), (&self.mctp_in, messages)],
            &[&self.mpa_out, &self.mctp_out],
            &self.traffic,
            &mut |_, _| Ok(()),
        );
        // Inputs idle (also after a failed run, which leaves a beat offered) and outputs ready
        // for the bus accesses that follow.
        for i in [&self.mpa_in, &self.mctp_in] {
            self.m.set(i.tvalid, 0);
        }
        for o in [&self.mpa_out, &self.mctp_out] {
            if let Some(r) = o.tready {
                self.m.set(r, 1);
            }
        }
        self.m.eval();
        let run = run.map_err(|e| RegisterError::Bus(e.to_string()))?;
        let out = (run.outputs[0].clone(), run.outputs[1].clone());
        self.last_run = Some(run);
        Ok(out)
    }

    fn stream_rx(&mut self, frames: &[Vec<u8>]) -> Result<Vec<Message>, RegisterError> {
        // The header fields ride with every beat; take them with each message's last one.
        let (input, output, side) = (self.rx_in.clone(), self.rx_out.clone(), self.rx_side);
        let out = self.run_pair(&input, &output, frames, &side)?;
        Ok(out
            .into_iter()
            .map(|(bytes, f)| Message { src: f[0] as u8, dst: f[1] as u8, tag: f[2] as u8, tag_owner: f[3] != 0, bytes })
            .collect())
    }

    fn stream_mpa_rx(&mut self, segments: &[Vec<u8>]) -> Result<MpaRxFrames, RegisterError> {
        // The verdict rides on each frame's last beat.
        let (input, output) = (self.mpa_rx_in.clone(), self.mpa_rx_out.clone());
        let out = self.run_pair(&input, &output, segments, &[self.mpa_rx_tuser])?;
        Ok(out.into_iter().map(|(bytes, v)| (bytes, v[0] != 0)).collect())
    }

    fn cycles(&self) -> Option<u64> {
        Some(self.m.cycle())
    }
}

/// The board core (`board_core_w4`: the FrontPanel bridge and `OffloadTop`) under any
/// [`ClockedModel`] behind the [`FrontPanel`] calls the host transport makes, so `OkTransport`
/// and the bridge are tested together as on the board, minus Opal Kelly's cells. Each call costs clocks as a USB
/// transaction would cost many: wire updates 2, trigger 1 plus 2, wire-out updates 8, one clock
/// per pipe word.
pub struct BoardBench<M: ClockedModel> {
    m: M,
    wire_ins: [u16; 32],
    wire_outs: [u16; 32],
}

impl<M: ClockedModel> BoardBench<M> {
    pub fn new(m: M) -> BoardBench<M> {
        BoardBench { m, wire_ins: [0; 32], wire_outs: [0; 32] }
    }

    pub fn model(&mut self) -> &mut M {
        &mut self.m
    }

    fn port(&self, name: &str) -> Result<PortId, RegisterError> {
        self.m
            .port_id(name)
            .ok_or_else(|| RegisterError::Bus(format!("board core has no port {name}")))
    }

    fn clocks(&mut self, n: usize) {
        for _ in 0..n {
            self.m.eval();
            self.m.tick();
        }
        self.m.eval();
    }

    fn pipe_ports(&self, ep: u8) -> Result<(PortId, PortId), RegisterError> {
        let (strobe, data) = match ep {
            ok::ep::PI_MPA => ("mpa_in_write", "mpa_in_data"),
            ok::ep::PI_MCTP => ("mctp_in_write", "mctp_in_data"),
            ok::ep::PO_MPA => ("mpa_out_read", "mpa_out_data"),
            ok::ep::PO_MCTP => ("mctp_out_read", "mctp_out_data"),
            ok::ep::PI_MPA_RX => ("mpa_rx_in_write", "mpa_rx_in_data"),
            ok::ep::PI_MCTP_RX => ("mctp_rx_in_write", "mctp_rx_in_data"),
            ok::ep::PO_MPA_RX => ("mpa_rx_out_read", "mpa_rx_out_data"),
            ok::ep::PO_MCTP_RX => ("mctp_rx_out_read", "mctp_rx_out_data"),
            _ => {
                return Err(RegisterError::Bus(format!(
                    "no pipe at endpoint 0x{ep:02X}"
                )))
            }
        };
        Ok((self.port(strobe)?, self.port(data)?))
    }
}

impl<M: ClockedModel> FrontPanel for BoardBench<M> {
    fn set_wire_in(&mut self, ep: u8, value: u16) -> Result<(), RegisterError> {
        *self
            .wire_ins
            .get_mut(ep as usize)
            .ok_or_else(|| RegisterError::Bus(format!("no wire-in 0x{ep:02X}")))? = value;
        Ok(())
    }

    fn update_wire_ins(&mut self) -> Result<(), RegisterError> {
        for (ep, name) in [
            (ok::ep::WI_ADDR, "wi_addr"),
            (ok::ep::WI_DATA_LO, "wi_data_lo"),
            (ok::ep::WI_DATA_HI, "wi_data_hi"),
            (ok::ep::WI_CONTROL, "wi_control"),
        ] {
            let p = self.port(name)?;
            self.m.set(p, self.wire_ins[ep as usize] as u64);
        }
        self.clocks(2);
        Ok(())
    }

    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<(), RegisterError> {
        if ep != ok::ep::TI_BUS || bit > 15 {
            return Err(RegisterError::Bus(format!(
                "no trigger 0x{ep:02X} bit {bit}"
            )));
        }
        let p = self.port("ti_bus")?;
        self.m.set(p, 1 << bit);
        self.clocks(1);
        self.m.set(p, 0);
        self.clocks(2);
        Ok(())
    }

    fn update_wire_outs(&mut self) -> Result<(), RegisterError> {
        self.clocks(8);
        for (ep, name) in [
            (ok::ep::WO_DATA_LO, "wo_data_lo"),
            (ok::ep::WO_DATA_HI, "wo_data_hi"),
            (ok::ep::WO_STATUS, "wo_status"),
            (ok::ep::WO_MPA_IN_FREE, "wo_mpa_in_free"),
            (ok::ep::WO_MCTP_IN_FREE, "wo_mctp_in_free"),
            (ok::ep::WO_MPA_OUT_COUNT, "wo_mpa_out_count"),
            (ok::ep::WO_MCTP_OUT_COUNT, "wo_mctp_out_count"),
            (ok::ep::WO_MPA_RX_IN_FREE, "wo_mpa_rx_in_free"),
            (ok::ep::WO_MCTP_RX_IN_FREE, "wo_mctp_rx_in_free"),
            (ok::ep::WO_MPA_RX_OUT_COUNT, "wo_mpa_rx_out_count"),
            (ok::ep::WO_MCTP_RX_OUT_COUNT, "wo_mctp_rx_out_count"),
        ] {
            let p = self.port(name)?;
            self.wire_outs[ep as usize - 0x20] = self.m.get(p) as u16;
        }
        Ok(())
    }

    fn wire_out(&mut self, ep: u8) -> u16 {
        self.wire_outs
            .get((ep as usize).wrapping_sub(0x20))
            .copied()
            .unwrap_or(0)
    }

    fn write_pipe_in(&mut self, ep: u8, words: &[u16]) -> Result<(), RegisterError> {
        let (strobe, data) = self.pipe_ports(ep)?;
        for &w in words {
            self.m.set(data, w as u64);
            self.m.set(strobe, 1);
            self.m.eval();
            self.m.tick();
        }
        self.m.set(strobe, 0);
        self.m.eval();
        Ok(())
    }

    fn read_pipe_out(&mut self, ep: u8, words: &mut [u16]) -> Result<(), RegisterError> {
        let (strobe, data) = self.pipe_ports(ep)?;
        // ep_read at an edge; the word is on ep_datain in the clock after it.
        for w in words.iter_mut() {
            self.m.set(strobe, 1);
            self.m.eval();
            self.m.tick();
            self.m.eval();
            *w = self.m.get(data) as u16;
        }
        self.m.set(strobe, 0);
        self.m.eval();
        Ok(())
    }

    fn cycles(&self) -> Option<u64> {
        Some(self.m.cycle())
    }
}
