//! The depacketizer's twelve drop and delivery counters, all generated from the one list
//! (`offload_driver::mctp_rx_counter_list!`, the order of `offload_driver::mctp::RX_COUNTERS`):
//! the counter bundle at the block's boundary ([`MctpRxCounters`], `counters_messages` …), the
//! one-clock pulses the frame stage raises per verdict ([`MctpRxBumpsSource`]), the bank of
//! 32-bit wrapping counters between them ([`CounterBank`], `#[hdl_gen]`, counting from the pulses
//! registered, [`BumpRegs`]), and [`RxCounters`],
//! the same values with names for tests.

use rust_hdl::prelude::*;

macro_rules! counter_bundles {
    ($($n:ident),*) => {
        /// The depacketizer's counters, 32-bit and wrapping.
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxCountersSink"]
        pub struct MctpRxCounters {
            $(pub $n: Signal<Out, Bits<32>>,)*
        }

        /// The reading side of [`MctpRxCounters`].
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxCounters"]
        pub struct MctpRxCountersSink {
            $(pub $n: Signal<In, Bits<32>>,)*
        }

        /// One pulse per counter: the frame stage's verdicts in the clock it judges a packet.
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxBumps"]
        pub struct MctpRxBumpsSource {
            $(pub $n: Signal<Out, Bit>,)*
        }

        /// The counting side of [`MctpRxBumpsSource`].
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxBumpsSource"]
        pub struct MctpRxBumps {
            $(pub $n: Signal<In, Bit>,)*
        }

        /// The pulses a clock late, a flip-flop each.
        #[derive(LogicBlock, Default)]
        pub struct BumpRegs {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub bump: MctpRxBumps,
            pub late: MctpRxBumpsSource,
            $($n: DFF<Bit>,)*
        }

        impl Logic for BumpRegs {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, $($n),*);
                $(
                    self.late.$n.next = self.$n.q.val();
                    self.$n.d.next = self.bump.$n.val();
                    if self.reset.val() {
                        self.$n.d.next = false;
                    }
                )*
            }
        }

        /// The counters: each adds one two clocks after its pulse. The pulse is registered
        /// first ([`BumpRegs`]), so a counter's enable is a flip-flop placed beside it, not the
        /// frame stage's verdict (`top_w8` at stop 58, seed 1: MCTP RX's `dl_diff` → the
        /// delivery verdict → `messages`' enable across the die, 124.13 MHz). MPA RX's and
        /// MCTP TX's counters count from registered pulses for the same reason.
        #[derive(LogicBlock)]
        pub struct CounterBank {
            pub clock: Signal<In, Clock>,
            /// Synchronous, active high: every counter to zero.
            pub reset: Signal<In, Bit>,
            pub bump: MctpRxBumps,
            pub counters: MctpRxCounters,
            /// The registered pulses, bit `i` counter `i` of the list: they reach the drop
            /// record ([`super::drops::DropRecord`]) in the clock its counter is enabled.
            pub late: Signal<Out, Bits<12>>,
            pulses: BumpRegs,
            late_v: Signal<Local, Bits<12>>,
            c_top: Constant<Bits<12>>,
            $($n: DFF<Bits<32>>,)*
        }

        impl Logic for CounterBank {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, $($n),*);
                clock!(self, clock, pulses);
                self.pulses.reset.next = self.reset.val();
                // Each pulse enters at the top and moves down a bit per counter after it: the
                // list's first ends in bit 0.
                self.late_v.next = 0.into();
                $(
                    self.late_v.next = self.late_v.val() >> 1;
                    if self.pulses.late.$n.val() {
                        self.late_v.next = self.late_v.val() | self.c_top.val();
                    }
                )*
                self.late.next = self.late_v.val();
                $(
                    self.pulses.bump.$n.next = self.bump.$n.val();
                    self.counters.$n.next = self.$n.q.val();
                    if self.pulses.late.$n.val() {
                        self.$n.d.next = self.$n.q.val() + 1;
                    }
                    if self.reset.val() {
                        self.$n.d.next = 0.into();
                    }
                )*
            }
        }

        impl Default for CounterBank {
            fn default() -> Self {
                CounterBank {
                    clock: Default::default(),
                    reset: Default::default(),
                    bump: Default::default(),
                    counters: Default::default(),
                    late: Default::default(),
                    pulses: Default::default(),
                    late_v: Default::default(),
                    c_top: Constant::new((1u64 << 11).into()),
                    $($n: Default::default(),)*
                }
            }
        }

        /// Counter values with names (tests and references), in list order.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct RxCounters {
            $(pub $n: u32,)*
        }

        impl RxCounters {
            /// The counters in [`super::COUNTERS`] order.
            pub fn as_array(&self) -> [u32; 12] {
                [$(self.$n),*]
            }

            /// The counters from an array in [`super::COUNTERS`] order (wrapping to 32 bits).
            pub fn from_array(a: [u64; 12]) -> RxCounters {
                let [$($n),*] = a.map(|v| v as u32);
                RxCounters { $($n),* }
            }
        }

        /// rust-hdl's simulation of the depacketizer behind the testbench's
        /// [`crate::testbench::ClockedModel`], with every port the testbench drives.
        pub fn hdl_model<const D: usize, const K: usize, const RA: usize>(
        ) -> Result<crate::testbench::HdlModel<super::MctpRx<D, K, RA>>, crate::testbench::BenchError> {
            crate::hdl_model!(
                super::MctpRx::<D, K, RA>::default(),
                super::MctpRx<D, K, RA>,
                [
                    reset, cfg.smbus, cfg.mic, cfg.strict, cfg.max_len, s.tdata, s.tkeep, s.tvalid, s.tlast,
                    s.tready, m.tdata, m.tkeep, m.tvalid, m.tlast, m.tready, m_src_eid, m_dst_eid, m_tag, m_to,
                    $(counters.$n),*, drop, drop_context, drop_length
                ]
            )
        }
    };
}
offload_driver::mctp_rx_counter_list!(counter_bundles);
