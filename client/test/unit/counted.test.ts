import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { counted, countedOrNo } from '../../src/counted';

describe('counted', () => {
  it('says one thing in the singular and any other number in the plural, as the server does', () => {
    assert.equal(counted(1, 'file'), '1 file');
    assert.equal(counted(2, 'file'), '2 files');
    assert.equal(counted(0, 'file'), '0 files');
    assert.equal(counted(1, 'summary', 'summaries'), '1 summary');
    assert.equal(counted(2, 'summary', 'summaries'), '2 summaries');
    assert.equal(counted(1, 'weaker match', 'weaker matches'), '1 weaker match');
  });

  it('separates thousands, and says the number it shows in the singular only when it shows 1', () => {
    assert.equal(counted(12345, 'file'), '12,345 files');
    assert.equal(counted(1000, 'chunk'), '1,000 chunks');
    assert.equal(counted(1.2, 'minute'), '1 minute');
    assert.equal(counted(1.6, 'minute'), '2 minutes');
  });

  it('reads a count an answer left out as 0', () => {
    assert.equal(counted(undefined, 'session'), '0 sessions');
    assert.equal(counted(null, 'session'), '0 sessions');
    assert.equal(counted(Number.NaN, 'session'), '0 sessions');
  });
});

describe('countedOrNo', () => {
  it('says "no" for nothing and counts the rest as counted does', () => {
    assert.equal(countedOrNo(0, 'result'), 'no results');
    assert.equal(countedOrNo(undefined, 'result'), 'no results');
    assert.equal(countedOrNo(0, 'summary', 'summaries'), 'no summaries');
    assert.equal(countedOrNo(1, 'result'), '1 result');
    assert.equal(countedOrNo(2500, 'result'), '2,500 results');
  });
});
