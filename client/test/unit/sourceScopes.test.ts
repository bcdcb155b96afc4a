import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceFolder } from '../../src/protocol';
import { rememberScopes, removalQuestion, resolveSettingPath } from '../../src/sourceScopes';

const VARS = { home: '/home/ada', workspaceFolder: '/home/ada/code/app', env: { NOTES: '/srv/notes' } };

const FOLDER: SourceFolder = {
  path: '/home/ada/x/transcripts',
  displayPath: '~/x/transcripts',
  kind: 'transcripts',
  files: 12,
  units: 191,
  addedFrom: 'editor setting memlens.transcripts.paths',
  named: false,
};

describe('the settings scope that named a transcript folder', () => {
  it('resolves a setting as the server does', () => {
    assert.equal(resolveSettingPath('~/x/transcripts', VARS), '/home/ada/x/transcripts');
    assert.equal(resolveSettingPath('transcripts', VARS), '/home/ada/code/app/transcripts');
    assert.equal(resolveSettingPath('${env:NOTES}/t/', VARS), '/srv/notes/t');
    assert.equal(resolveSettingPath('${workspaceFolder}/../t', VARS), '/home/ada/code/t');
  });

  it('keeps the last scope that named a folder after the scope drops it', () => {
    const first = rememberScopes({}, [{ scope: 'User or Remote [ssh-remote]', paths: ['~/x/transcripts'] }, { scope: 'Workspace', paths: undefined }], VARS);
    assert.deepEqual(first, { '/home/ada/x/transcripts': 'User or Remote [ssh-remote]' });
    const after = rememberScopes(first, [{ scope: 'User or Remote [ssh-remote]', paths: [] }, { scope: 'Workspace', paths: ['other'] }], VARS);
    assert.equal(after['/home/ada/x/transcripts'], 'User or Remote [ssh-remote]');
    assert.equal(after['/home/ada/code/app/other'], 'Workspace');
  });

  it('names the folder and its scope in the question, else where it was added from', () => {
    const scoped = removalQuestion(FOLDER, 'Workspace');
    assert.match(scoped, /no longer name ~\/x\/transcripts \(it was in memlens\.transcripts\.paths of your Workspace settings\)/);
    assert.match(scoped, /still holds its 12 files/);
    assert.match(removalQuestion({ ...FOLDER, files: 1, addedFrom: 'memlens index --transcripts' }, undefined), /added from memlens index --transcripts\).*its 1 file /);
  });
});
