import { describe, expect, it } from 'vitest';
import {
  FAST_PATH_PROTOCOL_VERSION,
  encodeFastPathMessage,
  fastPathRefusal,
  parseFastPathRequest,
  parseFastPathResponse,
  type FastPathAnswer,
  type FastPathRequest,
} from './fast-path.js';

const request: FastPathRequest = {
  version: FAST_PATH_PROTOCOL_VERSION,
  env: { CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'c1', CNI_IFNAME: 'net1', PATH: '/usr/bin' },
  stdin: '{\n  "cniVersion": "1.1.0",\n  "name": "a\\nb"\n}',
};

describe('fast path protocol', () => {
  it('a message is exactly one line, newlines in the config included', () => {
    const line = encodeFastPathMessage(request);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(parseFastPathRequest(line.slice(0, -1))).toEqual({ ok: true, request });
  });

  it('answers round-trip byte for byte', () => {
    const answer: FastPathAnswer = {
      version: FAST_PATH_PROTOCOL_VERSION,
      kind: 'answer',
      exitCode: 1,
      stdout: '{"cniVersion":"1.0.0","code":7,"msg":"invalid network config: vlan: too big"}',
      stderr: 'fabrik-ovs: DEL c1/net1: a note\n',
    };
    expect(parseFastPathResponse(encodeFastPathMessage(answer).trimEnd())).toEqual(answer);
  });

  it.each([
    [{ ...request, version: 2 }, 'protocol version 2 is not supported (this agent speaks 1)'],
    [{ ...request, version: '1' }, 'protocol version "1" is not supported (this agent speaks 1)'],
    [{ env: request.env, stdin: '' }, 'protocol version null is not supported (this agent speaks 1)'],
    [{ ...request, env: [] }, 'env: must be an object'],
    [{ ...request, env: { CNI_COMMAND: 5 } }, 'env.CNI_COMMAND: must be a string'],
    [{ ...request, stdin: { cniVersion: '1.0.0' } }, 'stdin: must be a string'],
    [[request], 'the request is not a JSON object'],
  ])('refuses %j: %s', (raw, reason) => {
    expect(parseFastPathRequest(JSON.stringify(raw))).toEqual({
      ok: false,
      refusal: { version: FAST_PATH_PROTOCOL_VERSION, kind: 'refused', reason, versions: [1] },
    });
  });

  it('refuses what is not JSON', () => {
    expect(parseFastPathRequest('ADD net1')).toMatchObject({
      ok: false,
      refusal: { reason: 'the request is not JSON' },
    });
  });

  it('reads refusals of any version, answers only of its own', () => {
    const refusal = { ...fastPathRefusal('no'), version: 7, versions: [7] };
    expect(parseFastPathResponse(JSON.stringify(refusal))).toEqual(refusal);
    const answer = { version: 7, kind: 'answer', exitCode: 0, stdout: '', stderr: '' };
    expect(parseFastPathResponse(JSON.stringify(answer))).toBeUndefined();
  });

  it.each([
    'garbage',
    '[]',
    '{"version":1,"kind":"answer","exitCode":0.5,"stdout":"","stderr":""}',
    '{"version":1,"kind":"answer","exitCode":0,"stdout":{},"stderr":""}',
    '{"version":1,"kind":"answer","exitCode":0,"stdout":""}',
    '{"version":1,"kind":"refused"}',
    '{"kind":"refused","reason":"x"}',
  ])('a response %s is not one of this protocol', (line) => {
    expect(parseFastPathResponse(line)).toBeUndefined();
  });
});
