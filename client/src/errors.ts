/**
 * What the client does with a rejected request: the readable message of any error, and whether it was only a
 * cancellation (which is not shown). Pure (no `vscode` import): unit-tested.
 */

/** The readable message of an error (LSP ResponseErrors carry the server's message). */
export function errorMessage(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err && typeof (err as { message: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  return String(err);
}

/** True for the errors a cancelled request rejects with (LSP RequestCancelled -32800 or a Canceled error). */
export function isCancellation(err: unknown): boolean {
  if (!err || typeof err !== 'object') {
    return false;
  }
  const e = err as { code?: unknown; name?: unknown; message?: unknown };
  return e.code === -32800 || e.code === -32802 || e.name === 'Canceled' || e.message === 'Canceled';
}
