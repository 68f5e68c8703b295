//! The NVMe-MI responder's request parser on arbitrary messages: never a panic, and every
//! answer is a response of the request's message type with a good MIC (a request with a bad
//! MIC gets none).
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::stack::nvme_mi::MiRequest;
use offload_driver::mctp::stack::nvme_mi_responder::NvmeMiResponder;
use offload_driver::nvme_mi;

fuzz_target!(|data: &[u8]| {
    let mut r = NvmeMiResponder::default();
    let answers = r.handle(data);
    if nvme_mi::verify_mic(data).is_err() || data.len() > nvme_mi::OOB_MAX_MESSAGE_LEN {
        assert!(answers.is_empty());
    }
    for a in answers {
        let (h, _) = nvme_mi::decode_oob(&a).expect("a valid NVMe-MI message");
        assert!(h.response);
        assert_eq!(h.nmimt as u8, (data[1] >> 3) & 0xF, "NMIMT echoed");
    }
    if let Ok(req) = MiRequest::decode_data(data) {
        let m = req.encode();
        if let Ok(m) = m {
            let (_, d) = nvme_mi::decode_oob(&m).unwrap();
            assert_eq!(MiRequest::decode_data(d).unwrap(), req);
        }
    }
});
