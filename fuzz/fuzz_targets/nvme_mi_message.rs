//! NVMe-MI out-of-band message decode on arbitrary bytes: never a panic; an accepted message has
//! a valid MIC and fits the 4224-octet limit, and its header re-encodes to the same octets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::nvme_mi;

fuzz_target!(|data: &[u8]| {
    if let Ok((header, _body)) = nvme_mi::decode_oob(data) {
        assert!(data.len() <= 4224);
        assert!(nvme_mi::verify_mic(data).is_ok());
        let again = header.encode().unwrap();
        assert_eq!(nvme_mi::NvmeMiHeader::decode(&again).unwrap(), header);
    }
    let _ = nvme_mi::NvmeMiHeader::decode(data);
});
