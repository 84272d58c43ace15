"""The site's application with a fault planted for tests/reliability/test_socket_ends.py: the
table socket frame ``RAISE`` raises inside the consumer's receive handler, as a bug would."""

from ddz_site.asgi import application
from games.live.consumers import TableConsumer

__all__ = ["application"]

RAISE = "RAISE"
_receive = TableConsumer.receive


async def _receive_or_raise(self, text_data=None, bytes_data=None):
    if text_data == RAISE:
        raise RuntimeError("raised on purpose inside a handler (tests/reliability)")
    await _receive(self, text_data, bytes_data)


TableConsumer.receive = _receive_or_raise
