//! Buffer-to-buffer credit carried in the prefix (C bit, Tcredit), per stream.
//!
//! The draft: credit is established as BB_Credit at login; each frame the client sends uses
//! one; the server returns used credits, or grants additional ones, in Tcredit. When the
//! server sets C, Tcredit is its current debit (frames it holds) and every additional credit
//! granted is withdrawn; the client acknowledges by setting C on its next message. The client
//! never sets Tcredit.
//!
//! **Decision**: the server asserts login credit (C set, Tcredit = its debit, 0) on a stream
//! right after assigning it, and the client sends no frame on the stream before that; its
//! first frame carries the acknowledging C. Credit is thus never in flight across the
//! assertion.
//!
//! A return and a grant look alike on the wire (both add to Tcredit); the client folds any
//! Tcredit beyond what it has outstanding into additional credit, which leaves the credit it
//! may use exactly the server's room either way.

use super::prefix::{Prefix, MAX_TCREDIT};

/// The client's view of one stream's credit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCredit {
    login: u32,
    extra: u32,
    outstanding: u32,
    ack_pending: bool,
    asserted: bool,
}

impl ClientCredit {
    pub fn new(login_credit: u16) -> ClientCredit {
        ClientCredit {
            login: login_credit as u32,
            extra: 0,
            outstanding: 0,
            ack_pending: false,
            asserted: false,
        }
    }

    /// Whether the server has asserted login credit (a prefix with C set has come).
    pub fn asserted(&self) -> bool {
        self.asserted
    }

    /// Frames the client may send now (none before the server asserted login credit).
    pub fn available(&self) -> u32 {
        if !self.asserted {
            return 0;
        }
        (self.login + self.extra).saturating_sub(self.outstanding)
    }

    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Uses one credit for a frame about to be sent; false (and nothing used) when none is
    /// left.
    pub fn take(&mut self) -> bool {
        if self.available() == 0 {
            return false;
        }
        self.outstanding += 1;
        true
    }

    /// Accounts the credit fields of a prefix from the server.
    pub fn on_server_prefix(&mut self, p: &Prefix) {
        let t = p.tcredit as u32;
        if p.credit_reset {
            self.outstanding = t;
            self.extra = 0;
            self.ack_pending = true;
            self.asserted = true;
        } else {
            let returned = t.min(self.outstanding);
            self.outstanding -= returned;
            self.extra = self.extra.saturating_add(t - returned);
        }
    }

    /// Fills the client's credit fields: C echoes a reset once, Tcredit stays 0.
    pub fn stamp(&mut self, p: &mut Prefix) {
        p.credit_reset = std::mem::take(&mut self.ack_pending);
        p.tcredit = 0;
    }
}

/// The server's accounting of one stream's credit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerCredit {
    login: u32,
    extra: u32,
    debit: u32,
    to_return: u32,
    reset_pending: bool,
    awaiting_ack: bool,
}

impl ServerCredit {
    pub fn new(login_credit: u16) -> ServerCredit {
        ServerCredit {
            login: login_credit as u32,
            extra: 0,
            debit: 0,
            to_return: 0,
            reset_pending: false,
            awaiting_ack: false,
        }
    }

    /// Frames held for the client now.
    pub fn debit(&self) -> u32 {
        self.debit
    }

    /// Credit the client may hold in total (login + additional).
    pub fn limit(&self) -> u32 {
        self.login + self.extra
    }

    /// A frame arrived: false when the client had no credit for it (the frame is to be
    /// dropped; its credit is returned).
    pub fn on_frame(&mut self) -> bool {
        if self.debit + self.to_return >= self.limit() && !self.awaiting_ack {
            self.to_return += 1;
            return false;
        }
        self.debit += 1;
        true
    }

    /// The buffer of a frame was freed (it went on to FC, or was dropped as stale).
    pub fn on_freed(&mut self) {
        if self.debit > 0 {
            self.debit -= 1;
            self.to_return += 1;
        }
    }

    /// Grants `n` additional credits.
    pub fn grant(&mut self, n: u32) {
        self.extra += n;
        self.to_return += n;
    }

    /// Reasserts login credit: the next prefix carries C and the current debit, and additional
    /// credit is withdrawn.
    pub fn reset(&mut self) {
        self.reset_pending = true;
    }

    /// Whether a prefix needs sending to tell the client something.
    pub fn pending(&self) -> bool {
        self.reset_pending || self.to_return > 0
    }

    /// The client's C bit acknowledges a reset.
    pub fn on_client_prefix(&mut self, p: &Prefix) {
        if p.credit_reset {
            self.awaiting_ack = false;
        }
    }

    pub fn awaiting_ack(&self) -> bool {
        self.awaiting_ack
    }

    /// Fills the server's credit fields of an outgoing prefix.
    pub fn stamp(&mut self, p: &mut Prefix) {
        if self.reset_pending {
            self.reset_pending = false;
            self.awaiting_ack = true;
            self.extra = 0;
            self.to_return = 0;
            p.credit_reset = true;
            p.tcredit = self.debit.min(MAX_TCREDIT as u32) as u16;
        } else {
            let n = self.to_return.min(MAX_TCREDIT as u32);
            self.to_return -= n;
            p.credit_reset = false;
            p.tcredit = n as u16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Client and server stay in step through sends, returns, grants and a reset.
    #[test]
    fn credit_round_trip() {
        let mut c = ClientCredit::new(4);
        let mut s = ServerCredit::new(4);
        assert!(!c.take(), "nothing before the server asserts login credit");
        s.reset();
        let mut login = Prefix::default();
        s.stamp(&mut login);
        assert!(login.credit_reset && login.tcredit == 0);
        c.on_server_prefix(&login);
        assert!(c.asserted());
        let mut first = Prefix::default();
        c.stamp(&mut first);
        assert!(first.credit_reset, "the first frame acknowledges");
        s.on_client_prefix(&first);
        assert!(!s.awaiting_ack());
        for _ in 0..4 {
            assert!(c.take());
            assert!(s.on_frame());
        }
        assert!(!c.take(), "login credit used up");
        assert_eq!(c.available(), 0);
        s.on_freed();
        s.on_freed();
        let mut p = Prefix::default();
        s.stamp(&mut p);
        assert_eq!((p.credit_reset, p.tcredit), (false, 2));
        c.on_server_prefix(&p);
        assert_eq!(c.available(), 2);
        // Additional credit.
        s.grant(3);
        let mut p = Prefix::default();
        s.stamp(&mut p);
        c.on_server_prefix(&p);
        assert_eq!(c.available(), 5);
        assert_eq!(s.limit(), 7);
        // Reset: the debit is reported and the grant withdrawn.
        s.reset();
        let mut p = Prefix::default();
        s.stamp(&mut p);
        assert!(p.credit_reset);
        assert_eq!(p.tcredit, 2, "two frames still held");
        c.on_server_prefix(&p);
        assert_eq!(c.available(), 2);
        let mut ack = Prefix {
            tcredit: 9,
            ..Default::default()
        };
        c.stamp(&mut ack);
        assert!(ack.credit_reset && ack.tcredit == 0);
        s.on_client_prefix(&ack);
        assert!(!s.awaiting_ack());
        let mut again = Prefix::default();
        c.stamp(&mut again);
        assert!(!again.credit_reset, "the acknowledgement is sent once");
    }

    #[test]
    fn overrun_is_refused_and_its_credit_returned() {
        let mut s = ServerCredit::new(1);
        assert!(s.on_frame());
        assert!(!s.on_frame());
        assert_eq!(s.debit(), 1);
        let mut p = Prefix::default();
        s.stamp(&mut p);
        assert_eq!(p.tcredit, 1);
    }

    #[test]
    fn tcredit_is_capped_at_ten_bits() {
        let mut s = ServerCredit::new(0);
        s.grant(5000);
        let mut total = 0;
        while s.pending() {
            let mut p = Prefix::default();
            s.stamp(&mut p);
            assert!(p.tcredit <= MAX_TCREDIT);
            total += p.tcredit as u32;
        }
        assert_eq!(total, 5000);
    }
}
