/**
 * The time zone the views show times in: `memlens.display.timeZone` (the zone the server reads days in, too), else
 * the machine's. The formatting itself is format.ts's (pure, unit-tested).
 */

import * as vscode from 'vscode';
import type { TimeOptions } from './format';

export const TIME_ZONE_SETTING = 'memlens.display.timeZone';

/** The time options every view passes to the formatters. */
export function displayTimeOptions(): TimeOptions {
  const zone = vscode.workspace.getConfiguration('memlens').get<string>('display.timeZone', '').trim();
  return zone ? { timeZone: zone } : {};
}
