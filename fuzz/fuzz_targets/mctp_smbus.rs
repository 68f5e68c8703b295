//! SMBus binding decode on arbitrary frames: never a panic, and whatever decodes re-encodes to
//! the same frame (the PEC and byte count leave no slack).
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::smbus;

fuzz_target!(|data: &[u8]| {
    if let Ok((addrs, packet)) = smbus::decode(data) {
        assert_eq!(smbus::encode(&addrs, packet).unwrap(), data);
    }
});
