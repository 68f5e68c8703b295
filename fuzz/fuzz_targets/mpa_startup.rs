//! MPA startup on arbitrary bytes, as Responder and as Initiator: never a panic, and consumed
//! counts never exceed what was given.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mpa::startup::{LocalParams, Startup, StartupFrame};

fuzz_target!(|data: &[u8]| {
    let _ = StartupFrame::decode(data);
    for mut s in [
        Startup::responder(LocalParams::default()).unwrap(),
        Startup::initiator(LocalParams::default()).unwrap(),
    ] {
        let _ = s.transmit();
        for chunk in data.chunks(7) {
            match s.receive(chunk) {
                Ok(n) => assert!(n <= chunk.len()),
                Err(_) => break,
            }
            if s.request().is_some() {
                s.accept().unwrap();
            }
        }
    }
});
