"""Scenario 1: the official A2C-SMCP Python Agent (a2c-smcp's
AsyncSMCPAgentClient) against this project's Server and Computer.

Uses the SDK's own calls where it has them (connect_to_server with its
a2c_version, join_office, get_computers_in_office, get_tools_from_computer,
emit_tool_call, get_desktop_from_computer) and, for the Finder events the
SDK does not know, its underlying python-socketio client (AsyncClient.call)
with raw client:get_finder / client:read_resource payloads, checking the
shapes of finder-spec (GetFinderRet, DPE Level 1 and Level 2 JSON, the
flat error payload with codes 4201 / 4204). Prints one line per check;
exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid

import socketio
from a2c_smcp import PROTOCOL_VERSION
from a2c_smcp.agent import AsyncSMCPAgentClient, DefaultAgentAuthProvider

from checks import Checks, need

NS = "/smcp"
SUMMARY_KEYS = {"doc_ref", "uri", "file_uri", "file_type", "title", "page_count", "server"}
DOCUMENT_KEYS = {"doc_ref", "uri", "file_uri", "file_type", "title", "page_count"}
PAGE_KEYS = {"page_index", "title", "doc_ref", "uri", "elements", "element_count"}
ELEMENT_KEYS = {"element_id", "category", "content"}


async def raw(client: AsyncSMCPAgentClient, event: str, payload: dict, timeout: int = 15):
    """Emit through the SDK's python-socketio client, bypassing the SDK's
    list of known events (it has no Finder events)."""
    return await socketio.AsyncClient.call(client, event, payload, namespace=NS, timeout=timeout)


def text_json(ret: dict, uri: str) -> dict:
    need(isinstance(ret, dict) and isinstance(ret.get("contents"), list) and ret["contents"], f"{uri}: no contents in {ret!r:.300}")
    first = ret["contents"][0]
    need(first.get("uri") == uri, f"contents[0].uri {first.get('uri')!r}, want {uri!r}")
    need(first.get("mimeType") == "application/json", f"mimeType {first.get('mimeType')!r}")
    return json.loads(first["text"])


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--office", default="interop")
    ap.add_argument("--computer", required=True)
    ap.add_argument("--path", default="/socket.io", help="Socket.IO HTTP path (socketio_path)")
    ap.add_argument("--name", default="py-agent")
    args = ap.parse_args()
    c = Checks()
    auth = DefaultAgentAuthProvider(agent_id=args.name, office_id=args.office)
    client = AsyncSMCPAgentClient(auth_provider=auth)
    agent = {"agent": args.name, "computer": args.computer}

    async def connect():
        await client.connect_to_server(args.server, socketio_path=args.path, wait_timeout=10)

    if await c.run(f"connect (a2c_version={PROTOCOL_VERSION})", connect()) is None and not client.connected:
        return 1

    async def join():
        # The SDK's join_office emits without waiting for the ack; check
        # the membership through list_room, and the ack form with a raw call.
        await client.join_office(args.office, args.name, namespace=NS)
        for _ in range(50):
            try:
                ret = await raw(client, "server:list_room", {"agent": args.name, "req_id": "l0", "office_id": args.office})
                if isinstance(ret, dict) and "sessions" in ret:
                    break
            except Exception:
                pass
            await asyncio.sleep(0.1)
        ack = await raw(client, "server:join_office", {"role": "agent", "name": args.name, "office_id": args.office})
        need(ack == (True, None), f"join ack {ack!r}, want the protocol's (True, None)")

    await c.run("join_office", join())

    async def list_room():
        computers = await client.get_computers_in_office(args.office)
        need(any(s.get("name") == args.computer for s in computers), f"{args.computer} not in {computers}")
        ret = await raw(client, "server:list_room", {"agent": args.name, "req_id": "l1", "office_id": args.office})
        need(ret.get("req_id") == "l1", f"req_id {ret.get('req_id')!r}")
        me = [s for s in ret["sessions"] if s.get("name") == args.name]
        need(me and me[0].get("role") == "agent" and me[0].get("a2c_version") == PROTOCOL_VERSION,
             f"this agent's session {me}, want role agent and a2c_version {PROTOCOL_VERSION}")
        for s in ret["sessions"]:
            need({"sid", "name", "role", "office_id"} <= s.keys(), f"session {s} lacks SessionInfo keys")

    await c.run("list_room", list_room())

    async def get_tools():
        ret = await client.get_tools_from_computer(args.computer)
        names = [t["name"] for t in ret["tools"]]
        for t in ret["tools"]:
            need({"name", "bundle_id", "description", "params_schema", "return_schema"} <= t.keys(), f"tool {t['name']} lacks SMCPTool keys: {sorted(t)}")
        tree = [n for n in names if n == "fs_tree" or n.endswith("__fs_tree")]
        need(tree, f"no fs_tree among {names}")
        print(f"     tools: {', '.join(names)}")
        return tree[0]

    tree = await c.run("get_tools", get_tools())

    async def tool_call():
        res = await client.emit_tool_call(args.computer, tree, {"path": ".", "maxDepth": 2}, timeout=20)
        need(not res.isError, f"isError result: {res}")
        text = "".join(getattr(b, "text", "") for b in res.content)
        need("README.md" in text and "reports" in text, f"fs_tree result does not list the corpus: {text[:300]}")

    if tree:
        await c.run("tool_call fs_tree", tool_call())

    async def desktop():
        ret = await client.get_desktop_from_computer(args.computer)
        desks = ret["desktops"]
        need(desks and all(isinstance(d, str) for d in desks), f"desktops {desks!r}")
        need(any(d.startswith("window://interop.example/status") and "Interop status" in d for d in desks), f"no status window in {desks!r:.300}")

    await c.run("get_desktop", desktop())

    state: dict = {}

    async def get_finder():
        ret = await raw(client, "client:get_finder", {**agent, "req_id": "f1", "keywords": [], "limit": 5})
        need(isinstance(ret, dict) and {"documents", "total_count", "req_id"} <= ret.keys(), f"GetFinderRet keys: {ret!r:.300}")
        need(ret["req_id"] == "f1", f"req_id {ret['req_id']!r}")
        docs = ret["documents"]
        need(0 < len(docs) <= 5 and ret["total_count"] >= len(docs), f"{len(docs)} documents of {ret['total_count']}")
        for d in docs:
            need(SUMMARY_KEYS <= d.keys(), f"summary {d.get('title')!r} lacks {sorted(SUMMARY_KEYS - d.keys())}")
            need(d["uri"].startswith("dpe://") and d["page_count"] >= 1, f"summary {d}")
        filtered = await raw(client, "client:get_finder", {**agent, "req_id": "f2", "file_type": "md", "limit": 100})
        need(filtered["documents"] and all(d["file_type"] == "md" for d in filtered["documents"]), "file_type=md filter")
        state["doc"] = docs[0]
        print(f"     catalog: {ret['total_count']} documents; first {docs[0]['title']!r} {docs[0]['uri']}")

    await c.run("raw client:get_finder", get_finder())

    async def read_levels():
        uri = state["doc"]["uri"]
        doc = text_json(await raw(client, "client:read_resource", {**agent, "req_id": "r1", "uri": uri}), uri)
        need(DOCUMENT_KEYS <= doc.keys() and doc["uri"] == uri, f"Level 1 keys {sorted(doc)}")
        page_uri = f"{uri}/pages/0"
        page = text_json(await raw(client, "client:read_resource", {**agent, "req_id": "r2", "uri": page_uri}), page_uri)
        need(PAGE_KEYS <= page.keys() and page["page_index"] == 0, f"Level 2 keys {sorted(page)}")
        need(page["element_count"] == len(page["elements"]) and page["elements"], f"{page['element_count']} elements")
        for el in page["elements"]:
            need(ELEMENT_KEYS <= el.keys(), f"element lacks {sorted(ELEMENT_KEYS - el.keys())}")

    if "doc" in state:
        await c.run("raw client:read_resource L1/L2", read_levels())

    async def read_errors():
        host = state["doc"]["uri"].split("/")[2]
        missing = await raw(client, "client:read_resource", {**agent, "req_id": "e1", "uri": f"dpe://{host}/no-such-document"})
        need(isinstance(missing, dict) and missing.get("code") == 4201 and missing.get("message"), f"missing document answered {missing!r}")
        bad = await raw(client, "client:read_resource", {**agent, "req_id": "e2", "uri": state["doc"]["uri"] + "/pages/x"})
        need(isinstance(bad, dict) and bad.get("code") == 4204, f"invalid URI answered {bad!r}")
        gone = await raw(client, "client:get_finder", {**agent, "req_id": "e3", "computer": "no-such-computer"})
        need(isinstance(gone, dict) and gone.get("code") == 404, f"unknown computer answered {gone!r}")

    if "doc" in state:
        await c.run("raw errors 4201/4204/404", read_errors())

    await client.disconnect()
    print(f"official agent: {c.failed} check(s) failed" if c.failed else "official agent: all checks passed")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
