//! Beat-width converters between the bridge's 4-octet channels and `OffloadTop`'s MPA RX path,
//! which runs at 8 octets per beat on every top (its aligner needs at least 8): [`Widen`] pairs
//! 4-octet beats into 8-octet ones on the way in, [`Narrow`] splits them on the way out, with
//! the frame's side channel beside every beat.

use crate::axis::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

/// 4 → 8 octets per beat. Every beat but a frame's last is full (the input channel's
/// contract), so a beat pairs with the next one of its frame; a last beat that arrives first
/// of a pair leaves alone with the upper half empty. One registered output beat.
#[derive(LogicBlock, Default)]
pub struct Widen {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<32, 4>,
    pub m: AxisSource<64, 8>,
    /// No half beat held and no beat offered.
    pub idle: Signal<Out, Bit>,
    lo: DFF<Bits<32>>,
    have_lo: DFF<Bit>,
    data: DFF<Bits<64>>,
    keep: DFF<Bits<8>>,
    last: DFF<Bit>,
    valid: DFF<Bit>,
    /// The output register may take a beat at this edge: it is empty, or its beat leaves.
    load: Signal<Local, Bit>,
}

impl Logic for Widen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lo, have_lo, data, keep, last, valid);
        self.load.next = !self.valid.q.val() | self.m.tready.val();
        self.s.tready.next = !self.reset.val() & self.load.val();
        if self.m.tready.val() {
            self.valid.d.next = false;
        }
        if self.s.tvalid.val() & self.load.val() & !self.reset.val() {
            if self.have_lo.q.val() {
                self.data.d.next = (bit_cast::<64, 32>(self.s.tdata.val()) << 32) | bit_cast::<64, 32>(self.lo.q.val());
                self.keep.d.next = (bit_cast::<8, 4>(self.s.tkeep.val()) << 4) | 15;
                self.last.d.next = self.s.tlast.val();
                self.valid.d.next = true;
                self.have_lo.d.next = false;
            } else if self.s.tlast.val() {
                self.data.d.next = bit_cast::<64, 32>(self.s.tdata.val());
                self.keep.d.next = bit_cast::<8, 4>(self.s.tkeep.val());
                self.last.d.next = true;
                self.valid.d.next = true;
            } else {
                self.lo.d.next = self.s.tdata.val();
                self.have_lo.d.next = true;
            }
        }
        if self.reset.val() {
            self.have_lo.d.next = false;
            self.valid.d.next = false;
        }
        self.m.tdata.next = self.data.q.val();
        self.m.tkeep.next = self.keep.q.val();
        self.m.tlast.next = self.last.q.val();
        self.m.tvalid.next = self.valid.q.val();
        self.idle.next = !self.have_lo.q.val() & !self.valid.q.val();
    }
}

/// 8 → 4 octets per beat, combinational but for the half-select register: a beat leaves as
/// its lower half and then, unless its upper four octets are all off (only a frame's last beat
/// may end early), its upper half. `s_side` (a frame's side channel) rides with both halves.
#[derive(LogicBlock, Default)]
pub struct Narrow {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<64, 8>,
    pub s_side: Signal<In, Bits<21>>,
    pub m: AxisSource<32, 4>,
    pub m_side: Signal<Out, Bits<21>>,
    /// The upper half of the beat on `s` is next.
    high: DFF<Bit>,
    /// The beat on `s` leaves as one narrow beat (its upper half is empty).
    one: Signal<Local, Bit>,
}

impl Logic for Narrow {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, high);
        self.one.next = self.s.tkeep.val().get_bits::<4>(4) == 0;
        self.m.tdata.next = self.s.tdata.val().get_bits::<32>(0);
        self.m.tkeep.next = self.s.tkeep.val().get_bits::<4>(0);
        self.m.tlast.next = self.s.tlast.val() & self.one.val();
        self.s.tready.next = self.m.tready.val() & self.one.val();
        if self.high.q.val() {
            self.m.tdata.next = self.s.tdata.val().get_bits::<32>(32);
            self.m.tkeep.next = self.s.tkeep.val().get_bits::<4>(4);
            self.m.tlast.next = self.s.tlast.val();
            self.s.tready.next = self.m.tready.val();
        }
        self.m.tvalid.next = self.s.tvalid.val();
        self.m_side.next = self.s_side.val();
        if self.s.tvalid.val() & self.m.tready.val() {
            self.high.d.next = !self.high.q.val() & !self.one.val();
        }
        if self.reset.val() {
            self.high.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Narrow, Widen};
    use crate::testbench::{ClockedModel, HdlModel};
    use rand::{Rng, SeedableRng};

    /// Random frames (lengths 1..=40) through `Widen` then, beat for beat, the wide beats read
    /// back with random back-pressure: the octets, `tkeep` and `tlast` of every frame survive,
    /// and every wide beat but a frame's last is full.
    #[test]
    fn widen_pairs_beats_under_back_pressure() {
        let mut m: HdlModel<Widen> = crate::hdl_model!(
            Widen::default(),
            Widen,
            [reset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, m.tdata, m.tkeep, m.tvalid, m.tlast, m.tready, idle]
        )
        .unwrap();
        let p = |m: &HdlModel<Widen>, n: &str| m.port_id(n).unwrap();
        let (sd, sk, sv, sl, sr) = (p(&m, "s_tdata"), p(&m, "s_tkeep"), p(&m, "s_tvalid"), p(&m, "s_tlast"), p(&m, "s_tready"));
        let (md, mk, mv, ml, mr, idle) = (p(&m, "m_tdata"), p(&m, "m_tkeep"), p(&m, "m_tvalid"), p(&m, "m_tlast"), p(&m, "m_tready"), p(&m, "idle"));
        m.reset(1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(64);
        let frames: Vec<Vec<u8>> = (0..300).map(|_| (0..rng.gen_range(1..=40)).map(|_| rng.gen()).collect()).collect();
        let beats: Vec<(u64, u64, bool)> = frames
            .iter()
            .flat_map(|f| {
                let n = f.chunks(4).count();
                f.chunks(4)
                    .enumerate()
                    .map(|(i, c)| {
                        let mut w = [0u8; 4];
                        w[..c.len()].copy_from_slice(c);
                        (u32::from_le_bytes(w) as u64, (1u64 << c.len()) - 1, i + 1 == n)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let (mut next, mut out, mut cur, mut offered) = (0, Vec::new(), Vec::new(), false);
        for cycle in 0..20_000 {
            // A beat once offered stays until taken (AXI-Stream).
            offered |= next < beats.len() && rng.gen_bool(0.7);
            if offered {
                let (d, k, l) = beats[next];
                m.set(sd, d);
                m.set(sk, k);
                m.set(sl, l as u64);
            }
            m.set(sv, offered as u64);
            m.set(mr, rng.gen_bool(0.6) as u64);
            m.eval();
            if offered && m.get(sr) != 0 {
                next += 1;
                offered = false;
            }
            if m.get(mv) != 0 && m.get(mr) != 0 {
                let (k, l) = (m.get(mk), m.get(ml) != 0);
                assert!(l || k == 0xFF, "cycle {cycle}: a short beat before the last");
                assert_eq!(k & (k + 1), 0, "cycle {cycle}: tkeep {k:#x}");
                cur.extend_from_slice(&m.get(md).to_le_bytes()[..k.count_ones() as usize]);
                if l {
                    out.push(std::mem::take(&mut cur));
                }
            }
            m.tick();
            if next == beats.len() && out.len() == frames.len() {
                break;
            }
        }
        assert_eq!(out, frames);
        m.set(sv, 0);
        m.eval();
        assert_ne!(m.get(idle), 0, "idle after the last frame left");
    }

    /// Wide frames (lengths 1..=40, with a side value each) through `Narrow` under random
    /// back-pressure: the narrow beats carry the same octets, frame ends and side values.
    #[test]
    fn narrow_splits_beats_and_keeps_the_side_channel() {
        let mut m: HdlModel<Narrow> = crate::hdl_model!(
            Narrow::default(),
            Narrow,
            [reset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, s_side, m.tdata, m.tkeep, m.tvalid, m.tlast, m.tready, m_side]
        )
        .unwrap();
        let p = |m: &HdlModel<Narrow>, n: &str| m.port_id(n).unwrap();
        let (sd, sk, sv, sl, sr, ss) = (p(&m, "s_tdata"), p(&m, "s_tkeep"), p(&m, "s_tvalid"), p(&m, "s_tlast"), p(&m, "s_tready"), p(&m, "s_side"));
        let (md, mk, mv, ml, mr, ms) = (p(&m, "m_tdata"), p(&m, "m_tkeep"), p(&m, "m_tvalid"), p(&m, "m_tlast"), p(&m, "m_tready"), p(&m, "m_side"));
        m.reset(1);
        let mut rng = rand::rngs::StdRng::seed_from_u64(32);
        let frames: Vec<(Vec<u8>, u64)> =
            (0..300).map(|_| ((0..rng.gen_range(1..=40)).map(|_| rng.gen()).collect(), rng.gen_range(0..1 << 21))).collect();
        let beats: Vec<(u64, u64, bool, u64)> = frames
            .iter()
            .flat_map(|(f, side)| {
                let n = f.chunks(8).count();
                f.chunks(8)
                    .enumerate()
                    .map(|(i, c)| {
                        let mut w = [0u8; 8];
                        w[..c.len()].copy_from_slice(c);
                        (u64::from_le_bytes(w), (1u64 << c.len()) - 1, i + 1 == n, *side)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let (mut next, mut out, mut cur, mut offered) = (0, Vec::new(), Vec::new(), false);
        let mut narrow_beats = 0;
        for cycle in 0..40_000 {
            offered |= next < beats.len() && rng.gen_bool(0.7);
            let (d, k, l, s) = beats[next.min(beats.len() - 1)];
            m.set(sd, d);
            m.set(sk, k);
            m.set(sl, l as u64);
            m.set(ss, s);
            m.set(sv, offered as u64);
            m.set(mr, rng.gen_bool(0.6) as u64);
            m.eval();
            if m.get(mv) != 0 && m.get(mr) != 0 {
                narrow_beats += 1;
                let k = m.get(mk);
                assert_eq!(m.get(ms), s, "cycle {cycle}: side");
                cur.extend_from_slice(&(m.get(md) as u32).to_le_bytes()[..k.count_ones() as usize]);
                if m.get(ml) != 0 {
                    out.push((std::mem::take(&mut cur), s));
                }
            }
            if offered && m.get(sr) != 0 {
                next += 1;
                offered = false;
            }
            m.tick();
            if out.len() == frames.len() {
                break;
            }
        }
        assert_eq!(out, frames);
        let want: usize = frames.iter().map(|(f, _)| f.len().div_ceil(4)).sum();
        assert_eq!(narrow_beats, want, "one narrow beat per 4 octets, no empty upper halves");
    }
}
