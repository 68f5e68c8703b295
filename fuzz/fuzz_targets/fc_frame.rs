//! The FC/SCTP chunk parser (prefix + frame body) and the delimited-frame parser on arbitrary
//! bytes: never a panic, and whatever parses encodes back to the same octets (a CRC-checked
//! frame re-encodes bit for bit; an N-bit frame gets a valid CRC and parses again).
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::fc::{Encapsulated, FcFrame, PREFIX_LEN};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = Encapsulated::decode(data) {
        let again = m.encode().expect("a decoded chunk encodes");
        match &m {
            Encapsulated::Frame { prefix, frame } => {
                if !prefix.crc_invalid && frame.optional.df_ctl_bits().is_ok() {
                    // Fill octets are sent as zeros, so compare through a second decode.
                    assert_eq!(Encapsulated::decode(&again).expect("re-decodes"), m);
                    assert_eq!(again.len(), data.len());
                }
                let fixed = frame.encode_delimited().expect("encodes");
                assert_eq!(&FcFrame::decode_delimited(&fixed).expect("valid CRC"), frame);
            }
            Encapsulated::Signal { .. } => {
                assert_eq!(again.len(), PREFIX_LEN);
                assert_eq!(again[..], data[..PREFIX_LEN]);
            }
        }
    }
    if let Ok(f) = FcFrame::decode_delimited(data) {
        let again = f.encode_delimited().expect("encodes");
        assert_eq!(again.len(), data.len());
        assert_eq!(FcFrame::decode_delimited(&again).expect("re-decodes"), f);
    }
});
