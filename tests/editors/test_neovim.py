"""A real editor as the client: headless Neovim (0.7+) runs the configuration documented in docs/editors.md (extracted
from the page, not copied), then its :MemlensSearch / :MemlensHistory commands and a hover through its LSP client."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from editors.common import EXAMPLE, PYTHON, REPO, client_env, make_workspace

NVIM = shutil.which("nvim")
DOC = REPO / "docs" / "editors.md"

pytestmark = [
    pytest.mark.slow,  # a real editor
    pytest.mark.skipif(NVIM is None, reason="nvim is not installed (Debian: apt-get install -y neovim)"),
    pytest.mark.skipif(not EXAMPLE.is_dir(), reason="the example workspace is missing"),
]


def documented_snippet() -> str:
    """The Lua between the memlens-nvim markers of docs/editors.md."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- memlens-nvim:begin -->\s*```lua\n(.*?)```\s*<!-- memlens-nvim:end -->", text, re.S)
    assert match, "docs/editors.md has no memlens-nvim snippet"
    return match.group(1)


# Neovim 0.7.2 (Debian 12): no `nvim -l`; the driver waits with vim.wait and writes what it saw as JSON.
DRIVER = r"""
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(CONFIG_PATH), "\n"))
local out = { steps = {} }

local function finish(code)
  vim.fn.writefile({ vim.fn.json_encode(out) }, config.output)
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

local function fail(message)
  out.error = message .. " | messages: " .. vim.fn.execute("messages")
  finish(1)
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(config.file))  -- the documented autocommand starts and attaches memlens
  local client
  local ready = vim.wait(60000, function()
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      if c.name == "memlens" and c.initialized then client = c end
    end
    return client ~= nil
  end, 50)
  if not ready then return fail("the documented snippet did not start memlens") end
  table.insert(out.steps, "initialized")
  out.attached = vim.lsp.buf_is_attached(0, client.id)
  out.commands = client.server_capabilities.executeCommandProvider.commands

  local indexed = vim.wait(120000, function()
    local stats = client.request_sync("workspace/executeCommand", {
      command = "memlens.stats", arguments = { vim.empty_dict() },
    }, 30000, 0)
    return stats ~= nil and stats.result ~= nil and stats.result.totalChunks > 0 and not stats.result.indexing
  end, 200)
  if not indexed then return fail("the index did not finish") end
  table.insert(out.steps, "indexed")

  vim.cmd("MemlensSearch pgbouncer transaction pooling")
  if not vim.wait(30000, function() return #vim.fn.getqflist() > 0 end, 50) then
    return fail("MemlensSearch filled no quickfix list")
  end
  out.qflist = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(out.qflist, { file = vim.fn.bufname(item.bufnr), lnum = item.lnum, text = item.text })
  end
  out.qftitle = vim.fn.getqflist({ title = 1 }).title
  table.insert(out.steps, "search")

  vim.fn.setqflist({}, "r")
  vim.cmd("MemlensSearch pgbouncer kind:memory")
  vim.wait(30000, function() return #vim.fn.getqflist() > 0 end, 50)
  out.memory_only = {}
  for _, item in ipairs(vim.fn.getqflist()) do table.insert(out.memory_only, vim.fn.bufname(item.bufnr)) end

  vim.cmd("wincmd t")
  local hover = client.request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_fname(config.file) },
    position = { line = 1, character = 8 },
  }, 30000, 0)
  if not hover or hover.err then return fail("hover failed: " .. vim.inspect(hover)) end
  out.hover = hover.result
  table.insert(out.steps, "hover")

  local link = out.hover and out.hover.contents.value:match("%((memlens%-transcript:[^)%s]+)%)")
  local search = client.request_sync("workspace/executeCommand", {
    command = "memlens.search", arguments = { { query = "pgbouncer", filters = { kind = "transcript" }, limit = 1 } },
  }, 30000, 0)
  local target = link or search.result.results[1].sessionKey
  out.history_target = target
  vim.cmd("MemlensHistory " .. target)
  if not vim.wait(30000, function() return vim.api.nvim_buf_get_name(0):match("^memlens://") ~= nil end, 50) then
    return fail("MemlensHistory opened no buffer")
  end
  out.history_name = vim.api.nvim_buf_get_name(0)
  out.history_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  out.history_cursor = vim.api.nvim_win_get_cursor(0)[1]
  table.insert(out.steps, "history")

  client.stop()
  vim.wait(10000, function() return vim.lsp.client_is_stopped(client.id) end, 50)
  table.insert(out.steps, "stopped")
  finish(0)
end)
if not ok then fail(tostring(err)) end
"""


def test_documented_neovim_config_search_history_and_hover(tmp_path: Path) -> None:
    workspace, options = make_workspace(tmp_path)
    # this test is about the editor wiring, not ranking: every hit counts, whatever the score calibration
    options["search"] = {"minScore": 0.0}
    options["hover"] = {"minScore": 0.0}
    output = tmp_path / "result.json"
    config = {"file": str(workspace / "app.py"), "output": str(output)}
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    # the documented overrides: this interpreter, keyword-only settings and a private index
    setup = (
        f"vim.g.memlens_cmd = {{ {json.dumps(PYTHON)}, '-m', 'memlens', 'serve' }}\n"
        f"vim.g.memlens_init_options = vim.fn.json_decode({json.dumps(json.dumps(options))})\n"
    )
    snippet = tmp_path / "memlens.lua"
    snippet.write_text(setup + documented_snippet(), encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(f"local CONFIG_PATH = {json.dumps(str(config_path))}\n{DRIVER}", encoding="utf-8")
    assert NVIM is not None
    run = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {snippet}", "-c", f"luafile {driver}"],
        capture_output=True,
        text=True,
        timeout=240,
        env=client_env(tmp_path),
        cwd=workspace,
    )
    assert output.exists(), f"nvim wrote no result (exit {run.returncode}): {run.stderr[-2000:]}"
    result = json.loads(output.read_text(encoding="utf-8"))
    assert run.returncode == 0, result.get("error") or run.stderr[-2000:]
    assert result["steps"] == ["initialized", "indexed", "search", "hover", "history", "stopped"]
    assert result["attached"] is True
    assert "memlens.search" in result["commands"] and "memlens.history" in result["commands"]
    # :MemlensSearch: the hits in the quickfix list, each with its score and an excerpt, at a real file and line
    assert result["qftitle"] == "memlens: pgbouncer transaction pooling"
    assert result["qflist"] and "pgbouncer" in " ".join(i["text"] for i in result["qflist"]).lower()
    for item in result["qflist"]:
        assert re.match(r"^\d{1,3}% .+ │ ", item["text"]), item
        assert (workspace / item["file"]).is_file() and item["lnum"] >= 1, item  # bufname: relative to the cwd
    # filters typed as query words
    assert result["memory_only"] and all(f.endswith(".md") for f in result["memory_only"])
    assert not any("·  ·" in i["text"] for i in result["qflist"])
    hover = result["hover"]
    assert hover["contents"]["kind"] == "markdown" and "pgbouncer" in hover["contents"]["value"]
    # :MemlensHistory: the session as markdown, from a session key or a hover's memlens-transcript: link
    lines = result["history_lines"]
    assert result["history_name"].startswith("memlens://") and lines[0].startswith("# ")
    assert any(line.startswith("### user") for line in lines)
    assert any(line.startswith("### assistant") for line in lines)
    if result["history_target"].startswith("memlens-transcript:"):
        assert lines[result["history_cursor"] - 1].endswith("· match")
