/**
 * A count and its noun as people write them: "1 file", "2 files", "12,345 files", "1 summary", "2 summaries". Every
 * count the client shows goes through here, so no view says "1 chunks" (the server's CLI and MCP text follow the
 * same rules: server/memlens/counted.py). Pure (no `vscode` import): unit-tested.
 */

import { formatCount } from './format';

/**
 * `count` (thousands separated) and `noun`, made plural (`plural`, else `noun` + "s") unless the count is 1. A count
 * an answer left out reads as 0, as formatCount has it.
 */
export function counted(count: number | null | undefined, noun: string, plural?: string): string {
  const number = formatCount(count);
  return `${number} ${number === '1' ? noun : (plural ?? `${noun}s`)}`;
}

/** As `counted`, but nothing reads as "no": "no results", "1 result", "2 results". For sentences that say what is
 * there, where "0 results" reads as a machine's report. */
export function countedOrNo(count: number | null | undefined, noun: string, plural?: string): string {
  return formatCount(count) === '0' ? `no ${plural ?? `${noun}s`}` : counted(count, noun, plural);
}
