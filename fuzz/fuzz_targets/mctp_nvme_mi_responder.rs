//! The NVMe-MI responder's request parser on arbitrary messages: never a panic, and every
//! answer is an MI Command response with a good MIC (a request with a bad MIC gets none).
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::stack::nvme_mi::{MiRequest, MiResponse, NvmeMiResponder};
use offload_driver::nvme_mi;

fuzz_target!(|data: &[u8]| {
    let r = NvmeMiResponder::default();
    let answers = r.handle(data);
    if nvme_mi::decode_oob(data).is_err() {
        assert!(answers.is_empty());
    }
    for a in answers {
        MiResponse::decode(&a).expect("a valid MI response");
    }
    if let Ok(req) = MiRequest::decode_data(data) {
        let m = req.encode();
        if let Ok(m) = m {
            let (_, d) = nvme_mi::decode_oob(&m).unwrap();
            assert_eq!(MiRequest::decode_data(d).unwrap(), req);
        }
    }
});
