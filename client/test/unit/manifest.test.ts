import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Commands } from '../../src/protocol';

// out/test/manifest.test.js → the repository root
const ROOT = path.resolve(__dirname, '../..');

interface Manifest {
  name: string;
  publisher: string;
  main: string;
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  contributes: {
    commands: { command: string; title: string }[];
    menus: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, { default: unknown; description?: string; markdownDescription?: string; enum?: string[] }> }[];
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string }[]>;
    viewsWelcome: { view: string; contents: string }[];
  };
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
const extensionSource = fs.readFileSync(path.join(ROOT, 'client/src/extension.ts'), 'utf8');

// The client's own settings with their defaults. Every server setting is held to the server's own default by
// tests/test_manifest.py (against settings.py, the one source); repeating those defaults here only drifted.
const CLIENT_SETTINGS: Record<string, unknown> = {
  'memlens.server.pythonPath': '',
  'memlens.trace.server': 'off',
};

// Commands the server advertises in executeCommandProvider: the extension registers them as VS Code commands
// forwarding to the server, so its own commands must not use the same ids.
const SERVER_COMMANDS: readonly string[] = Object.values(Commands);

describe('package.json (extension manifest)', () => {
  const properties = Object.assign({}, ...manifest.contributes.configuration.map((c) => c.properties)) as Manifest['contributes']['configuration'][number]['properties'];

  it('declares every setting with its default and a description', () => {
    for (const [key, value] of Object.entries(CLIENT_SETTINGS)) {
      assert.deepEqual(properties[key]?.default, value, key);
    }
    for (const [key, property] of Object.entries(properties)) {
      assert.ok(key.startsWith('memlens.'), key);
      assert.ok('default' in property, `${key} has a default`);
      assert.ok(property.description || property.markdownDescription, `${key} has a description`);
    }
    assert.deepEqual(properties['memlens.trace.server'].enum, ['off', 'messages', 'verbose']);
    assert.deepEqual(properties['memlens.search.mode'].enum, ['hybrid', 'keyword', 'vector']);
    assert.deepEqual(properties['memlens.search.fusion'].enum, ['weighted', 'rrf', 'rescue']);
    assert.deepEqual(properties['memlens.scope'].enum, ['workspace', 'all']);
  });

  it('contributes unique commands that do not collide with the server commands, all registered', () => {
    const ids = manifest.contributes.commands.map((c) => c.command);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) {
      assert.ok(!SERVER_COMMANDS.includes(id), `${id} collides with a server command`);
      assert.ok(extensionSource.includes(`register('${id}'`), `${id} is registered in extension.ts`);
    }
    for (const required of ['memlens.searchMemory', 'memlens.searchSelection', 'memlens.restartServer', 'memlens.showStats', 'memlens.copyContextPack']) {
      assert.ok(ids.includes(required), required);
    }
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const entry of entries) {
        assert.ok(ids.includes(entry.command), `${menu} refers to the declared command ${entry.command}`);
      }
    }
  });

  it('has the sidebar, its results view and a welcome text', () => {
    const container = manifest.contributes.viewsContainers.activitybar.find((c) => c.id === 'memlens');
    assert.ok(container);
    assert.ok(fs.existsSync(path.join(ROOT, container.icon)), container.icon);
    assert.deepEqual(manifest.contributes.views.memlens.map((v) => v.id), ['memlens.results', 'memlens.sessions']);
    assert.ok(manifest.contributes.viewsWelcome.some((w) => w.view === 'memlens.results' && w.contents.includes('command:')));
  });

  it('ships no test code: no self-test command, main is the production bundle', () => {
    const ids = manifest.contributes.commands.map((c) => c.command);
    assert.ok(!ids.some((id) => /selftest/i.test(id)), ids.join(', '));
    assert.ok(!fs.existsSync(path.join(ROOT, 'client/src/selfTest.ts')));
    for (const file of fs.readdirSync(path.join(ROOT, 'client/src'))) {
      assert.doesNotMatch(fs.readFileSync(path.join(ROOT, 'client/src', file), 'utf8'), /selfTest|MEMLENS_SELFTEST/, file);
    }
    const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
    assert.doesNotMatch(ignore, /^!out\/e2e/m);
  });

  it('orders settings by how often they are needed, and titles the context-menu item with the product', () => {
    // settings without an order (new knobs) come after the ordered ones in the Settings editor
    const orders = Object.entries(properties).map(([k, v]) => [k, (v as { order?: number }).order ?? 1e9] as const);
    const byOrder = [...orders].sort((a, b) => a[1] - b[1]).map(([k]) => k);
    assert.equal(byOrder[0], 'memlens.server.pythonPath');
    assert.ok(byOrder.indexOf('memlens.scope') < byOrder.indexOf('memlens.chunking.maxChars'));
    assert.ok(byOrder.indexOf('memlens.hover.enabled') < byOrder.indexOf('memlens.embedding.batchSize'));
    const selection = manifest.contributes.commands.find((c) => c.command === 'memlens.searchSelection');
    assert.equal(selection?.title, 'memlens: Search Selection');
    // Search Selection in the terminal's context menu too (a pasted error goes through search)
    const inTerminal = manifest.contributes.menus['terminal/context']?.find((e) => e.command === 'memlens.searchSelection');
    assert.ok(inTerminal);
    assert.match((inTerminal as { when?: string }).when ?? '', /terminalTextSelected/);
    const fixes = manifest.contributes.commands.find((c) => c.command === 'memlens.showFixes');
    assert.equal(fixes?.title, 'memlens: Past Occurrences of an Error');
    assert.ok(manifest.contributes.menus['terminal/context']?.some((e) => e.command === 'memlens.showFixes'));
  });

  it('packages as memlens.memlens with the bundle as main and matching @types/vscode', () => {
    assert.equal(manifest.name, 'memlens');
    assert.equal(manifest.publisher, 'memlens');
    assert.equal(manifest.main, './out/extension.js');
    assert.equal(manifest.engines.vscode, '^1.91.0');
    assert.match(manifest.devDependencies['@types/vscode'], /^~?1\.91\./);
  });
});
