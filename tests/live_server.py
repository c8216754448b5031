"""Run the real app on a real uvicorn server in a background thread.

For the browser tests and the screenshot script (``tests/screenshots.py``): they need a
server that speaks real HTTP and WebSocket on a localhost port while the
caller keeps a handle on the :class:`~tablecam.server.hub.TableHub`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Iterator

from tablecam.server.config import websocket_impl

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@contextlib.contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) of ``app`` served by uvicorn until the block ends."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", ws=websocket_impl())
    server = uvicorn.Server(config)
    th = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="uvicorn")
    th.start()
    deadline = time.time() + 20
    while not server.started:
        if not th.is_alive() or time.time() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        th.join(10)
        sock.close()


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium under Playwright (never ``playwright install``)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
