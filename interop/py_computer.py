"""Run the official A2C-SMCP Python Computer (a2c-smcp) against a Server.

It manages one MCP server, window_server.py beside this file (stdio, a
window:// Desktop with resources.subscribe), offers one user SKILL
(py-hello), connects the SDK's
SMCPComputerClient to --server (the SDK adds its a2c_version and its
polling-first transports) and joins --office as --name with the SDK's
join_office. Prints "READY" once joined, or "JOIN-FAILED <reason>" and
exits 3 when the join is refused or misread; stops on SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
from pathlib import Path

from a2c_smcp.computer.computer import Computer
from a2c_smcp.computer.mcp_clients.model import StdioServerConfig, ToolMeta
from a2c_smcp.computer.socketio.client import SMCPComputerClient
from mcp import StdioServerParameters

HERE = Path(__file__).resolve().parent


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", required=True, help="Server base URL, e.g. http://127.0.0.1:9000")
    ap.add_argument("--office", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--path", default="/socket.io", help="Socket.IO HTTP path (socketio_path)")
    ap.add_argument("--token", default=None)
    args = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="a2c-computer-"))
    # One user SKILL (the SDK's DropIn root <skill_home>/user/<name>/SKILL.md).
    skill = home / "skills" / "user" / "py-hello"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: py-hello\ndescription: Greets from the SDK computer\ntags: [interop]\n---\n# Hello from Python\n"
    )
    window = StdioServerConfig(
        name="win",
        # the SDK asks for a confirmation before every tool call unless
        # auto_apply is set; this unattended Computer applies them
        default_tool_meta=ToolMeta(auto_apply=True),
        server_parameters=StdioServerParameters(command=sys.executable, args=[str(HERE / "window_server.py")]),
    )
    computer = Computer(
        name=args.name,
        mcp_servers={window},
        auto_connect=True,
        auto_reconnect=False,
        blob_cache_root=home / "blobs",
        skill_home=home / "skills",
        project_root=home,
        env={**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "xdg")},
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with computer:
        client = SMCPComputerClient(computer=computer)
        auth = {"token": args.token} if args.token else None
        await client.connect(args.server, namespaces=["/smcp"], socketio_path=args.path, auth=auth, wait_timeout=10)
        try:
            await asyncio.wait_for(client.join_office(args.office), 10)
        except Exception as e:  # the SDK raises RuntimeError for a refused or unreadable join ack
            print(f"JOIN-FAILED {type(e).__name__}: {e}", flush=True)
            await client.disconnect()
            return 3
        print("READY", flush=True)
        await stop.wait()
        await client.disconnect()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
