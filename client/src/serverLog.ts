/**
 * The level of a line the language server writes to stderr. Pure (no `vscode` import): unit-tested.
 *
 * The server logs with Python's logging (`LEVEL:logger:message`, or `LEVEL logger: message`); vscode-languageclient
 * would log every stderr line as an error. pygls's "Cancel notification for unknown message id" (a request that
 * finished before its cancellation arrived) is routine and goes to debug.
 */

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

let continuation: LogLevel = 'error';

export function stderrLevel(line: string): LogLevel {
  const m = /^(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)[: ]/.exec(line);
  if (!m) {
    // a traceback's lines follow the record that printed it
    return /^(Traceback|\s|[A-Za-z_.]+(Error|Exception)\b)/.test(line) ? continuation : 'info';
  }
  let level: LogLevel;
  switch (m[1]) {
    case 'DEBUG':
      level = 'debug';
      break;
    case 'INFO':
      level = 'info';
      break;
    case 'WARNING':
    case 'WARN':
      level = /Cancel notification for unknown message id/.test(line) ? 'debug' : 'warn';
      break;
    default:
      level = 'error';
  }
  continuation = level === 'debug' ? 'debug' : level === 'info' ? 'info' : level;
  return level;
}
