"""Host the official A2C-SMCP Python Server (a2c-smcp) on loopback.

The assembly is the one a2c-smcp documents: an asyncio python-socketio
AsyncServer with the SDK's SMCPNamespace registered, mounted by
socketio.ASGIApp under --path and wrapped in the SDK's
A2CProtocolVersionASGIMiddleware (the a2c_version handshake), served by
uvicorn. Authentication is the SDK's DefaultAuthenticationProvider when
--token is given (the client must send auth.token), otherwise every client
is let in (the SDK's own testing provider).

Prints "READY <port>" on stdout once it accepts connections; stops on
SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import sys

import socketio
import uvicorn
from a2c_smcp import PROTOCOL_VERSION
from a2c_smcp.server import A2CProtocolVersionASGIMiddleware, DefaultAuthenticationProvider, SMCPNamespace
from a2c_smcp.testing import PermissiveAuthenticationProvider


def build_app(path: str, token: str | None):
    auth = DefaultAuthenticationProvider(admin_secret=token) if token else PermissiveAuthenticationProvider()
    sio = socketio.AsyncServer(async_mode="asgi", cors_allowed_origins="*")
    sio.register_namespace(SMCPNamespace(auth))
    app = socketio.ASGIApp(sio, socketio_path=path)
    return A2CProtocolVersionASGIMiddleware(app, socketio_path=path, server_version=PROTOCOL_VERSION)


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    ap.add_argument("--path", default="/socket.io", help="Socket.IO HTTP path (socketio_path)")
    ap.add_argument("--token", default=None, help="shared token clients must send as auth.token")
    args = ap.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]

    config = uvicorn.Config(build_app(args.path, args.token), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: setattr(server, "should_exit", True))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            return 1
        await asyncio.sleep(0.02)
    print(f"READY {port}", flush=True)
    await serving
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
