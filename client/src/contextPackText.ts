/**
 * What Copy Context Pack for Question says once the pack is on the clipboard. Pure (no `vscode` import):
 * unit-tested.
 */

import { counted } from './counted';
import type { ContextResponse } from './protocol';

/** "memlens: copied a context pack (1 item, ~40 tokens) to the clipboard." */
export function contextPackCopiedMessage(pack: Pick<ContextResponse, 'items' | 'tokens'>): string {
  const items = Array.isArray(pack.items) ? pack.items.length : 0;
  return `memlens: copied a context pack (${counted(items, 'item')}, ~${counted(pack.tokens, 'token')}) to the clipboard.`;
}
