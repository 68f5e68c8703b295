//! The NVMe-MI Admin command parser and its execution against the subsystem model on
//! arbitrary request data: never a panic; a parsed request re-encodes to itself; the answer is
//! bounded (at most 4 KiB of data), well formed and decodes to itself; an answer rejected at
//! the NVMe-MI level (Invalid Parameter) leaves the model unchanged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::nvme::subsystem::{Namespace, Subsystem};
use offload_driver::nvme_mi::admin::{respond, AdminRequest, AdminResponse, MAX_DATA_LEN};
use offload_driver::nvme_mi::{decode_oob, status};

fuzz_target!(|data: &[u8]| {
    let Ok(req) = AdminRequest::decode_data(data) else {
        return;
    };
    let m = req.encode(false).expect("a parsed request encodes");
    let (_, d) = decode_oob(&m).unwrap();
    assert_eq!(AdminRequest::decode_data(d).unwrap(), req);

    let mut s = Subsystem::new(
        2,
        vec![Namespace::with_size(1, 1 << 20, 512).unwrap(), Namespace::with_size(3, 1 << 22, 4096).unwrap()],
    );
    let before = s.clone();
    let a = respond(&mut s, &req);
    assert!(a.data.len() <= MAX_DATA_LEN);
    assert!(a.data.len() <= req.data_len as usize);
    if a.status == status::INVALID_PARAMETER {
        assert_eq!(s, before);
    }
    let r = a.encode(false).expect("an answer fits the out-of-band limit");
    assert_eq!(AdminResponse::decode(&r).unwrap(), a);
});
