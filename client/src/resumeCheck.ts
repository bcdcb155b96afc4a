/**
 * Before "Resume in Terminal" runs a session's resume command (`cd <folder> && claude --resume <id>`,
 * `codex resume <id>`): what it needs from this machine — the folder, the agent's program on PATH — and which of
 * those are missing, so the command is offered for copying instead of failing in a terminal. The command parsing is
 * pure; the checks take the file system as a function so tests can give their own.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ResumeNeeds {
  /** the folder the command changes to first, if it does */
  folder?: string;
  /** the program it runs (`claude`, `codex`) */
  program?: string;
}

/** Split a POSIX shell line into words (single and double quotes, backslashes), up to the first `&&`. */
function shellWords(line: string): { words: string[]; rest: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end + 1;
    } else if (c === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        word += line[i] === '\\' && i + 1 < line.length ? line[++i] : line[i];
        i++;
      }
      inWord = true;
      i++;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(c)) {
      if (inWord) {
        words.push(word);
        word = '';
        inWord = false;
      }
      i++;
    } else if (c === '&' && line[i + 1] === '&' && !inWord) {
      return { words, rest: line.slice(i + 2) };
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) {
    words.push(word);
  }
  return { words, rest: '' };
}

/** The folder and program a resume command needs: `cd '/a b' && claude --resume x` → `/a b`, `claude`. */
export function resumeNeeds(command: string, cwd?: string | null): ResumeNeeds {
  const first = shellWords(command.trim());
  if (first.words[0] === 'cd' && first.words.length === 2) {
    const program = shellWords(first.rest.trim()).words[0];
    return { folder: first.words[1], program };
  }
  return { ...(cwd ? { folder: cwd } : {}), program: first.words[0] };
}

export interface MachineProbe {
  isDirectory(p: string): boolean;
  /** PATH entries, and executable suffixes (Windows' PATHEXT; [''] elsewhere) */
  pathEntries: readonly string[];
  suffixes: readonly string[];
  isFile(p: string): boolean;
}

/** The real machine the extension host runs on. */
export function localMachine(env: NodeJS.ProcessEnv = process.env): MachineProbe {
  const stat = (p: string): fs.Stats | undefined => {
    try {
      return fs.statSync(p);
    } catch {
      return undefined;
    }
  };
  const windows = process.platform === 'win32';
  return {
    isDirectory: (p) => !!stat(p)?.isDirectory(),
    isFile: (p) => !!stat(p)?.isFile(),
    pathEntries: (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean),
    suffixes: windows ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''],
  };
}

/** One line per missing need: "the folder /x does not exist here", "`claude` is not on PATH". */
export function missingForResume(needs: ResumeNeeds, machine: MachineProbe): string[] {
  const missing: string[] = [];
  if (needs.folder && !machine.isDirectory(needs.folder)) {
    missing.push(`the folder ${needs.folder} does not exist here`);
  }
  const program = needs.program;
  if (program) {
    const found = program.includes('/')
      ? machine.isFile(program)
      : machine.pathEntries.some((dir) => machine.suffixes.some((suffix) => machine.isFile(path.join(dir, program + suffix))));
    if (!found) {
      missing.push(`${program} is not on PATH`);
    }
  }
  return missing;
}
