/**
 * What to tell the user when the chosen Python cannot run the server: the install commands (the wheel the .vsix
 * bundles, or a checkout) and the two error messages. Pure (no `vscode` import): unit-tested; the interpreter is
 * chosen and probed in `pythonInterpreter.ts`.
 */

import { oneLine } from './format';

function quoteArg(arg: string): string {
  return /[\s"'$`\\]/.test(arg) ? `"${arg.replace(/(["$`\\])/g, '\\$1')}"` : arg;
}

/**
 * The command lines that make memlens importable by `python`, best first. memlens is not on PyPI: the .vsix
 * carries its wheel (`wheel`), and a checkout can be installed from its folder (`repoRoot`).
 */
export function installCommands(python: string, repoRoot?: string, wheel?: string): string[] {
  const py = quoteArg(python);
  const cmds: string[] = [];
  if (wheel) {
    cmds.push(`${py} -m pip install ${quoteArg(wheel)}`);
  }
  if (repoRoot) {
    cmds.push(`${py} -m pip install -e ${quoteArg(repoRoot)}`);
  }
  if (cmds.length === 0) {
    cmds.push(`${py} -m pip install <path to a memlens checkout>`);
  }
  return cmds;
}

/**
 * Where the interpreter came from and where to change it: `from` names the settings scope that set
 * memlens.server.pythonPath (undefined: the setting is not set), `setIn` where setting it takes effect.
 */
export interface PythonSettingScope {
  from?: string;
  setIn: string;
}

/** "(memlens.server.pythonPath in the Remote [ssh] settings)" after the interpreter, when the setting chose it. */
function chosenBy(scope: PythonSettingScope | undefined): string {
  return scope?.from ? ` (memlens.server.pythonPath in ${scope.from})` : '';
}

/** What to do with the setting: change it where it is set, or set it where it takes effect. */
function settingAdvice(scope: PythonSettingScope | undefined, what: string): string {
  if (scope?.from) {
    return `change memlens.server.pythonPath in ${scope.from} to ${what}`;
  }
  return `set memlens.server.pythonPath${scope ? ` ${scope.setIn}` : ''} to ${what}`;
}

/** The message shown when memlens cannot be imported by the chosen interpreter. */
export function notImportableMessage(python: string, detail: string, repoRoot?: string, wheel?: string, scope?: PythonSettingScope): string {
  const cmds = installCommands(python, repoRoot, wheel);
  const how = cmds.length > 1 ? `\`${cmds[0]}\` (or, from a checkout, \`${cmds[1]}\`)` : `\`${cmds[0]}\``;
  const why = detail ? ` (${oneLine(detail, 160)})` : '';
  return `memlens: the Python package "memlens" is not importable by ${python}${chosenBy(scope)}${why}. Install it with ${how}, or ${settingAdvice(scope, 'an interpreter that has it')}.`;
}

/**
 * Why the interpreter could not be run, in words: Node's spawn error ("ENOENT: spawn python9 ENOENT") names the
 * system call twice and no reason a user reads.
 */
function whyNotRun(python: string, detail: string): string {
  if (/^ENOENT\b/.test(detail)) {
    return /[\\/]/.test(python) ? 'no such file' : 'not found on the PATH';
  }
  if (/^EACCES\b/.test(detail)) {
    return 'not executable (permission denied)';
  }
  return oneLine(detail, 160);
}

/**
 * The message shown when the interpreter itself cannot be run. Where the setting chose it, the advice names the
 * setting and its scope once.
 */
export function pythonNotFoundMessage(python: string, detail: string, scope?: PythonSettingScope): string {
  return `memlens: cannot run the Python interpreter "${python}": ${whyNotRun(python, detail)}. Install Python 3.11+ or ${settingAdvice(scope, 'one that runs')}.`;
}
