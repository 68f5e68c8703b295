//! Without Verilator the crate builds, and this says what to install.

#[test]
fn verilator_is_installed() {
    assert!(
        !cfg!(no_verilator),
        "verilated-counter was built without Verilator: install it (apt-get install verilator) and rebuild"
    );
}
