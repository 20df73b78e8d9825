import { describe, expect, it } from 'vitest';
import { redactConfigText } from './intent.js';

describe('redactConfigText', () => {
  it('hides the secret of password lines', () => {
    expect(redactConfigText(' neighbor 192.0.2.2 password s3cret\n neighbor x bfd')).toBe(
      ' neighbor 192.0.2.2 password <redacted>\n neighbor x bfd',
    );
  });
});
