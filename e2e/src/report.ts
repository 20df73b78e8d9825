// A readable, timed report of a lab scenario: setup steps and checks, one line each, ending with
// `LAB OK <n> checks passed` or `LAB FAILED <what>`.

export interface ReportLine {
  readonly kind: 'step' | 'check';
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  readonly detail?: string;
}

const DETAIL_INDENT = ' '.repeat(24);

export class LabReport {
  readonly lines: ReportLine[] = [];
  private readonly started = performance.now();

  constructor(private readonly print: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {}

  /**
   * A setup step; a failing step stops the scenario (there is nothing left to check). A step
   * that resolves with a string has it printed as its detail.
   */
  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const value = await fn();
      const detail = typeof value === 'string' && value ? { detail: value } : {};
      this.record({ kind: 'step', name, ok: true, ms: performance.now() - t0, ...detail });
      return value;
    } catch (e) {
      this.record({ kind: 'step', name, ok: false, ms: performance.now() - t0, detail: describe(e) });
      throw new StepFailedError(name, { cause: e });
    }
  }

  /** A check; failures are recorded and the scenario goes on, so one run shows every failure. */
  async check(name: string, fn: () => Promise<string | void>): Promise<boolean> {
    const t0 = performance.now();
    try {
      const detail = await fn();
      this.record({
        kind: 'check',
        name,
        ok: true,
        ms: performance.now() - t0,
        ...(detail ? { detail } : {}),
      });
      return true;
    } catch (e) {
      this.record({ kind: 'check', name, ok: false, ms: performance.now() - t0, detail: describe(e) });
      return false;
    }
  }

  /** Detail lines under the last step or check (what a step made, for the reader). */
  note(text: string): void {
    for (const l of text.split('\n')) this.print(`${DETAIL_INDENT}${l}`);
  }

  get failures(): ReportLine[] {
    return this.lines.filter((l) => !l.ok);
  }

  get checksPassed(): number {
    return this.lines.filter((l) => l.kind === 'check' && l.ok).length;
  }

  /** Prints the verdict line and returns the process exit code. */
  finish(): number {
    const total = ((performance.now() - this.started) / 1000).toFixed(1);
    const failed = this.failures;
    if (failed.length === 0 && this.checksPassed > 0) {
      this.print(`\nLAB OK ${this.checksPassed} checks passed (${total} s)`);
      return 0;
    }
    const what = failed.length ? failed.map((l) => l.name).join('; ') : 'no checks ran';
    this.print(`\nLAB FAILED ${what}`);
    return 1;
  }

  private record(line: ReportLine): void {
    this.lines.push(line);
    const mark = line.ok ? 'ok  ' : 'FAIL';
    const ms = `${Math.round(line.ms)} ms`.padStart(8);
    this.print(`${mark} ${line.kind === 'step' ? 'step ' : 'check'} ${ms}  ${line.name}`);
    if (line.detail) this.note(line.detail);
  }
}

export class StepFailedError extends Error {
  readonly code = 'STEP_FAILED' as const;
  constructor(
    readonly step: string,
    options: { cause: unknown },
  ) {
    super(`step failed: ${step}`, options);
    this.name = 'StepFailedError';
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
