"""The quick fix on a diagnostic: `textDocument/codeAction` offers `memlens.fixes` with the diagnostic's message,
and running the action's command answers the past occurrences of that error."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp.helpers import SERVER_COMMAND, Prebuilt, copy_index, init_params, lsp_fixture

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]  # a real server process

ERROR = "UnroutableEvent: no route for detail-type 'order.refunded'"
SESSION = "claude-code:5b0e7d3c-2f41-4a8e-9c6b-81d4f0a7e2c9"


@lsp_fixture(scope="module", config=ClientServerConfig(server_command=SERVER_COMMAND))
async def client(lsp_client: LanguageClient, lsp_prebuilt: Prebuilt) -> AsyncIterator[None]:
    protocol: Any = lsp_client.protocol
    typed_result = protocol.get_result_type
    protocol.get_result_type = lambda method: (
        None if method == types.TEXT_DOCUMENT_CODE_ACTION else typed_result(method)
    )
    result = await lsp_client.initialize_session(init_params(lsp_prebuilt, copy_index(lsp_prebuilt, "code-actions")))
    lsp_client.init_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def diagnostic(message: str, line: int = 0) -> types.Diagnostic:
    where = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=5))
    return types.Diagnostic(range=where, message=message, severity=types.DiagnosticSeverity.Error, source="pytest")


async def actions(
    client: LanguageClient, diagnostics: list[types.Diagnostic], only: list[str] | None = None
) -> list[types.CodeAction]:
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri="file:///nowhere/test_orders.py"),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=diagnostics, only=only),
    )
    # lsprotocol reads any answer item holding a `command` as a Command, which a CodeAction with a command also
    # holds: the raw items are read here as what the server sent
    protocol: Any = client.protocol
    answer = await protocol.send_request_async(types.TEXT_DOCUMENT_CODE_ACTION, params)
    items: list[dict[str, Any]] = list(answer or [])
    assert all(isinstance(item.get("command"), dict) for item in items)  # CodeActions, not bare Commands
    return [cast(types.CodeAction, protocol._converter.structure(item, types.CodeAction)) for item in items]


async def run(client: LanguageClient, action: types.CodeAction) -> Any:
    assert action.command is not None
    params = types.ExecuteCommandParams(command=action.command.command, arguments=action.command.arguments)
    return await client.workspace_execute_command_async(params)


async def test_code_actions_are_advertised(client: LanguageClient) -> None:
    provider = client.init_result.capabilities.code_action_provider  # type: ignore[attr-defined]
    assert isinstance(provider, types.CodeActionOptions)
    assert list(provider.code_action_kinds or []) == [types.CodeActionKind.QuickFix]


async def test_a_diagnostic_recalls_its_past_occurrences(client: LanguageClient) -> None:
    found = await actions(client, [diagnostic(f"  {ERROR}\n")])
    [action] = found
    assert action.kind == types.CodeActionKind.QuickFix and action.title == "memlens: past occurrences of this error"
    assert action.diagnostics and action.diagnostics[0].message == f"  {ERROR}\n"
    assert action.command is not None and action.command.command == "memlens.fixes"
    assert list(action.command.arguments or []) == [{"error": ERROR}]
    answer = await run(client, action)
    assert answer["error"] == ERROR
    [first, *_] = answer["fixes"]
    assert first["sessionKey"] == SESSION and "UnroutableEvent" in first["text"]
    # titled as everywhere else (history, search, the transcript viewer's tab): its first real request
    history: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="memlens.history", arguments=[{"sessionKey": SESSION, "limit": 1}])
    )
    assert history["title"] and first["title"] == history["title"]


async def test_one_action_per_distinct_message(client: LanguageClient) -> None:
    """Diagnostics under the cursor: one action per message; blank messages ask nothing."""
    found = await actions(
        client, [diagnostic(ERROR), diagnostic(ERROR, line=3), diagnostic("   "), diagnostic("E501 line too long")]
    )
    assert [list(a.command.arguments or []) for a in found if a.command] == [
        [{"error": ERROR}],
        [{"error": "E501 line too long"}],
    ]
    assert await actions(client, []) == []


async def test_a_long_message_is_read_by_its_first_line_and_its_end(client: LanguageClient) -> None:
    """A compiler's page-long message still gives an action whose command runs: the engine reads its first line (the
    error a trace opens with) and its end, and the answer says what was left out."""
    message = f"{ERROR}\n" + "    at frame()\n" * 1000
    [action] = await actions(client, [diagnostic(message)])
    assert action.command is not None
    [argument] = action.command.arguments or [None]
    assert isinstance(argument, dict) and argument["error"] == message.strip()
    answer = await run(client, action)
    assert answer["fixes"] and answer["fixes"][0]["sessionKey"] == SESSION
    assert answer["error"].startswith(f"{ERROR}\n…\n") and answer["leftOut"]["firstLine"] is True


@pytest.mark.parametrize(("only", "offered"), [(["quickfix"], True), (["refactor"], False), (["source"], False)])
async def test_only_quick_fixes_are_offered(client: LanguageClient, only: list[str], offered: bool) -> None:
    assert bool(await actions(client, [diagnostic(ERROR)], only=only)) is offered
