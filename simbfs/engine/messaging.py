"""Messaging layers: what software costs a node to send and receive.

A messaging layer is a small strategy object that says how a node's traffic
is charged software overhead. The network prices the bytes (ports, links,
routes); the messaging layer prices the work of the processors that post and
drain them. There are two layers:

* :class:`DirectPackets`: every network packet is posted and received by
  software (BlueGene/Q's SPI, a Cell SPE's DMA puts): ``send_overhead`` per
  packet sent and ``receive_overhead`` per packet received, from the
  machine's ``messaging:`` section;
* :class:`MPIMessages`: an MPI all-to-all posts one message per destination
  and the hardware moves its packets: a fixed overhead per message sent and
  per message received (cp1d-mpi's ``cp1d.mpi_message_overhead``).

The contract (every layer implements both methods, for scalars and numpy
arrays alike, with no simpy in them):

``overhead_s(packets_out, packets_in, messages_out, messages_in)``
    A node's total software time for one exchange in which it sends and
    receives those counts. An executed exchange calls it with per-node
    arrays and takes the maximum; a projection calls it with its estimate of
    the busiest node's counts.
``send_s(packets, messages)`` and ``receive_s(packets, messages)``
    The two ends of one message timed on its own (``Network.arrival_time``):
    the sender's time before it enters the network, the receiver's after.

Sunway's relayed messages (lin1d: each pair forwarded through the relay
node in the destination's group at the sender's column, 003 4.4) are not a
layer: the lin1d package
prices their software costs itself (algorithms/lin1d/pricing.py), from the
same ``messaging:`` section.
"""

from __future__ import annotations

from ..machine.model import MessagingModel


class MessagingLayer:
    """Base class; see the module docstring for the contract."""

    name = "abstract"

    def overhead_s(self, packets_out, packets_in, messages_out=0.0, messages_in=0.0):  # pragma: no cover
        raise NotImplementedError

    def send_s(self, packets, messages=1.0):  # pragma: no cover - interface
        raise NotImplementedError

    def receive_s(self, packets, messages=1.0):  # pragma: no cover - interface
        raise NotImplementedError


class DirectPackets(MessagingLayer):
    """Software posts and receives every packet (SPI, DMA puts)."""

    name = "direct"

    def __init__(self, messaging: MessagingModel):
        self.send_overhead_s = messaging.send_overhead_s
        self.receive_overhead_s = messaging.receive_overhead_s

    def overhead_s(self, packets_out, packets_in, messages_out=0.0, messages_in=0.0):
        return packets_out * self.send_overhead_s + packets_in * self.receive_overhead_s

    def send_s(self, packets, messages=1.0):
        return packets * self.send_overhead_s

    def receive_s(self, packets, messages=1.0):
        return packets * self.receive_overhead_s


class MPIMessages(MessagingLayer):
    """One MPI message per destination; its packets are moved by hardware."""

    name = "mpi"

    def __init__(self, message_overhead_s: float):
        self.message_overhead_s = message_overhead_s

    def overhead_s(self, packets_out, packets_in, messages_out=0.0, messages_in=0.0):
        return (messages_out + messages_in) * self.message_overhead_s

    def send_s(self, packets, messages=1.0):
        return messages * self.message_overhead_s

    def receive_s(self, packets, messages=1.0):
        return messages * self.message_overhead_s
