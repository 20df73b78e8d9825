/** The lab cannot start on this machine (UML or its modules missing, shim cannot be built). */
export class LabUnavailableError extends Error {
  readonly code = 'LAB_UNAVAILABLE' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LabUnavailableError';
  }
}

/** A kernel module the lab needs did not load inside UML. */
export class LabModuleError extends Error {
  readonly code = 'LAB_MODULE_MISSING' as const;
  constructor(readonly modules: readonly string[]) {
    super(`the lab kernel could not load: ${modules.join(', ')} (see the modprobe messages above)`);
    this.name = 'LabModuleError';
  }
}

/** The lab kernel stopped (crash, timeout) before the command inside it finished. */
export class LabCrashedError extends Error {
  readonly code = 'LAB_CRASHED' as const;
  constructor(
    message: string,
    readonly outputTail: string,
  ) {
    super(`${message}\n--- last lab output ---\n${outputTail}`);
    this.name = 'LabCrashedError';
  }
}
