/**
 * Hover-to-recall, registered by the extension rather than by the language client so that it comes after the
 * language's own hover (types, docs). VS Code orders the hovers of several providers by how well each provider's
 * document selector matches the document: a language's provider (`typescript`, `python`) scores 10, as would the
 * language client's `{ scheme: 'file' }`; this one is registered for every language (`*`, score 5), so it sorts
 * last, and answers only in the documents the server serves. The server's `file:` and `memlens-transcript:` links
 * become trusted command links (hoverLinks.ts).
 */

import * as vscode from 'vscode';
import { HoverRequest } from 'vscode-languageclient/node';
import { HOVER_COMMANDS, rewriteHoverLinks } from './hoverLinks';
import type { ServerManager } from './serverLauncher';

/** The schemes the language client syncs to the server (clientOptions.documentSelector). */
const SERVED_SCHEMES = new Set(['file', 'untitled']);

/** A hover's markdown, its links made commands the hover may run. */
function trusted(content: vscode.MarkdownString | vscode.MarkedString): vscode.MarkdownString | vscode.MarkedString {
  const value = typeof content === 'string' ? content : 'value' in content && !('language' in content) ? content.value : undefined;
  if (value === undefined) {
    return content;
  }
  const md = new vscode.MarkdownString(rewriteHoverLinks(value));
  md.isTrusted = { enabledCommands: [...HOVER_COMMANDS] };
  md.supportThemeIcons = false;
  return md;
}

export function registerRecallHover(server: ServerManager): vscode.Disposable {
  return vscode.languages.registerHoverProvider('*', {
    async provideHover(document, position, token) {
      const client = server.runningClient;
      if (!client || !SERVED_SCHEMES.has(document.uri.scheme)) {
        return undefined;
      }
      try {
        const params = client.code2ProtocolConverter.asTextDocumentPositionParams(document, position);
        const result = await client.sendRequest(HoverRequest.type, params, token);
        const hover = await client.protocol2CodeConverter.asHover(result);
        return hover ? new vscode.Hover(hover.contents.map(trusted), hover.range) : undefined;
      } catch {
        return undefined; // a hover never fails loudly (a cancelled or failed request shows nothing)
      }
    },
  });
}
