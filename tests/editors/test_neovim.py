"""A real editor as the client: headless Neovim (0.7+) runs memlens.search and a hover through its own LSP client."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from editors.common import EXAMPLE, PYTHON, client_env, make_workspace

NVIM = shutil.which("nvim")

pytestmark = [
    pytest.mark.skipif(NVIM is None, reason="nvim is not installed (Debian: apt-get install -y neovim)"),
    pytest.mark.skipif(not EXAMPLE.is_dir(), reason="the example workspace is missing"),
]

# Neovim 0.7.2 (Debian 12): vim.lsp.start_client, client.request_sync; no vim.lsp.start, no `nvim -l`.
LUA = r"""
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(CONFIG_PATH), "\n"))
local out = { steps = {} }

local function finish(code)
  vim.fn.writefile({ vim.fn.json_encode(out) }, config.output)
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

local function fail(message)
  out.error = message
  finish(1)
end

local ok, err = pcall(function()
  local client_id = vim.lsp.start_client({
    name = "memlens",
    cmd = config.cmd,
    root_dir = config.workspace,
    workspace_folders = { { uri = vim.uri_from_fname(config.workspace), name = "workspace" } },
    init_options = config.options,
  })
  if not client_id then return fail("start_client failed") end
  local ready = vim.wait(60000, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized == true
  end, 50)
  if not ready then return fail("the server did not initialize") end
  local client = vim.lsp.get_client_by_id(client_id)
  table.insert(out.steps, "initialized")
  out.commands = client.server_capabilities.executeCommandProvider.commands

  local indexed = vim.wait(120000, function()
    local stats = client.request_sync("workspace/executeCommand", {
      command = "memlens.stats", arguments = { vim.empty_dict() },
    }, 30000, 0)
    return stats ~= nil and stats.result ~= nil and stats.result.totalChunks > 0 and not stats.result.indexing
  end, 200)
  if not indexed then return fail("the index did not finish") end
  table.insert(out.steps, "indexed")

  local search = client.request_sync("workspace/executeCommand", {
    command = "memlens.search",
    arguments = { { query = "pgbouncer transaction pooling", limit = 3 } },
  }, 60000, 0)
  if not search or search.err then return fail("search failed: " .. vim.inspect(search)) end
  out.search = search.result
  table.insert(out.steps, "search")

  local bad = client.request_sync("workspace/executeCommand", {
    command = "memlens.search", arguments = { { limit = 3 } },
  }, 30000, 0)
  out.bad_error = bad and bad.err and bad.err.message or vim.NIL

  vim.cmd("edit " .. vim.fn.fnameescape(config.file))
  vim.lsp.buf_attach_client(0, client_id)
  local hover = client.request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    position = { line = 1, character = 8 },
  }, 30000, 0)
  if not hover or hover.err then return fail("hover failed: " .. vim.inspect(hover)) end
  out.hover = hover.result
  table.insert(out.steps, "hover")

  client.stop()
  vim.wait(10000, function() return vim.lsp.client_is_stopped(client_id) end, 50)
  table.insert(out.steps, "stopped")
  finish(0)
end)
if not ok then fail(tostring(err)) end
"""


def test_neovim_search_and_hover(tmp_path: Path) -> None:
    workspace, options = make_workspace(tmp_path)
    output = tmp_path / "result.json"
    config = {
        "cmd": [PYTHON, "-m", "memlens", "serve"],
        "workspace": str(workspace),
        "options": options,
        "file": str(workspace / "app.py"),
        "output": str(output),
    }
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    script = tmp_path / "test.lua"
    script.write_text(f"local CONFIG_PATH = {json.dumps(str(config_path))}\n{LUA}", encoding="utf-8")
    assert NVIM is not None
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {script}"],
        capture_output=True,
        text=True,
        timeout=180,
        env=client_env(tmp_path),
        cwd=workspace,
    )
    assert output.exists(), f"nvim wrote no result (exit {run.returncode}): {run.stderr[-2000:]}"
    result = json.loads(output.read_text(encoding="utf-8"))
    assert run.returncode == 0, result.get("error") or run.stderr[-2000:]
    assert result["steps"] == ["initialized", "indexed", "search", "hover", "stopped"]
    assert "memlens.search" in result["commands"] and "memlens.context" in result["commands"]
    search = result["search"]
    assert search["results"] and "pgbouncer" in search["results"][0]["excerpt"].lower()
    assert "query is required" in result["bad_error"]
    hover = result["hover"]
    assert hover["contents"]["kind"] == "markdown" and "pgbouncer" in hover["contents"]["value"]
    assert "](memlens-transcript:/" in hover["contents"]["value"] or "](file://" in hover["contents"]["value"]
