//! The offload device as a link: messages are packetized by the hardware MCTP packetizer
//! through [`Offload::mctp_transmit`] (the software model, the Verilated Verilog or a board),
//! and the packets it returns go out over an inner binding link. Forwarded packets need no
//! packetizing and go to the inner link as they are. The receive direction has no hardware
//! block yet: it is the inner link's.

use super::link::{LinkError, LinkParts, LinkTx};
use crate::mctp::packetizer::TxConfig;
use crate::mctp::TxRequest;
use crate::offload::Offload;

struct OffloadTx<O: Offload + Send> {
    offload: O,
    inner: Box<dyn LinkTx>,
}

impl<O: Offload + Send> LinkTx for OffloadTx<O> {
    fn send_packet(&mut self, packet: &[u8], hwaddr: Option<u8>) -> Result<(), LinkError> {
        self.inner.send_packet(packet, hwaddr)
    }

    fn send_message(
        &mut self,
        config: &TxConfig,
        hwaddr: Option<u8>,
        message: &[u8],
    ) -> Result<(), LinkError> {
        let req = TxRequest {
            config: *config,
            append_mic: false,
            smbus: None,
        };
        let packets = self
            .offload
            .mctp_transmit(&req, message)
            .map_err(|e| LinkError::Io(format!("offload `{}`: {e}", self.offload.backend())))?;
        for p in &packets {
            self.inner.send_packet(p, hwaddr)?;
        }
        Ok(())
    }
}

/// Puts `offload`'s packetizer in front of `inner`'s binding.
pub fn offload_link<O: Offload + Send + 'static>(offload: O, inner: LinkParts) -> LinkParts {
    LinkParts {
        kind: "offload",
        tx: Box::new(OffloadTx {
            offload,
            inner: inner.tx,
        }),
        ..inner
    }
}
