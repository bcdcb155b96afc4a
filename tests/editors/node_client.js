// A minimal LSP client on vscode-jsonrpc (the library under vscode-languageclient): initialize, search, hover, exit.
// Usage: node node_client.js CONFIG.json   (prints one JSON object on stdout)
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const { pathToFileURL } = require('url');
const rpc = require('vscode-jsonrpc/node');

async function main() {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const server = spawn(config.cmd[0], config.cmd.slice(1), { cwd: config.workspace, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin),
  );
  const out = { steps: [], statuses: [], progress: [] };
  connection.onRequest('window/workDoneProgress/create', () => null);
  connection.onRequest('workspace/configuration', (params) => params.items.map(() => null));
  connection.onNotification('$/progress', (params) => out.progress.push(params.value.kind));
  connection.onNotification('memlens/indexStatus', (status) => out.statuses.push(status));
  connection.onNotification('window/showMessage', (message) => out.steps.push(`message: ${message.message}`));
  connection.listen();

  const workspaceUri = pathToFileURL(config.workspace).href;
  const init = await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: workspaceUri,
    workspaceFolders: [{ uri: workspaceUri, name: 'workspace' }],
    capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true } },
    initializationOptions: config.options,
  });
  out.commands = init.capabilities.executeCommandProvider.commands;
  await connection.sendNotification('initialized', {});
  out.steps.push('initialized');

  const deadline = Date.now() + 120000;
  for (;;) {
    const stats = await connection.sendRequest('workspace/executeCommand', { command: 'memlens.stats', arguments: [{}] });
    if (stats.totalChunks > 0 && !stats.indexing) break;
    if (Date.now() > deadline) throw new Error('the index did not finish');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  out.steps.push('indexed');

  out.search = await connection.sendRequest('workspace/executeCommand', {
    command: 'memlens.search',
    arguments: [{ query: 'pgbouncer transaction pooling', limit: 3 }],
  });
  out.steps.push('search');
  try {
    await connection.sendRequest('workspace/executeCommand', { command: 'memlens.search', arguments: [{ query: 'q', mode: 'x' }] });
  } catch (error) {
    out.badError = { code: error.code, message: error.message };
  }

  const fileUri = pathToFileURL(config.file).href;
  await connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: fileUri, languageId: 'python', version: 1, text: fs.readFileSync(config.file, 'utf8') },
  });
  out.hover = await connection.sendRequest('textDocument/hover', {
    textDocument: { uri: fileUri },
    position: { line: 1, character: 8 },
  });
  out.steps.push('hover');

  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
  out.exitCode = await new Promise((resolve) => server.on('exit', (code) => resolve(code)));
  out.steps.push('exited');
  connection.dispose();
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
