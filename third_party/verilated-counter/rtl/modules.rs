// Port lists for verilator::module::ModuleGenerator (read by build.rs, not compiled).

#[module(counter)]
pub struct Counter {
    #[port(clock)]
    pub clk: bool,
    #[port(reset)]
    pub reset: bool,
    #[port(input)]
    pub enable: bool,
    #[port(output)]
    pub count: [bool; 8],
}

#[module(blink)]
pub struct Blink {
    #[port(clock)]
    pub clk: bool,
    #[port(reset)]
    pub reset: bool,
    #[port(output)]
    pub led: bool,
}
