"""A tiny stdio MCP server, written with the official MCP Python SDK, that
exposes two window:// resources (the A2C-SMCP Desktop) and declares
resources.subscribe.

Resources:
  window://interop.example/status   priority 0.9 (annotations), text/markdown
  window://interop.example/log      priority 0.2
  window://interop.example/legacy?priority=95
                                    priority 0.1: the seeds' query form, which
                                    the annotation overrides (desktop.md)
Tools:
  bump()        adds one to the counter shown in the status window and
                sends notifications/resources/updated to its subscribers
  echo(text)    returns text
  image(bytes)  returns a text and an image/png of image_bytes(bytes): over
                the SDKs' 32 KiB inline budget it travels by blob handle
"""

from __future__ import annotations

import base64

import anyio
import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

STATUS = "window://interop.example/status"
LOG = "window://interop.example/log"
LEGACY = "window://interop.example/legacy?priority=95"


def image_bytes(n: int) -> bytes:
    """The n bytes the image tool answers: 0, 1, ..., 255, 0, 1, ... (the
    checks compute them too)."""
    return (bytes(range(256)) * (n // 256 + 1))[:n]


def main() -> None:
    server = Server("interop-window")
    state = {"counter": 0}
    subscribed: set[str] = set()

    @server.list_resources()
    async def list_resources() -> list[types.Resource]:
        return [
            types.Resource(
                uri=STATUS,
                name="status",
                mimeType="text/markdown",
                annotations=types.Annotations(priority=0.9),
            ),
            types.Resource(
                uri=LOG,
                name="log",
                mimeType="text/markdown",
                annotations=types.Annotations(priority=0.2),
            ),
            types.Resource(
                uri=LEGACY,
                name="legacy",
                mimeType="text/markdown",
                annotations=types.Annotations(priority=0.1, audience=["assistant"]),
            ),
        ]

    @server.read_resource()
    async def read_resource(uri) -> str:
        uri = str(uri)
        if uri == STATUS:
            return f"# Interop status\n\nserved by a Python MCP server\n\ncounter: {state['counter']}\n"
        if uri == LOG:
            return "# Interop log\n\n- started\n"
        if uri == LEGACY:
            return "# Interop legacy\n\nlisted with a query\n"
        raise ValueError(f"unknown resource {uri}")

    @server.subscribe_resource()
    async def subscribe(uri) -> None:
        subscribed.add(str(uri))

    @server.unsubscribe_resource()
    async def unsubscribe(uri) -> None:
        subscribed.discard(str(uri))

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [
            types.Tool(
                name="bump",
                description="Add one to the counter of the status window.",
                inputSchema={"type": "object", "properties": {}},
            ),
            types.Tool(
                name="echo",
                description="Return the text given.",
                inputSchema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            ),
            types.Tool(
                name="image",
                description="Return an image of the given number of bytes.",
                inputSchema={"type": "object", "properties": {"bytes": {"type": "integer"}}, "required": ["bytes"]},
            ),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> list[types.TextContent | types.ImageContent]:
        if name == "bump":
            state["counter"] += 1
            if STATUS in subscribed:
                await server.request_context.session.send_resource_updated(STATUS)
            return [types.TextContent(type="text", text=f"counter={state['counter']}")]
        if name == "echo":
            return [types.TextContent(type="text", text=str(arguments.get("text", "")))]
        if name == "image":
            n = int(arguments.get("bytes", 0))
            data = base64.b64encode(image_bytes(n)).decode("ascii")
            return [types.TextContent(type="text", text=f"{n} bytes"), types.ImageContent(type="image", mimeType="image/png", data=data)]
        raise ValueError(f"unknown tool {name}")

    async def run() -> None:
        opts = server.create_initialization_options(NotificationOptions(resources_changed=True))
        # The SDK's capability builder always says subscribe=False; this
        # server does handle resources/subscribe, so say so.
        opts.capabilities.resources.subscribe = True
        async with stdio_server() as (read, write):
            await server.run(read, write, opts)

    anyio.run(run)


if __name__ == "__main__":
    main()
