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

/** The message shown when memlens cannot be imported by the chosen interpreter. */
export function notImportableMessage(python: string, detail: string, repoRoot?: string, wheel?: string): string {
  const cmds = installCommands(python, repoRoot, wheel);
  const how = cmds.length > 1 ? `\`${cmds[0]}\` (or, from a checkout, \`${cmds[1]}\`)` : `\`${cmds[0]}\``;
  const why = detail ? ` (${oneLine(detail, 160)})` : '';
  return `memlens: the Python package "memlens" is not importable by ${python}${why}. Install it with ${how}, or point the setting memlens.server.pythonPath at an interpreter that has it.`;
}

/** The message shown when the interpreter itself cannot be run. */
export function pythonNotFoundMessage(python: string, detail: string): string {
  return `memlens: cannot run the Python interpreter "${python}" (${oneLine(detail, 160)}). Install Python 3.11+ or set memlens.server.pythonPath.`;
}
