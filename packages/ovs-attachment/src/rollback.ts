/**
 * Undo steps of a command that acquires several resources: each acquired resource registers how
 * to release it; on failure they run newest first. Errors while undoing are collected, not thrown,
 * so that one failed step does not leave the others behind.
 */
export class Rollback {
  private readonly steps: Array<{ what: string; undo: () => Promise<unknown> }> = [];

  /** Registers an undo step; the returned function drops it again (the resource turned out not to exist). */
  onFailure(what: string, undo: () => Promise<unknown>): () => void {
    const step = { what, undo };
    this.steps.push(step);
    return () => {
      const at = this.steps.indexOf(step);
      if (at >= 0) this.steps.splice(at, 1);
    };
  }

  /** Runs every registered step (newest first) and returns the ones that failed. */
  async run(): Promise<string[]> {
    const failed: string[] = [];
    for (const step of this.steps.reverse()) {
      try {
        await step.undo();
      } catch (e) {
        failed.push(`${step.what}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    this.steps.length = 0;
    return failed;
  }
}
