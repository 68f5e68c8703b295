//! SOF/EOF frame delimiters and the other ordered sets of the FC/SCTP draft, Annex A.
//!
//! On an FC link a delimiter is a 4-character ordered set (K28.5 then three data characters).
//! The draft carries it as a one-octet *OS code*: the fourth character plus the low hex digit
//! of the second (A.1), which makes the code independent of running disparity. The table below
//! lists every code of A.2 with its ordered set as sent at negative running disparity; EOFs
//! also have a positive-disparity form (second character D21.5 / D10.5 instead of D21.4 /
//! D10.4), accepted by [`OrderedSet::from_word`]. A.3's primitive sequences are [`Oss`].

use super::FcError;

/// Start-of-frame delimiters (Annex A.2). Class 3 SCSI-FCP uses SOFi3 and SOFn3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sof {
    /// SOFc1, Connect Class 1.
    C1,
    /// SOFi1, Initiate Class 1.
    I1,
    /// SOFn1, Normal Class 1.
    N1,
    /// SOFi2, Initiate Class 2.
    I2,
    /// SOFn2, Normal Class 2.
    N2,
    /// SOFi3, Initiate Class 3: the first frame of a sequence.
    I3,
    /// SOFn3, Normal Class 3: every later frame of the sequence.
    N3,
    /// SOFc4, Activate Class 4.
    C4,
    /// SOFi4, Initiate Class 4.
    I4,
    /// SOFn4, Normal Class 4.
    N4,
    /// SOFf, Fabric.
    F,
}

/// End-of-frame delimiters (Annex A.2). Class 3 SCSI-FCP uses EOFn and EOFt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eof {
    /// EOFt, Terminate: the last frame of the last sequence of an exchange.
    T,
    /// EOFdt, Disconnect-Terminate.
    Dt,
    /// EOFa, Abort.
    A,
    /// EOFn, Normal.
    N,
    /// EOFdti, Disconnect-Terminate-Invalid.
    Dti,
    /// EOFni, Normal-Invalid.
    Ni,
}

/// The two non-delimiter ordered sets listed in Annex A.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveSignal {
    Idle,
    /// R_RDY, Receiver Ready (a buffer-to-buffer credit returned on an FC link).
    RRdy,
}

/// Any ordered set of Annex A.2, by its OS code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OrderedSet {
    Sof(Sof),
    Eof(Eof),
    Signal(PrimitiveSignal),
}

/// K28.5, the comma character every ordered set starts with.
pub const K28_5: u8 = 0xBC;

/// (OS code, name, ordered set at negative running disparity), in the order of Annex A.2.
const TABLE: [(u8, &str, [u8; 4], OrderedSet); 19] = [
    (
        0x1C,
        "SOFc1",
        [K28_5, 0xB5, 0x17, 0x17],
        OrderedSet::Sof(Sof::C1),
    ),
    (
        0x5C,
        "SOFi1",
        [K28_5, 0xB5, 0x57, 0x57],
        OrderedSet::Sof(Sof::I1),
    ),
    (
        0x3C,
        "SOFn1",
        [K28_5, 0xB5, 0x37, 0x37],
        OrderedSet::Sof(Sof::N1),
    ),
    (
        0x5A,
        "SOFi2",
        [K28_5, 0xB5, 0x55, 0x55],
        OrderedSet::Sof(Sof::I2),
    ),
    (
        0x3A,
        "SOFn2",
        [K28_5, 0xB5, 0x35, 0x35],
        OrderedSet::Sof(Sof::N2),
    ),
    (
        0x5B,
        "SOFi3",
        [K28_5, 0xB5, 0x56, 0x56],
        OrderedSet::Sof(Sof::I3),
    ),
    (
        0x3B,
        "SOFn3",
        [K28_5, 0xB5, 0x36, 0x36],
        OrderedSet::Sof(Sof::N3),
    ),
    (
        0x1E,
        "SOFc4",
        [K28_5, 0xB5, 0x19, 0x19],
        OrderedSet::Sof(Sof::C4),
    ),
    (
        0x5E,
        "SOFi4",
        [K28_5, 0xB5, 0x59, 0x59],
        OrderedSet::Sof(Sof::I4),
    ),
    (
        0x3E,
        "SOFn4",
        [K28_5, 0xB5, 0x39, 0x39],
        OrderedSet::Sof(Sof::N4),
    ),
    (
        0x5D,
        "SOFf",
        [K28_5, 0xB5, 0x58, 0x58],
        OrderedSet::Sof(Sof::F),
    ),
    (
        0x7A,
        "EOFt",
        [K28_5, 0x95, 0x75, 0x75],
        OrderedSet::Eof(Eof::T),
    ),
    (
        0x9A,
        "EOFdt",
        [K28_5, 0x95, 0x95, 0x95],
        OrderedSet::Eof(Eof::Dt),
    ),
    (
        0xFA,
        "EOFa",
        [K28_5, 0x95, 0xF5, 0xF5],
        OrderedSet::Eof(Eof::A),
    ),
    (
        0xDA,
        "EOFn",
        [K28_5, 0x95, 0xD5, 0xD5],
        OrderedSet::Eof(Eof::N),
    ),
    (
        0x9F,
        "EOFdti",
        [K28_5, 0x8A, 0x95, 0x95],
        OrderedSet::Eof(Eof::Dti),
    ),
    (
        0xDF,
        "EOFni",
        [K28_5, 0x8A, 0xD5, 0xD5],
        OrderedSet::Eof(Eof::Ni),
    ),
    (
        0xBA,
        "Idle",
        [K28_5, 0x95, 0xB5, 0xB5],
        OrderedSet::Signal(PrimitiveSignal::Idle),
    ),
    // R_RDY is listed with code 0x4A in A.2 although the A.1 rule would give 0x4F (it is not
    // a frame delimiter, so the rule does not bind it): the table is followed.
    (
        0x4A,
        "R_RDY",
        [K28_5, 0x95, 0x4A, 0x4A],
        OrderedSet::Signal(PrimitiveSignal::RRdy),
    ),
];

impl OrderedSet {
    /// Every ordered set of Annex A.2, in table order.
    pub fn all() -> impl Iterator<Item = OrderedSet> {
        TABLE.iter().map(|e| e.3)
    }

    fn entry(self) -> &'static (u8, &'static str, [u8; 4], OrderedSet) {
        TABLE
            .iter()
            .find(|e| e.3 == self)
            .expect("every variant is in TABLE")
    }

    /// The one-octet OS code.
    pub fn code(self) -> u8 {
        self.entry().0
    }

    /// The name as the draft spells it (`SOFi3`, `EOFn`, `R_RDY`).
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    pub fn from_code(code: u8) -> Option<OrderedSet> {
        TABLE.iter().find(|e| e.0 == code).map(|e| e.3)
    }

    /// The 4-octet ordered set at negative running disparity (what an FC-2 capture with
    /// delimiters, pcap link type 225, holds).
    pub fn word(self) -> [u8; 4] {
        self.entry().2
    }

    /// The ordered set at positive running disparity: EOFs change their second character
    /// (D21.4 → D21.5, D10.4 → D10.5); SOFs and the signals have one form here.
    pub fn word_positive(self) -> [u8; 4] {
        let mut w = self.word();
        if let OrderedSet::Eof(_) = self {
            w[1] = match w[1] {
                0x95 => 0xB5,
                0x8A => 0xAA,
                other => other,
            };
        }
        w
    }

    /// Decodes a 4-octet ordered set of either disparity.
    pub fn from_word(w: [u8; 4]) -> Result<OrderedSet, FcError> {
        TABLE
            .iter()
            .map(|e| e.3)
            .find(|os| os.word() == w || os.word_positive() == w)
            .ok_or(FcError::UnknownOrderedSet { word: w })
    }
}

impl Sof {
    pub const ALL: [Sof; 11] = [
        Sof::C1,
        Sof::I1,
        Sof::N1,
        Sof::I2,
        Sof::N2,
        Sof::I3,
        Sof::N3,
        Sof::C4,
        Sof::I4,
        Sof::N4,
        Sof::F,
    ];

    pub fn code(self) -> u8 {
        OrderedSet::Sof(self).code()
    }

    pub fn name(self) -> &'static str {
        OrderedSet::Sof(self).name()
    }

    pub fn word(self) -> [u8; 4] {
        OrderedSet::Sof(self).word()
    }

    pub fn from_code(code: u8) -> Result<Sof, FcError> {
        match OrderedSet::from_code(code) {
            Some(OrderedSet::Sof(s)) => Ok(s),
            _ => Err(FcError::UnknownSof { code }),
        }
    }

    pub fn from_word(w: [u8; 4]) -> Result<Sof, FcError> {
        match OrderedSet::from_word(w)? {
            OrderedSet::Sof(s) => Ok(s),
            _ => Err(FcError::UnknownOrderedSet { word: w }),
        }
    }

    /// Whether this SOF starts a sequence (SOFi*, SOFc*, SOFf): the first frame of each
    /// sequence carries one, the rest carry SOFn*.
    pub fn is_initiate(self) -> bool {
        !matches!(self, Sof::N1 | Sof::N2 | Sof::N3 | Sof::N4)
    }
}

impl Eof {
    pub const ALL: [Eof; 6] = [Eof::T, Eof::Dt, Eof::A, Eof::N, Eof::Dti, Eof::Ni];

    pub fn code(self) -> u8 {
        OrderedSet::Eof(self).code()
    }

    pub fn name(self) -> &'static str {
        OrderedSet::Eof(self).name()
    }

    pub fn word(self) -> [u8; 4] {
        OrderedSet::Eof(self).word()
    }

    pub fn from_code(code: u8) -> Result<Eof, FcError> {
        match OrderedSet::from_code(code) {
            Some(OrderedSet::Eof(e)) => Ok(e),
            _ => Err(FcError::UnknownEof { code }),
        }
    }

    pub fn from_word(w: [u8; 4]) -> Result<Eof, FcError> {
        match OrderedSet::from_word(w)? {
            OrderedSet::Eof(e) => Ok(e),
            _ => Err(FcError::UnknownOrderedSet { word: w }),
        }
    }

    /// EOFni and EOFdti mark a frame the sender already knew to be invalid.
    pub fn is_invalid(self) -> bool {
        matches!(self, Eof::Ni | Eof::Dti)
    }
}

/// Ordered-set sequences (primitive sequences) seen between frames, the 4-bit OSS field of the
/// prefix (Annex A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Oss {
    #[default]
    None,
    /// NOS, Not Operational.
    Nos,
    /// LRR, Link Reset Response.
    Lrr,
    /// LR, Link Reset.
    Lr,
    /// OLS, Offline.
    Ols,
}

impl Oss {
    pub const ALL: [Oss; 5] = [Oss::None, Oss::Nos, Oss::Lrr, Oss::Lr, Oss::Ols];

    pub fn code(self) -> u8 {
        match self {
            Oss::None => 0,
            Oss::Nos => 1,
            Oss::Lrr => 2,
            Oss::Lr => 3,
            Oss::Ols => 4,
        }
    }

    pub fn from_code(code: u8) -> Result<Oss, FcError> {
        Oss::ALL
            .into_iter()
            .find(|o| o.code() == code)
            .ok_or(FcError::UnknownOss { code })
    }

    pub fn name(self) -> &'static str {
        match self {
            Oss::None => "No Sequence",
            Oss::Nos => "NOS",
            Oss::Lrr => "LRR",
            Oss::Lr => "LR",
            Oss::Ols => "OLS",
        }
    }

    /// Whether the link is up when this sequence is seen: NOS and OLS mean it is not.
    pub fn link_operational(self) -> bool {
        !matches!(self, Oss::Nos | Oss::Ols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A.1: a delimiter's code is its fourth character plus the low hex digit of its second,
    /// whatever the disparity. Checks every SOF/EOF row of the table against its ordered set.
    #[test]
    fn codes_follow_the_a1_rule_in_both_disparities() {
        for os in
            OrderedSet::all().filter(|o| !matches!(o, OrderedSet::Signal(PrimitiveSignal::RRdy)))
        {
            for w in [os.word(), os.word_positive()] {
                assert_eq!(w[0], K28_5);
                assert_eq!(w[2], w[3], "{}", os.name());
                assert_eq!(w[3].wrapping_add(w[1] & 0x0F), os.code(), "{}", os.name());
                assert_eq!(OrderedSet::from_word(w).unwrap(), os);
            }
        }
    }

    #[test]
    fn every_code_round_trips_and_others_are_refused() {
        let mut seen = 0;
        for code in 0..=255u8 {
            match OrderedSet::from_code(code) {
                Some(os) => {
                    seen += 1;
                    assert_eq!(os.code(), code);
                    match os {
                        OrderedSet::Sof(s) => {
                            assert_eq!(Sof::from_code(code).unwrap(), s);
                            assert!(Eof::from_code(code).is_err());
                        }
                        OrderedSet::Eof(e) => {
                            assert_eq!(Eof::from_code(code).unwrap(), e);
                            assert!(Sof::from_code(code).is_err());
                        }
                        OrderedSet::Signal(_) => {
                            assert!(Sof::from_code(code).is_err() && Eof::from_code(code).is_err())
                        }
                    }
                }
                None => {
                    assert_eq!(Sof::from_code(code), Err(FcError::UnknownSof { code }));
                    assert_eq!(Eof::from_code(code), Err(FcError::UnknownEof { code }));
                }
            }
        }
        assert_eq!(seen, 19);
        assert_eq!(Sof::ALL.len() + Eof::ALL.len() + 2, 19);
    }

    #[test]
    fn class3_codes_from_the_table() {
        assert_eq!(Sof::I3.code(), 0x5B);
        assert_eq!(Sof::N3.code(), 0x3B);
        assert_eq!(Eof::N.code(), 0xDA);
        assert_eq!(Eof::T.code(), 0x7A);
        assert_eq!(Sof::I3.word(), [0xBC, 0xB5, 0x56, 0x56]);
        assert_eq!(Eof::N.word(), [0xBC, 0x95, 0xD5, 0xD5]);
    }

    #[test]
    fn oss_codes() {
        for (i, o) in Oss::ALL.into_iter().enumerate() {
            assert_eq!(o.code() as usize, i);
            assert_eq!(Oss::from_code(i as u8).unwrap(), o);
        }
        assert_eq!(Oss::from_code(5), Err(FcError::UnknownOss { code: 5 }));
        assert!(!Oss::Nos.link_operational() && Oss::Lr.link_operational());
    }
}
