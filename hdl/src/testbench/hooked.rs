//! A model seen through two hooks, for the tests that drive a port wrong on its way in or watch
//! an internal signal clock by clock, so that none needs a wrapper of its own that forwards
//! every method of [`ClockedModel`].

use super::model::{ClockedModel, PortId};
use crate::ports::Dir;

/// `inner`, with `on_set` mapping each value [`ClockedModel::set`] drives (port and value to
/// the value passed on; `set_bytes` passes through unmapped) and `on_tick` seeing the model as
/// it is before each clock edge.
pub struct Hooked<M, S, T> {
    pub inner: M,
    on_set: S,
    on_tick: T,
}

impl<M: ClockedModel, S: FnMut(PortId, u64) -> u64, T: FnMut(&M)> Hooked<M, S, T> {
    pub fn new(inner: M, on_set: S, on_tick: T) -> Self {
        Hooked { inner, on_set, on_tick }
    }
}

impl<M: ClockedModel, S: FnMut(PortId, u64) -> u64, T: FnMut(&M)> ClockedModel for Hooked<M, S, T> {
    fn port_id(&self, name: &str) -> Option<PortId> {
        self.inner.port_id(name)
    }
    fn port_count(&self) -> usize {
        self.inner.port_count()
    }
    fn port_info(&self, p: PortId) -> (&str, Dir, usize) {
        self.inner.port_info(p)
    }
    fn set(&mut self, p: PortId, v: u64) {
        let v = (self.on_set)(p, v);
        self.inner.set(p, v)
    }
    fn get(&self, p: PortId) -> u64 {
        self.inner.get(p)
    }
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
        self.inner.set_bytes(p, bytes)
    }
    fn get_bytes(&self, p: PortId, out: &mut [u8]) {
        self.inner.get_bytes(p, out)
    }
    fn eval(&mut self) {
        self.inner.eval()
    }
    fn tick(&mut self) {
        (self.on_tick)(&self.inner);
        self.inner.tick()
    }
    fn cycle(&self) -> u64 {
        self.inner.cycle()
    }
}
